// Totals per named request and per flow of a scenario, kept beside the run's WindowStats. A
// worker fills its own copy (one per part of the run: warm-up and measured); the coordinator
// merges the workers' copies once, at the end. Owned by one thread at a time.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "measure/hdr_histogram.h"
#include "measure/outcome.h"
#include "measure/span_counts.h"
#include "measure/stream_window.h"

namespace proofload::measure {

// One named request (a scenario's `requests:` entry), wherever it was sent from (the mix
// directly or a flow step).
struct RequestStats {
  // From the request's intended start to the last byte of the response (any status). The
  // intended start of a flow's later step is when the step became due (after the previous
  // step and the think time). Microseconds.
  HdrHistogram latency_us;
  std::array<int64_t, kOutcomeCount> outcomes{};  // requests ended, by outcome
  // Responses that ended inside the measured span (measure/span_counts.h), whichever part of the
  // run they were intended in: the numerator of this request's throughput. Kept in the measured
  // part's totals only.
  int64_t span_responses = 0;
  int64_t span_successes = 0;  // of those, the successes: this request's goodput
  // A streamed request's streams (made at its first stream; nullopt: it never streamed), and
  // those that completed inside the measured span (measured part's totals only, as above).
  std::optional<StreamWindow> streams;
  SpanStreams span_streams;

  int64_t count(Outcome o) const { return outcomes[static_cast<int>(o)]; }
  int64_t ended() const;
  void merge(const RequestStats& other);
};

// One flow. Its denominator is flows, not requests: a flow with three steps that fails at the
// second counts one failed flow and two requests (one success, one failure).
struct FlowStats {
  int64_t started = 0;    // iterations begun (their first step was sent, or failed to be)
  int64_t succeeded = 0;  // every step answered and passed its checks
  int64_t failed = 0;     // a step failed (any outcome but success); the rest was not sent
  int64_t abandoned = 0;  // the run ended (or was stopped) before the flow's next step
  // From the first step's intended start to the last step's end (think times included),
  // successful flows only. Microseconds.
  HdrHistogram duration_us;

  void merge(const FlowStats& other);
};

// Everything named that one part of a run recorded: indexes are the workload's request and flow
// indexes. Empty for a run without a scenario file.
struct NamedTotals {
  std::vector<RequestStats> requests;
  std::vector<FlowStats> flows;

  // Sizes to the workload's counts (allocates once, at the start of a run).
  void resize(size_t request_count, size_t flow_count);
  // Adds another worker's totals; resizes to the larger of the two first.
  void merge(const NamedTotals& other);
};

}  // namespace proofload::measure
