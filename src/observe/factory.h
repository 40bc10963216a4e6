// One --observe SPEC to its sampler: `self`, `pid:N`, `pidfile:PATH`, `host`, `cgroup:PATH`,
// `prom:URL[?match=a,b]`, `k8s:NAMESPACE/SELECTOR`. Configuration time only: throws UsageError
// (one line) for an unknown kind or a malformed spec, before anything is sent.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "net/tls.h"
#include "observe/sampler.h"

namespace proofload::observe {

// `period_ns` bounds how long a slow endpoint may take (prom samplers time out within it; k8s
// samplers' kubectl within 80% of it, but never under 2 s nor over 5 s: see k8s_sampler.h).
// `trust`: how an https prom: endpoint is verified (the command's --cacert, --insecure).
std::unique_ptr<Sampler> make_sampler(std::string_view spec, int64_t period_ns,
                                      const net::TlsOptions& trust = {});

// What make_sampler refuses in a spec's form, reaching nothing: no address is resolved, no
// cgroup or pid file looked at, no cluster asked (`--plan` checks every --observe with it).
// Throws UsageError.
void check_sampler_spec(std::string_view spec);

// The kind of a spec ("pid" for "pid:42"): the prefix of its columns in windows.csv.
std::string_view sampler_kind(std::string_view spec);

}  // namespace proofload::observe
