// One streamed response measured event by event (the streaming issue): its body's bytes go
// through the event-stream parser as they arrive (http/sse_parser.h), and each event is
// classified: a *content* event is one whose `content` JSON pointer names a non-empty string (or,
// without a pointer, any event with data), the terminator (data "[DONE]" by default) ends the
// stream, and a `tokens` pointer names a count the server reports (the last one seen wins, as a
// final `usage.completion_tokens`); without it each content event is one token. A `fixture`
// compares the received bytes with a file's, byte for byte, as they arrive.
//
// A `chunked` stream has no event framing: each chunk of the chunked body is an event (its bytes
// the event's data), and the last chunk ends it.
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
#include "workload/scenario.h"
#include "workload/json_body.h"
#include "workload/pattern.h"

namespace proofload::workload {

enum class StreamKind {
  kSse,      // server-sent events (text/event-stream framing)
  kChunked,  // a chunked body: each chunk an event
};


// How a request's stream is read, compiled once (shared by the connections).
struct StreamRules {
  StreamKind kind = StreamKind::kSse;
  std::optional<JsonPointer> content;  // which events carry content; none: any event with data
  // Or: content events are those whose data matches this (RE2, anywhere: linear in the data).
  std::optional<Pattern> content_pattern;
  std::optional<JsonPointer> tokens;  // a count the server reports; none: a token per content
  std::string terminator = "[DONE]";  // sse: the data of the event that ends it; "": body's end
  std::shared_ptr<const std::string> fixture;  // the exact bytes expected, when checked
};

// The spec compiled: `content` starting with '/' is a JSON pointer, anything else a regular
// expression. A bad kind, pointer or pattern: UsageError "WHAT: ..." (one line).
StreamRules compile_stream_rules(const StreamSpec& spec, const std::string& what);

// How the stream ended, as the run counts it.
enum class StreamEnd {
  kCompleted,        // ended as configured (the terminator, or the body's end without one)
  kCutShort,         // the body ended (or the peer closed) before the terminator or mid-event
  kMalformed,        // a line past the parser's bound, or a token count no stream can have
  kFixtureMismatch,  // a byte differed from the fixture's (or there were more or fewer)
  kIdleTimeout,      // no byte came for the stream idle timeout (the engine's, never finish's)
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
  explicit StreamTracker(http::SseLimits limits = {});

  // A new stream read by `rules` (which must outlive it), its times counted from `origin_ns`;
  // gaps go to `gaps` (may be null).
  void start(const StreamRules& rules, int64_t origin_ns, StreamGapSink* gaps);
  // The next piece of the body (after de-chunking), arrived at `now_ns`.
  void feed(std::string_view bytes, int64_t now_ns);
  // A chunk of a chunked body ended (a `chunked` stream's event boundary).
  void end_chunk();
  // The body ended (its length reached, the last chunk, or the peer's close): how the stream
  // ended. A malformed stream is that first, then one cut short, then a fixture mismatch.
  StreamEnd finish();

  const StreamFigures& figures() const { return figures_; }
  // The terminator came: the caller may stop reading (a server that keeps the stream open after
  // it is not waited for).
  bool terminated() const { return figures_.terminated; }

 private:
  void on_sse_event(const http::SseEvent& event) override;
  // One event's data, whatever the framing: classified, counted, timed.
  void on_event_data(std::string_view data);

  const StreamRules* rules_ = nullptr;
  http::SseLimits limits_;
  http::SseParser parser_;
  std::string chunk_;        // a chunked stream's chunk so far (bounded by max_data_bytes)
  int64_t chunk_bytes_ = 0;  // its length, kept or not
  StreamFigures figures_;
  StreamGapSink* gaps_ = nullptr;
  int64_t origin_ns_ = 0;
  int64_t now_ns_ = 0;
  size_t fixture_at_ = 0;  // bytes compared with the fixture so far
  bool fixture_mismatch_ = false;
  bool after_terminator_ = false;  // bytes came after the terminator (ignored, not an error)
  bool bad_token_count_ = false;   // the server reported a count no stream can have
};

// The most tokens a stream's reported count may hold: above (1e300, 2^63), the count is the
// server's mistake, and the stream is malformed rather than arithmetic on it.
inline constexpr double kMaxStreamTokens = 1e12;
// The deepest nesting an event's JSON is read at: past it (a nesting bomb, a megabyte of `[`) the
// event is not read as JSON, so reading it costs no memory beyond its bytes.
inline constexpr int kMaxEventJsonDepth = 64;

}  // namespace proofload::workload
