// What the streamed responses that ended in one window did (the streaming issue): how each
// ended, and, of those that completed as configured (and matched their fixture when one is
// checked), their events, bytes and tokens and their times. The gaps between content events are
// recorded as they come, of every stream. Times are microseconds from the request's intended
// start, as latency's are (so open-loop figures are free of coordinated omission); the time per
// output token is from the first content event to the last, per token after the first.
// Owned by one thread at a time, like WindowStats.
#pragma once

#include <cstdint>

#include "measure/hdr_histogram.h"

namespace proofload::measure {

struct StreamWindow {
  // How the streams ended.
  int64_t completed = 0;         // as configured: the terminator, or the body's end without one
  int64_t cut_short = 0;         // the body or the connection ended first
  int64_t idle_timeout = 0;      // no byte for the stream idle timeout
  int64_t malformed = 0;         // not an event stream (a line past the parser's bound)
  int64_t fixture_mismatch = 0;  // complete, but not the fixture's bytes
  // Of the completed streams.
  int64_t events = 0;
  int64_t content_events = 0;
  int64_t bytes = 0;   // body bytes
  int64_t tokens = 0;  // reported by the server, or one per content event
  int64_t goodput = 0;  // of them, those that met the per-stream SLO (`--goodput`), when given
  HdrHistogram ttfb_us;      // to the first body byte
  HdrHistogram ttfe_us;      // to the first event
  HdrHistogram ttfce_us;     // to the first content event (time to first token)
  HdrHistogram tpot_us;      // time per output token after the first
  HdrHistogram duration_us;  // to the stream's end
  // Of every stream: the gap before each content event after the first (inter-token latency).
  HdrHistogram inter_event_us;

  int64_t ended() const {
    return completed + cut_short + idle_timeout + malformed + fixture_mismatch;
  }
  void merge(const StreamWindow& other);
  void clear();  // keeps histogram storage
};

}  // namespace proofload::measure
