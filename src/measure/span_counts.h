// What ended inside the measured span of a run: from the end of the warm-up until the schedule
// ended (its planned end, or the moment a stop, -n or a failure ended it early). Throughput and
// goodput are these counts over the span's length, so they are what the windows of the span show
// (docs/measurement.md, "Throughput and goodput"). A worker fills its own; the coordinator merges
// them once, at the end. Owned by one thread at a time.
#pragma once

#include <algorithm>
#include <cstdint>

namespace proofload::measure {

// Streams that completed inside the span (their rates' numerators, as responses are throughput's).
struct SpanStreams {
  int64_t completed = 0;
  int64_t events = 0, bytes = 0, tokens = 0;
  int64_t goodput = 0;  // of them, those that met --goodput

  void merge(const SpanStreams& other) {
    completed += other.completed;
    events += other.events;
    bytes += other.bytes;
    tokens += other.tokens;
    goodput += other.goodput;
  }
};

struct SpanCounts {
  int64_t responses = 0;             // requests that ended with an HTTP response, any status
  int64_t successes = 0;             // of those, outcome success (checks passed): goodput
  int64_t iterations = 0;            // picks of the mix that ended (one request, or a whole flow)
  int64_t iterations_succeeded = 0;  // of those, every request succeeded
  int64_t flows = 0;                 // iterations of a flow that ended (succeeded or failed)
  int64_t flows_succeeded = 0;
  SpanStreams streams;

  void merge(const SpanCounts& other) {
    streams.merge(other.streams);
    responses += other.responses;
    successes += other.successes;
    iterations += other.iterations;
    iterations_succeeded += other.iterations_succeeded;
    flows += other.flows;
    flows_succeeded += other.flows_succeeded;
  }
};

// The span of one worker, or merged: the counts and the span's length. Workers end their spans
// within microseconds of each other when the schedule ends by its duration; with -n they may
// part by a request or so, and the merged length is the longest (a rate at most that much low).
struct MeasuredSpan {
  SpanCounts counts;
  int64_t duration_ns = 0;  // from the end of the warm-up to the end of the span
  // No response ended before the schedule did (every request was started at once, -n <= -c):
  // the span was extended to the last response, so that a rate exists at all.
  bool extended_to_last_response = false;

  void merge(const MeasuredSpan& other) {
    counts.merge(other.counts);
    duration_ns = std::max(duration_ns, other.duration_ns);
    extended_to_last_response = extended_to_last_response || other.extended_to_last_response;
  }
  // Per second of the span; 0 for an empty span.
  double per_s(int64_t count) const {
    return duration_ns > 0 ? static_cast<double>(count) * 1e9 / static_cast<double>(duration_ns)
                           : 0;
  }
};

}  // namespace proofload::measure
