// What a worker records of its load, and where each count goes. See window_recorder.h.
#include "engine/window_recorder.h"

#include <algorithm>

namespace proofload::engine {

using measure::Outcome;

WindowRecorder::WindowRecorder(const LoadSpec& spec, int worker, int64_t start_ns,
                               WindowMailbox& mailbox)
    : spec_(spec),
      worker_(worker),
      start_ns_(start_ns),
      mailbox_(mailbox),
      named_(!spec.workload->is_fixed()),
      counts_source_(!spec.sources.empty()),
      window_end_ns_(start_ns + spec.window_ns),
      span_end_ns_(start_ns + spec.profile.duration_ns()) {
  if (counts_source_) current_.sources.resize(spec.sources.size());
  if (named_) {
    const size_t requests = spec.workload->requests().size();
    const size_t flows = spec.workload->flow_names().size();
    measured_named_.resize(requests, flows);
    warmup_named_.resize(requests, flows);
    current_.request_outcomes.resize(requests);
  }
}

// Hands the window that ends at `end_ns` (absolute; the run's last window ends early) to the
// coordinator and starts the next one.
void WindowRecorder::flush(int64_t end_ns, int64_t in_flight, int64_t queued) {
  current_.index = window_index_;
  current_.start_ns = window_index_ * spec_.window_ns;
  current_.duration_ns = std::max<int64_t>(0, end_ns - (start_ns_ + current_.start_ns));
  current_.warmup = current_.start_ns < spec_.warmup_ns;
  current_.drain = start_ns_ + current_.start_ns >= span_end_ns_;
  current_.in_flight_end = in_flight;
  current_.queued_end = queued;
  if (counts_source_) {
    // Answers by status are counted anyway: the source's entry is read off them once a window.
    measure::SourceWindow& mine = current_.sources[static_cast<size_t>(worker_)];
    const measure::SourceWindow counts = current_.limit_counts();
    mine.let_through = counts.let_through;
    mine.limited = counts.limited;
    mine.other = counts.other;
    mine.headers = limit_headers_;
  }
  mailbox_.post(worker_, current_);  // a swap: current_ is now a cleared window
  ++window_index_;
}

void WindowRecorder::finish(int64_t drain_started_ns, int64_t in_flight, int64_t queued) {
  const int64_t end_ns = std::max(last_end_ns_, drain_started_ns);
  const int64_t window_start_ns = start_ns_ + window_index_ * spec_.window_ns;
  const bool empty = current_.ended() == 0 && current_.intended == 0 && current_.bytes_in == 0 &&
                     current_.bytes_out == 0 && current_.connects == 0;
  // A last window that holds nothing and starts after the end adds only an empty row.
  if (!(empty && end_ns <= window_start_ns)) {
    flush(std::max(end_ns, window_start_ns), in_flight, queued);
  }
  mailbox_.post_done(worker_, window_index_ - 1, end_ns - start_ns_, measured_span(),
                     measured_total_, warmup_total_, measured_named_, warmup_named_);
}

measure::MeasuredSpan WindowRecorder::measured_span() const {
  const int64_t measured_start_ns = start_ns_ + spec_.warmup_ns;
  measure::MeasuredSpan span;
  span.counts = span_;
  span.duration_ns = std::max<int64_t>(0, span_end_ns_ - measured_start_ns);
  if (span_.responses == 0 && after_span_.responses > 0) {
    // Every request started at once (-n no more than -c): no response could end inside the
    // schedule, so the span runs to the last response instead.
    span.counts.merge(after_span_);
    span.duration_ns = std::max<int64_t>(0, last_end_ns_ - measured_start_ns);
    span.extended_to_last_response = true;
  }
  return span;
}

void WindowRecorder::count_skipped_arrivals(int64_t skipped, int64_t in_warmup) {
  current_.intended += skipped;
  current_.arrivals += skipped;
  warmup_total_.intended += in_warmup;
  warmup_total_.arrivals += in_warmup;
  measured_total_.intended += skipped - in_warmup;
  measured_total_.arrivals += skipped - in_warmup;
}

void WindowRecorder::count_never_started(int64_t total, int64_t in_warmup) {
  constexpr int kNever = static_cast<int>(Outcome::kNeverStarted);
  if (total == never_started_seen_) return;
  last_end_ns_ = worker_now();
  current_.outcomes[kNever] += total - never_started_seen_;
  warmup_total_.outcomes[kNever] += in_warmup - never_started_in_warmup_seen_;
  measured_total_.outcomes[kNever] +=
      (total - in_warmup) - (never_started_seen_ - never_started_in_warmup_seen_);
  never_started_seen_ = total;
  never_started_in_warmup_seen_ = in_warmup;
}

void WindowRecorder::count_response(int status, Outcome outcome, const ResponseTimes& times,
                                    int request, StreamBody* stream) {
  const int64_t now = times.end_ns;
  // The window it ended in (streamed per second) and the part of the run it was intended in
  // (warm-up or measured: what the summary reports).
  for (measure::WindowStats* stats : {&current_, &part_of(times.intended_ns)}) {
    stats->add_status(status);
    ++stats->outcomes[static_cast<int>(outcome)];
    stats->latency_us.record(micros_of(now - times.intended_ns));
    stats->service_us.record(micros_of(now - times.write_start_ns));
    stats->ttfb_us.record(micros_of(times.first_byte_ns - times.write_start_ns));
    stats->send_lag_us.record(micros_of(times.write_start_ns - times.intended_ns));
  }
  measure::SpanCounts* span = span_part(now);
  if (stream != nullptr) {
    measure::SpanStreams* named_span =
        named_ && span == &span_ ? &measured_named_.requests[request].span_streams : nullptr;
    stream->complete(now, span != nullptr ? &span->streams : nullptr, named_span);
  }
  count_named(request, times.intended_ns, outcome, now, true);
  if (span != nullptr) {
    ++span->responses;  // a complete response, whatever its outcome
    if (outcome == Outcome::kSuccess) ++span->successes;
    if (named_ && span == &span_) {
      measure::RequestStats& named = measured_named_.requests[request];
      ++named.span_responses;
      if (outcome == Outcome::kSuccess) ++named.span_successes;
    }
  }
  last_end_ns_ = now;
}

std::array<measure::StreamWindow*, 3> WindowRecorder::stream_windows(int request,
                                                                     int64_t intended_ns) {
  measure::StreamWindow* named = nullptr;
  if (named_) {
    std::optional<measure::StreamWindow>& streams =
        named_part_of(intended_ns).requests[request].streams;
    if (!streams) streams.emplace();  // once per streamed request and part of the run
    named = &*streams;
  }
  return {&current_.streams, &part_of(intended_ns).streams, named};
}

void WindowRecorder::count_iteration_end(int flow, bool succeeded, int64_t started_ns,
                                         int64_t now) {
  if (measure::SpanCounts* span = span_part(now)) {
    ++span->iterations;
    if (succeeded) ++span->iterations_succeeded;
    if (flow >= 0) {
      ++span->flows;
      if (succeeded) ++span->flows_succeeded;
    }
  }
  if (!named_ || flow < 0) return;
  measure::FlowStats& stats = named_part_of(started_ns).flows[flow];
  if (succeeded) {
    ++stats.succeeded;
    stats.duration_us.record(micros_of(now - started_ns));
  } else {
    ++stats.failed;
  }
}

void WindowRecorder::count_source_answer(int status, std::string_view header_lines) {
  if (spec_.watch_limit_headers) measure::note_limit_headers(header_lines, limit_headers_);
  if (saw_429_) return;
  if (status >= 200 && status < 300) ++let_through_so_far_;
  if (status == 429) {
    saw_429_ = true;
    current_.sources[static_cast<size_t>(worker_)].let_through_before_first_429 =
        let_through_so_far_;
  }
}

}  // namespace proofload::engine
