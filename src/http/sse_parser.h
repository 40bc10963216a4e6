// Server-Sent Events framing (the WHATWG HTML standard's "event stream" format), parsed as the
// bytes of a response body arrive, in pieces of any size: lines end with CRLF, LF or CR (a CRLF
// split between two pieces is one line end); a UTF-8 byte order mark at the very start is
// skipped; `data:` lines are joined with LF; `event:` names the event's type ("message" when
// none); `id:` sets the last event ID (one with a NUL is ignored); `retry:` with digits only sets
// the reconnection time; a line starting with ':' is a comment; a field without a colon has an
// empty value; one space after the colon is dropped; an unknown field is ignored; a blank line
// dispatches the event, unless no data line came since the last one; an event the stream ends
// in the middle of is discarded.
//
// Memory is bounded whatever the server sends: a line longer than max_line_bytes is dropped and
// makes the stream malformed (the parser goes on at the next line), and an event's data past
// max_data_bytes is cut and the event flagged. The buffers are kept between streams, so a
// connection parsing stream after stream allocates nothing once they have grown.
//
// Written here: no Debian package parses this format incrementally in C or C++, and the engine's
// read path calls it for every body piece of every stream. Not thread-safe: one per connection.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace proofload::http {

struct SseLimits {
  size_t max_line_bytes = size_t{1} << 20;
  size_t max_data_bytes = size_t{1} << 20;
};

// One dispatched event; the views are valid until the next call of the parser.
struct SseEvent {
  std::string_view type;     // "message" unless an `event:` line named another
  std::string_view data;     // its data lines joined by LF, without a final LF
  std::string_view last_id;  // the last event ID so far ("" when none was set)
  bool data_truncated = false;  // its data ran past max_data_bytes: the rest was dropped
};

// Receives each event as it is dispatched.
class SseSink {
 public:
  virtual void on_sse_event(const SseEvent& event) = 0;

 protected:
  ~SseSink() = default;
};

class SseParser {
 public:
  explicit SseParser(SseLimits limits = {});

  // A new stream: every state but the buffers' capacity is cleared.
  void reset();
  // Parses `bytes`, the next piece of the body, calling `sink` for each event it completes.
  void feed(std::string_view bytes, SseSink& sink);
  // The body ended. An event with no blank line after it is discarded, as the standard says;
  // returns whether one was (a stream cut in the middle of an event).
  bool finish();

  int64_t events() const { return events_; }
  int64_t comments() const { return comments_; }
  std::optional<int64_t> retry_ms() const { return retry_ms_; }
  // A line ran past max_line_bytes (and was dropped): the stream is not well framed.
  bool malformed() const { return malformed_; }

 private:
  void take(std::string_view bytes, SseSink& sink);  // after the BOM check
  void end_line(SseSink& sink);
  void field(std::string_view name, std::string_view value);
  void dispatch(SseSink& sink);

  SseLimits limits_;
  std::string line_;     // the line in progress
  bool line_too_long_ = false;
  bool after_cr_ = false;  // the last byte was a CR: an LF next is the same line end
  int bom_matched_ = 0;    // bytes of a leading BOM seen so far; -1 once past the start
  std::string data_;       // the event's data lines, each followed by LF
  bool data_truncated_ = false;
  std::string type_;
  std::string last_id_;
  int64_t events_ = 0;
  int64_t comments_ = 0;
  std::optional<int64_t> retry_ms_;
  bool malformed_ = false;
};

}  // namespace proofload::http
