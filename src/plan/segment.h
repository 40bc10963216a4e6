// One load run as N segments, one per machine (`--segment I/N`, docs/distributed.md): the checks
// a segmented spec must pass and this segment's share of what is shared out by list. The shares
// of counts (connections, arrivals, -n) are the engine's (engine::LoadSpec::segment). Pure.
#pragma once

#include <string>
#include <vector>

#include "plan/run_spec.h"

namespace proofload::plan {

// At most this many segments: a Kubernetes Job of a thousand generator pods is already a fleet.
constexpr int kMaxSegments = 1000;

// This segment's sources: source j of --sources goes to segment j mod N (all of them for one
// segment).
std::vector<std::string> segment_sources(const RunSpec& spec);

// Checks that every segment gets a share it can run: an index from 0 to N-1, a connection (and,
// with --sources, a source) for each, -n of at least N. Throws UsageError naming the flag.
void check_segment(const RunSpec& spec, int64_t most_connections);

}  // namespace proofload::plan
