// One streamed response measured event by event (the streaming issue): its body's bytes go
// through the event-stream parser as they arrive (http/sse_parser.h), and each event is
// classified: a *content* event is one whose `content` JSON pointer names a non-empty string (or,
// without a pointer, any event with data), the terminator (data "[DONE]" by default) ends the
// stream, and a `tokens` pointer names a count the server reports (the last one seen wins, as a
// final `usage.completion_tokens`); without it each content event is one token. A `fixture`
// compares the received bytes with a file's, byte for byte, as they arrive.
//
// The tracker reads no clock: the caller passes each piece's arrival time and the stream's origin
// (the request's intended start, as latency has it), so the figures are coordinated-omission safe
// in open loop and exact in simulated time. Memory per stream is bounded by the parser's limits
// whatever the stream's length. One per connection, reused stream after stream; not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "http/sse_parser.h"
#include "workload/json_body.h"

namespace proofload::workload {

// How a request's stream is read, compiled once from the scenario (shared by the connections).
struct StreamRules {
  std::optional<JsonPointer> content;  // which events carry content; none: any event with data
  std::optional<JsonPointer> tokens;   // a count the server reports; none: a token per content
  std::string terminator = "[DONE]";   // the data of the event that ends it; "": the body's end
  std::shared_ptr<const std::string> fixture;  // the exact bytes expected, when checked
  http::SseLimits limits;
};

// How the stream ended, as the run counts it.
enum class StreamEnd {
  kCompleted,        // ended as configured (the terminator, or the body's end without one)
  kCutShort,         // the body ended (or the peer closed) before the terminator or mid-event
  kMalformed,        // a line past the parser's bound: not an event stream
  kFixtureMismatch,  // a byte differed from the fixture's (or there were more or fewer)
};

// One stream's figures, ns from the origin the caller gave (nullopt: it never came).
struct StreamFigures {
  std::optional<int64_t> first_byte_ns, first_event_ns, first_content_ns, last_content_ns;
  int64_t events = 0, content_events = 0, bytes = 0;
  int64_t tokens = 0;           // reported by the `tokens` pointer, else content events
  bool tokens_reported = false;  // the count came from the server
  bool terminated = false;       // the terminator came
  // Time per output token after the first: (last content − first content) / (tokens − 1);
  // nullopt under two tokens.
  std::optional<double> tpot_ns() const;
};

// Receives the gap before each content event after the first (inter-event latency), as it comes.
class StreamGapSink {
 public:
  virtual void on_content_gap(int64_t gap_ns) = 0;

 protected:
  ~StreamGapSink() = default;
};

class StreamTracker : private http::SseSink {
 public:
  // `rules` must outlive the tracker's streams.
  explicit StreamTracker(const StreamRules& rules);

  // A new stream whose times count from `origin_ns`; gaps go to `gaps` (may be null).
  void start(int64_t origin_ns, StreamGapSink* gaps);
  // The next piece of the body (after de-chunking), arrived at `now_ns`.
  void feed(std::string_view bytes, int64_t now_ns);
  // The body ended (its length reached, the last chunk, or the peer's close): how the stream
  // ended. A malformed stream is that first, then one cut short, then a fixture mismatch.
  StreamEnd finish();

  const StreamFigures& figures() const { return figures_; }
  // The terminator came: the caller may stop reading (a server that keeps the stream open after
  // it is not waited for).
  bool terminated() const { return figures_.terminated; }

 private:
  void on_sse_event(const http::SseEvent& event) override;

  const StreamRules& rules_;
  http::SseParser parser_;
  StreamFigures figures_;
  StreamGapSink* gaps_ = nullptr;
  int64_t origin_ns_ = 0;
  int64_t now_ns_ = 0;
  size_t fixture_at_ = 0;  // bytes compared with the fixture so far
  bool fixture_mismatch_ = false;
  bool after_terminator_ = false;  // bytes came after the terminator (ignored, not an error)
};

}  // namespace proofload::workload
