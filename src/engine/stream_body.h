// A streamed request's body on one connection (the streaming issue): the response parser hands
// it each body piece as it is parsed (http::BodySink), the read's time is set before, and the
// stream's tracker (workload/stream_tracker.h) reads its events; the gaps between content events
// go into the window's and the run part's histograms as they come. At the end the stream's figures
// are recorded with record_stream. One per connection, reused request after request.
#pragma once

#include <cstdint>
#include <string_view>

#include "http/response_parser.h"
#include "measure/stream_window.h"
#include "workload/stream_tracker.h"

namespace proofload::engine {

class StreamBody final : public http::BodySink, private workload::StreamGapSink {
 public:
  explicit StreamBody(const workload::StreamRules& rules) : tracker_(rules) {}

  // A new stream timed from `origin_ns` (the request's intended start); its gaps go to both
  // windows (the current window, and the warm-up's or measured part's totals).
  void begin(int64_t origin_ns, measure::StreamWindow* window, measure::StreamWindow* part) {
    tracker_.start(origin_ns, this);
    window_ = window;
    part_ = part;
    now_ns_ = origin_ns;
  }
  // The time the next pieces arrived (the read's).
  void set_now(int64_t now_ns) { now_ns_ = now_ns; }
  void on_body_piece(std::string_view piece) override { tracker_.feed(piece, now_ns_); }

  workload::StreamTracker& tracker() { return tracker_; }

 private:
  void on_content_gap(int64_t gap_ns) override {
    for (measure::StreamWindow* w : {window_, part_}) {
      if (w != nullptr) w->inter_event_us.record(gap_ns / 1000);
    }
  }

  workload::StreamTracker tracker_;
  measure::StreamWindow* window_ = nullptr;
  measure::StreamWindow* part_ = nullptr;
  int64_t now_ns_ = 0;
};

// One stream's end into `w`: its kind counted; a completed stream's events, bytes, tokens and
// times (`end_ns` - the origin is its duration) recorded.
void record_stream(measure::StreamWindow& w, workload::StreamEnd end,
                   const workload::StreamFigures& f, int64_t duration_ns);

}  // namespace proofload::engine
