// See segment.h.
#include "plan/segment.h"

#include <fmt/format.h>

#include "common/usage_error.h"
#include "schedule/arrivals.h"

namespace proofload::plan {

std::vector<std::string> segment_sources(const RunSpec& spec) {
  std::vector<std::string> mine;
  for (size_t j = 0; j < spec.sources.size(); ++j) {
    if (static_cast<int>(j % static_cast<size_t>(spec.segments)) == spec.segment) {
      mine.push_back(spec.sources[j]);
    }
  }
  return mine;
}

void check_segment(const RunSpec& spec, int64_t most_connections) {
  if (spec.segments < 1 || spec.segments > kMaxSegments) {
    throw UsageError(
        fmt::format("--segment: from 1 to {} segments, got {}", kMaxSegments, spec.segments));
  }
  if (spec.segment < 0 || spec.segment >= spec.segments) {
    throw UsageError(fmt::format("--segment {}/{}: the index goes from 0 to {}", spec.segment,
                                 spec.segments, spec.segments - 1));
  }
  if (spec.segments == 1) return;
  const std::string which = fmt::format("--segment {}/{}", spec.segment, spec.segments);
  // The smallest share is the last segment's: connection c belongs to segment c mod N.
  if (schedule::share_of(spec.connections, spec.segments - 1, spec.segments) < 1 ||
      most_connections < spec.segments) {
    throw UsageError(
        fmt::format("{}: each of the {} segments needs a connection of its own, so "
                    "-c must be at least {}",
                    which, spec.segments, spec.segments));
  }
  if (spec.requests_limit && *spec.requests_limit < spec.segments) {
    throw UsageError(fmt::format("{}: -n {} cannot give each of the {} segments a request", which,
                                 *spec.requests_limit, spec.segments));
  }
  if (!spec.sources.empty() && spec.sources.size() < static_cast<size_t>(spec.segments)) {
    throw UsageError(
        fmt::format("{}: {} sources cannot give each of the {} segments one of its "
                    "own (source j goes to segment j mod {})",
                    which, spec.sources.size(), spec.segments, spec.segments));
  }
  const size_t mine = segment_sources(spec).size();
  if (mine > 0 && schedule::share_of(most_connections, spec.segment, spec.segments) <
                      static_cast<int64_t>(mine)) {
    throw UsageError(
        fmt::format("{}: each of this segment's {} sources needs a connection of its "
                    "own",
                    which, mine));
  }
}

}  // namespace proofload::plan
