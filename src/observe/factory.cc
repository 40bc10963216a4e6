// See factory.h.
#include "observe/factory.h"

#include <string>

#include "common/usage_error.h"
#include "observe/cgroup_sampler.h"
#include "observe/k8s_sampler.h"
#include "observe/process_sampler.h"
#include "observe/prom_sampler.h"

namespace proofload::observe {

namespace {

[[noreturn]] void unknown_observer(std::string_view spec) {
  throw UsageError("unknown observer '" + std::string(spec) +
                   "': one of self, pid:N, pidfile:PATH, host, cgroup:PATH, prom:URL, "
                   "k8s:NAMESPACE/SELECTOR");
}

}  // namespace

std::unique_ptr<Sampler> make_sampler(std::string_view spec, int64_t period_ns,
                                      const net::TlsOptions& trust) {
  if (auto sampler = make_proc_sampler(spec)) return sampler;
  if (auto sampler = make_cgroup_sampler(spec)) return sampler;
  if (auto sampler = make_prom_sampler(spec, prom_timeout_ns(period_ns), trust)) return sampler;
  K8sOptions k8s;
  k8s.timeout_ns = k8s_timeout_ns(period_ns);
  if (auto sampler = make_k8s_sampler(spec, std::move(k8s))) return sampler;
  unknown_observer(spec);
}

void check_sampler_spec(std::string_view spec) {
  const std::string_view kind = sampler_kind(spec);
  if (kind == "cgroup") {
    check_cgroup_spec(spec);
  } else if (kind == "prom") {
    check_prom_spec(spec);
  } else if (kind == "k8s") {
    parse_k8s_spec(spec);
  } else if (!check_proc_spec(spec)) {
    unknown_observer(spec);
  }
}

std::string_view sampler_kind(std::string_view spec) { return spec.substr(0, spec.find(':')); }

}  // namespace proofload::observe
