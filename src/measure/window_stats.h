// What one worker (or, merged, the whole run) recorded during one window of the run.
// A window is a fixed slice of the run's clock (1 s by default); a request belongs to the window
// in which it ended. Owned by one thread at a time: a worker fills it, then hands it to the
// coordinator, which merges the workers' copies.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "measure/hdr_histogram.h"
#include "measure/outcome.h"
#include "measure/source_window.h"
#include "measure/stream_window.h"

namespace proofload::measure {

// Status codes 0..599 are counted individually; anything else lands in the last slot.
constexpr int kStatusSlots = 601;
constexpr int kStatusOther = 600;

// The connections opened in a window: how long their TCP connect and TLS handshake took.
struct ConnectionTimes {
  HdrHistogram connect_us;    // from the connect call to the socket being connected
  HdrHistogram handshake_us;  // https: from the connected socket to the finished handshake
  int64_t handshakes = 0;     // TLS handshakes completed
  int64_t resumed = 0;        // of them, resumed sessions (no certificate exchange)
  int64_t goaways = 0;        // HTTP/2: GOAWAY frames the server sent

  void merge(const ConnectionTimes& other);
  void clear();
};

struct WindowStats {
  int64_t index = 0;        // window number from the start of the run (warm-up included)
  int64_t start_ns = 0;     // window start, ns since the run started
  int64_t duration_ns = 0;  // nominal length; the last window of a run may be shorter
  bool warmup = false;      // inside --warmup: recorded, excluded from results
  // Began after the measured span ended: the schedule was over, and what ends here is work in
  // flight finishing within the grace period. Not part of throughput (docs/measurement.md).
  bool drain = false;

  // Latency: from the intended start (schedule time in open loop, ready time in closed loop)
  // to the last byte of the response. Microseconds. Responses of any status are recorded.
  HdrHistogram latency_us;
  // Service time: from the first byte written to the last byte read. Microseconds.
  HdrHistogram service_us;
  // Time to first byte: from the first byte written to the first response byte. Microseconds.
  HdrHistogram ttfb_us;
  // Send lag: from the intended start to the first byte written, of the requests recorded in
  // latency_us. Microseconds. How late requests went out: waiting for a connection or in the
  // open loop's queue, and the generator's own delay (a timer's wake-up, a turn of its loop);
  // latency is send lag + service time.
  HdrHistogram send_lag_us;

  std::array<int64_t, kOutcomeCount> outcomes{};  // requests ended in this window, by outcome
  std::array<int64_t, kStatusSlots> status{};     // responses by status code
  int64_t intended = 0;        // requests the schedule wanted in this window (open loop: due;
                               // closed loop: started), a flow's later steps included
  // Work offered in this window: each arrival is one single request or one whole flow (open
  // loop: arrivals due; closed loop: a user's next pick begun). A flow's later steps are in
  // `intended` only. Never started is counted per arrival, so its share is over these.
  int64_t arrivals = 0;
  int64_t bytes_in = 0;        // bytes read from the server (headers and bodies)
  int64_t bytes_out = 0;       // bytes written to the server
  int64_t connects = 0;        // TCP connections opened successfully
  ConnectionTimes connection;  // their connect and handshake times (bytes and connections are
                               // counted by the window they happened in, not by intent)
  int64_t in_flight_end = 0;   // requests started but not ended at the window's end (gauge)
  int64_t queued_end = 0;      // open loop: requests waiting for a connection at the end (gauge)
  // With connections bound to several local addresses (LoadSpec::sources): what the rate limit
  // did per source, in the order of the sources; empty otherwise.
  std::vector<SourceWindow> sources;
  // Requests read as streams (`stream: sse`): how they ended, their events, tokens and times.
  StreamWindow streams;
  // A scenario's named requests that ended in this window, by request (the workload's order)
  // and outcome: what the live metrics count by name. Empty without a scenario.
  std::vector<std::array<int64_t, kOutcomeCount>> request_outcomes;

  void add_status(int code) { ++status[(code >= 0 && code < kStatusOther) ? code : kStatusOther]; }
  int64_t count(Outcome o) const { return outcomes[static_cast<int>(o)]; }
  // Every ended request: sums the outcomes.
  int64_t ended() const;
  // Requests that got an HTTP response, whatever its status.
  int64_t responses() const;
  int64_t errors() const;
  // Share of arrivals never started (0..1); nullopt with no arrival.
  std::optional<double> never_started_share() const;
  // What a rate limit did with the requests that ended here: 2xx let through, 429 limited, the
  // rest other (a source's counts, or a probe variant's).
  SourceWindow limit_counts() const;

  // Adds another worker's (or window's) counts. Gauges add (workers' shares of one moment).
  void merge(const WindowStats& other);
  // Clears counts for reuse; keeps histogram storage (no allocation).
  void clear();
};

}  // namespace proofload::measure
