// See named_stats.h.
#include "measure/named_stats.h"

#include <algorithm>

namespace proofload::measure {

int64_t RequestStats::ended() const {
  int64_t sum = 0;
  for (int64_t n : outcomes) sum += n;
  return sum;
}

void RequestStats::merge(const RequestStats& other) {
  latency_us.merge(other.latency_us);
  for (int i = 0; i < kOutcomeCount; ++i) outcomes[i] += other.outcomes[i];
  span_responses += other.span_responses;
  span_successes += other.span_successes;
  span_streams.merge(other.span_streams);
  if (other.streams) {
    if (!streams) streams.emplace();
    streams->merge(*other.streams);
  }
}

void FlowStats::merge(const FlowStats& other) {
  started += other.started;
  succeeded += other.succeeded;
  failed += other.failed;
  abandoned += other.abandoned;
  duration_us.merge(other.duration_us);
}

void NamedTotals::resize(size_t request_count, size_t flow_count) {
  requests.resize(request_count);
  flows.resize(flow_count);
}

void NamedTotals::merge(const NamedTotals& other) {
  resize(std::max(requests.size(), other.requests.size()),
         std::max(flows.size(), other.flows.size()));
  for (size_t i = 0; i < other.requests.size(); ++i) requests[i].merge(other.requests[i]);
  for (size_t i = 0; i < other.flows.size(); ++i) flows[i].merge(other.flows[i]);
}

}  // namespace proofload::measure
