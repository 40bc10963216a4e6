// One --observe SPEC to its sampler: `self`, `pid:N`, `pidfile:PATH`, `host`, `cgroup:PATH`,
// `prom:URL[?match=a,b]`. Configuration time only: throws UsageError (one line) for an unknown
// kind or a malformed spec, before anything is sent.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "observe/sampler.h"

namespace proofload::observe {

// `period_ns` bounds how long a slow endpoint may take (prom samplers time out within it).
std::unique_ptr<Sampler> make_sampler(std::string_view spec, int64_t period_ns);

// The kind of a spec ("pid" for "pid:42"): the prefix of its columns in windows.csv.
std::string_view sampler_kind(std::string_view spec);

}  // namespace proofload::observe
