// What one worker records of its load, apart from how it sends it: the window being recorded
// (requests by when they ended), the totals by the part of the run each request was intended in
// (warm-up or measured), a scenario's totals by request and flow, the measured span's counts
// (what makes throughput), and, with several source addresses, what the rate limit did with this
// worker's source. It hands each window to the WindowMailbox as the window ends, and the totals
// when the worker ends. The Worker says what happened (a request intended, an outcome, a
// response with its times); this decides where it counts.
//
// One per worker, on its thread. Hot path: inline counting, no allocation after the first
// windows (a window's hand-off is a swap, window_mailbox.h).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "engine/load_spec.h"
#include "engine/stream_body.h"
#include "engine/window_mailbox.h"
#include "engine/worker_io.h"
#include "measure/named_stats.h"
#include "measure/span_counts.h"
#include "measure/window_stats.h"

namespace proofload::engine {

// The instants of one answered request (absolute monotonic ns).
struct ResponseTimes {
  int64_t intended_ns = 0;     // when the schedule wanted it sent
  int64_t write_start_ns = 0;  // when its first byte left
  int64_t first_byte_ns = 0;   // when the answer's first byte came
  int64_t end_ns = 0;          // when the answer was complete
};

class WindowRecorder {
 public:
  // `worker`: the worker's index (its entry in a window's sources); `start_ns`: the run's start.
  WindowRecorder(const LoadSpec& spec, int worker, int64_t start_ns, WindowMailbox& mailbox);

  // ---- windows
  // The window being recorded: bytes, connects and connection times are counted straight into
  // it (by when they happened, not by intent).
  measure::WindowStats& window() { return current_; }
  int64_t window_end_ns() const { return window_end_ns_; }
  // Hands over every window that ended by `now`; `in_flight` and `queued` are the worker's
  // gauges at that moment.
  void roll(int64_t now, int64_t in_flight, int64_t queued) {
    while (now >= window_end_ns_) {
      flush(window_end_ns_, in_flight, queued);
      window_end_ns_ += spec_.window_ns;
    }
  }
  // The worker has ended (its drain began at `drain_started_ns`): hands over the last window,
  // ending when the last request ended, and the totals.
  void finish(int64_t drain_started_ns, int64_t in_flight, int64_t queued);

  // ---- the measured span
  // The schedule was cut short at `now` (a stop, -n, a failure): the span ends then, not at the
  // planned end.
  void cut_span(int64_t now) { span_end_ns_ = std::min(span_end_ns_, now); }

  // ---- requests
  // One request the schedule wanted; `arrival` when it is new work (a single request or a
  // flow's first step), not a flow's later step.
  void count_intended(int64_t intended_ns, bool arrival) {
    ++current_.intended;
    measure::WindowStats& part = part_of(intended_ns);
    ++part.intended;
    if (arrival) {
      ++current_.arrivals;
      ++part.arrivals;
    }
  }
  // Arrivals the open loop skipped in bulk (none could be sent or queued), `in_warmup` of them
  // intended in the warm-up; their outcomes come through count_never_started.
  void count_skipped_arrivals(int64_t skipped, int64_t in_warmup);
  // The dispatcher's running counts of requests that never started, of the whole run and of the
  // warm-up: what is new since the last call is counted, now.
  void count_never_started(int64_t total, int64_t in_warmup);
  // A request that ended without an answer, now.
  void count_outcome(measure::Outcome outcome, int64_t intended_ns) {
    last_end_ns_ = worker_now();
    ++current_.outcomes[static_cast<int>(outcome)];
    ++part_of(intended_ns).outcomes[static_cast<int>(outcome)];
  }
  // An answered request: its status, outcome (the status, and a scenario's checks) and times;
  // `request` is its index in the workload (a scenario's name), `stream` its body read as a
  // stream (null: not one).
  void count_response(int status, measure::Outcome outcome, const ResponseTimes& times, int request,
                      StreamBody* stream);
  // A scenario's request by name (a no-op without a scenario); `responded`: it had an answer.
  void count_named(int request, int64_t intended_ns, measure::Outcome outcome, int64_t now,
                   bool responded) {
    if (!named_) return;
    measure::RequestStats& stats = named_part_of(intended_ns).requests[request];
    ++stats.outcomes[static_cast<int>(outcome)];
    ++current_.request_outcomes[request][static_cast<int>(outcome)];
    if (responded) stats.latency_us.record(micros_of(now - intended_ns));
  }
  // Where a stream's events count: the window, the part of the run it was intended in and (a
  // scenario) its request's.
  std::array<measure::StreamWindow*, 3> stream_windows(int request, int64_t intended_ns);

  // ---- iterations (a single request, or every step of a flow; `flow` < 0: not a flow)
  void count_flow_started(int flow, int64_t intended_ns) {
    if (named_ && flow >= 0) ++named_part_of(intended_ns).flows[flow].started;
  }
  void count_flow_abandoned(int flow, int64_t started_ns) {
    if (named_ && flow >= 0) ++named_part_of(started_ns).flows[flow].abandoned;
  }
  // An iteration that began at `started_ns` ended at `now`, its flow (if any) succeeded or not.
  void count_iteration_end(int flow, bool succeeded, int64_t started_ns, int64_t now);

  // ---- a source's rate limit (LoadSpec::sources)
  bool counts_source() const { return counts_source_; }
  // What the limit did with an answer of this worker's source, and its rate-limit headers.
  void count_source_answer(int status, std::string_view header_lines);

 private:
  // Warm-up or measured: a request belongs to the part of the run it was intended in.
  measure::WindowStats& part_of(int64_t intended_ns) {
    return intended_ns < start_ns_ + spec_.warmup_ns ? warmup_total_ : measured_total_;
  }
  measure::NamedTotals& named_part_of(int64_t intended_ns) {
    return intended_ns < start_ns_ + spec_.warmup_ns ? warmup_named_ : measured_named_;
  }
  // Where an end at `now` counts for throughput: the measured span, the drain after it, or
  // nowhere (the warm-up).
  measure::SpanCounts* span_part(int64_t now) {
    if (now < start_ns_ + spec_.warmup_ns) return nullptr;
    return now < span_end_ns_ ? &span_ : &after_span_;
  }
  void flush(int64_t end_ns, int64_t in_flight, int64_t queued);
  measure::MeasuredSpan measured_span() const;

  const LoadSpec& spec_;
  const int worker_;
  const int64_t start_ns_;
  WindowMailbox& mailbox_;
  const bool named_;          // a scenario: count by request name and flow
  const bool counts_source_;  // LoadSpec::sources: count what the limit did with this source

  measure::WindowStats current_;  // the window being recorded (requests by when they ended)
  // Totals by the part of the run a request was intended in; bytes and gauges are not kept here.
  measure::WindowStats measured_total_;
  measure::WindowStats warmup_total_;
  measure::NamedTotals measured_named_;  // by request and flow, same split as the totals
  measure::NamedTotals warmup_named_;
  int64_t window_index_ = 0;
  int64_t window_end_ns_ = 0;  // absolute monotonic ns

  // The end of the measured span (absolute): the schedule's planned end, or earlier when the
  // schedule was cut short. What ends before it (and after the warm-up) makes throughput.
  int64_t span_end_ns_ = 0;
  measure::SpanCounts span_;        // ended inside the measured span
  measure::SpanCounts after_span_;  // ended after it (the drain): used only if the span had none
  int64_t last_end_ns_ = 0;         // when this worker's last request ended

  int64_t never_started_seen_ = 0;
  int64_t never_started_in_warmup_seen_ = 0;

  // The source's 2xx answers until its first 429, whether that came, and the rate-limit headers
  // seen so far.
  int64_t let_through_so_far_ = 0;
  bool saw_429_ = false;
  std::vector<measure::LimitHeader> limit_headers_;
};

}  // namespace proofload::engine
