// A streamed request's body on one connection (the streaming issue): the response parser hands
// it each body piece as it is parsed (http::BodySink), and each chunk's end; the read's time is
// set before, and the stream's tracker (workload/stream_tracker.h) reads its events. The gaps
// between content events go into the windows' histograms as they come (and into the stream's
// tally for a --goodput SLO); at its end the stream is recorded whole: how it ended and, when
// completed, its figures and whether it met the SLO. One per connection, reused request after
// request (each request may have its own rules: a scenario's requests).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "http/response_parser.h"
#include "measure/span_counts.h"
#include "measure/stream_window.h"
#include "workload/stream_slo.h"
#include "workload/stream_tracker.h"

namespace proofload::engine {

class StreamBody final : public http::BodySink, private workload::StreamGapSink {
 public:
  // `goodput` (may be null) must outlive this.
  explicit StreamBody(const workload::StreamSlo* goodput) : goodput_(goodput) {}

  // A new stream read by `rules` (which must outlive it), timed from `origin_ns` (the request's
  // intended start). It is recorded into the windows given (null ones skipped): the current
  // window, the run part's totals (warm-up or measured), the named request's totals.
  void begin(const workload::StreamRules& rules, int64_t origin_ns,
             std::array<measure::StreamWindow*, 3> windows);
  // Between begin and end: the request in flight is a stream.
  bool active() const { return active_; }
  // The time of the read whose bytes are parsed next (HTTP/2: of every stream on the link).
  void set_now(int64_t now_ns) { now_ns_ = now_ns; }
  // When its last body bytes came (the stream's idle timer runs from it once it has begun).
  int64_t last_read_ns() const { return last_read_ns_; }
  bool begun() const { return tracker_.figures().first_byte_ns.has_value(); }

  void on_body_piece(std::string_view piece) override {
    last_read_ns_ = now_ns_;
    tracker_.feed(piece, now_ns_);
  }
  void on_chunk_end() override { tracker_.end_chunk(); }

  // The response ended whole: how the stream ended, recorded; a completed stream also into the
  // measured span's counts given (null: it ended outside the span), the run's and its request's.
  void complete(int64_t now_ns, measure::SpanStreams* span, measure::SpanStreams* named_span) {
    if (active_) end(tracker_.finish(), now_ns, span, named_span);
  }
  // The request failed (a reset, a timeout, a bad response: cut short) or went idle.
  void end(workload::StreamEnd how, int64_t now_ns, measure::SpanStreams* span = nullptr,
           measure::SpanStreams* named_span = nullptr);

 private:
  void on_content_gap(int64_t gap_ns) override;

  const workload::StreamSlo* goodput_;
  workload::StreamTracker tracker_;
  workload::GapTally tally_;
  std::array<measure::StreamWindow*, 3> windows_{};
  int64_t origin_ns_ = 0;
  int64_t now_ns_ = 0;
  int64_t last_read_ns_ = 0;
  bool active_ = false;
};

// One stream's end into `w`: its kind counted; a completed stream's events, bytes, tokens and
// times (`duration_ns` from the origin) recorded, and whether it met the SLO.
void record_stream(measure::StreamWindow& w, workload::StreamEnd end,
                   const workload::StreamFigures& f, int64_t duration_ns, bool met_slo);

}  // namespace proofload::engine
