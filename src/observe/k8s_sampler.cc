// See k8s_sampler.h.
#include "observe/k8s_sampler.h"

#include <algorithm>
#include <cstdlib>

#include "common/usage_error.h"

namespace proofload::observe {
namespace {

constexpr std::string_view kPrefix = "k8s:";

// A DNS-1123 label, as Kubernetes requires of a namespace's name.
bool is_namespace_name(std::string_view name) {
  if (name.empty() || name.size() > 63 || name.front() == '-' || name.back() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

}  // namespace

int64_t k8s_timeout_ns(int64_t period_ns) {
  return std::clamp(period_ns / 5 * 4, kK8sMinTimeoutNs, kK8sMaxTimeoutNs);
}

K8sTarget parse_k8s_spec(std::string_view spec) {
  const std::string shown(spec);
  std::string_view rest = spec.substr(std::min(spec.size(), kPrefix.size()));
  const size_t slash = rest.find('/');
  const std::string form = ": expected k8s:NAMESPACE/SELECTOR, e.g. k8s:company-dns/app=v3";
  if (slash == std::string_view::npos) throw UsageError(shown + ": no '/'" + form);
  K8sTarget target{std::string(rest.substr(0, slash)), std::string(rest.substr(slash + 1))};
  if (target.name_space.empty()) throw UsageError(shown + ": no namespace" + form);
  if (target.selector.empty()) throw UsageError(shown + ": no label selector" + form);
  if (!is_namespace_name(target.name_space)) {
    throw UsageError(shown + ": '" + target.name_space +
                     "' is not a namespace name (lowercase letters, digits and '-')");
  }
  return target;
}

K8sSampler::K8sSampler(std::string spec, const K8sTarget& target, K8sOptions options)
    : spec_(std::move(spec)), options_(std::move(options)) {
  limits_.timeout_ns = options_.timeout_ns;
  // --namespace=X and --selector=X as single arguments: a value can never be read as a flag.
  const std::string name_space = "--namespace=" + target.name_space;
  const std::string selector = "--selector=" + target.selector;
  get_command_ = {options_.kubectl, "get", "pods", name_space, selector, "-o", "json"};
  top_command_ = {options_.kubectl, "top", "pods", name_space, selector, "--no-headers"};
}

bool K8sSampler::get_pods(std::vector<K8sPod>& pods, std::string& error) const {
  CommandOutcome got = run_bounded(get_command_, limits_);
  if (!got.succeeded()) {
    error = "kubectl get pods failed: " + got.failure();
    return false;
  }
  std::string why;
  if (!parse_pod_list(got.out, pods, why)) {
    error = "kubectl get pods: " + why;
    return false;
  }
  return true;
}

Sample K8sSampler::sample(int64_t now_ns) {
  // The wall time the pods are compared with: taken with now_ns, the sample's own time.
  const int64_t wall_now_ns = options_.wall_clock();
  return sample_or_gap(now_ns, [&](Sample& sample, std::string& error) {
    std::vector<K8sPod> pods;
    if (!get_pods(pods, error)) return false;
    sample.readings = tally_.readings(pods, wall_now_ns);
    add_usage(now_ns, sample.readings);
    return true;
  });
}

void K8sSampler::add_usage(int64_t now_ns, std::vector<Reading>& readings) {
  if (now_ns < next_top_ns_) return;
  CommandOutcome top = run_bounded(top_command_, limits_);
  std::optional<PodUsage> usage;
  if (top.succeeded()) usage = parse_top_pods(top.out);
  if (!usage) {
    // Not a gap: a cluster without metrics-server still shows its pods. Tried again later,
    // not every sample, since each try costs a kubectl run.
    metrics_note_ = "kubectl top pods failed: " +
                    (top.succeeded() ? std::string("no pod lines it could read") : top.failure()) +
                    " (cpu_cores and memory_bytes left out)";
    next_top_ns_ = now_ns + options_.top_retry_ns;
    return;
  }
  metrics_note_.clear();
  readings.push_back({"cpu_cores", MetricKind::kGauge, usage->cpu_cores});
  readings.push_back({"memory_bytes", MetricKind::kGauge, usage->memory_bytes});
  // Each pod's own, named as a Prometheus series is: a soak reports memory per pod. Bounded by
  // the pods a selector matches at once.
  for (const PodUsage::OnePod& pod : usage->by_pod) {
    readings.push_back({"memory_bytes{pod=\"" + pod.name + "\"}", MetricKind::kGauge,
                        pod.memory_bytes});
    readings.push_back({"cpu_cores{pod=\"" + pod.name + "\"}", MetricKind::kGauge,
                        pod.cpu_cores});
  }
}

std::unique_ptr<K8sSampler> make_k8s_sampler(std::string_view spec, K8sOptions options) {
  if (!spec.starts_with(kPrefix)) return nullptr;
  const K8sTarget target = parse_k8s_spec(spec);
  if (options.kubectl.empty()) {
    const char* path = std::getenv("PATH");
    options.kubectl =
        find_on_path("kubectl", path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
    if (options.kubectl.empty())
      throw UsageError(std::string(spec) + ": kubectl not found on PATH");
  }
  auto sampler = std::make_unique<K8sSampler>(std::string(spec), target, std::move(options));
  // One look before the run: a selector with a typo, a wrong context or no credentials would
  // otherwise make a day-long soak a day of empty figures.
  std::vector<K8sPod> pods;
  std::string error;
  if (!sampler->get_pods(pods, error)) throw UsageError(std::string(spec) + ": " + error);
  if (pods.empty()) throw UsageError(std::string(spec) + " matches 0 pods");
  return sampler;
}

}  // namespace proofload::observe
