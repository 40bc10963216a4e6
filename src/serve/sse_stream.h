// The body of an `sse` route as a ReplyStream: `events` events spread evenly over `over_ns`,
// then a terminator event, each made when it falls due. Every event of a route has the size its
// spec gives (or its natural size, if larger), so the body's length is known before the first
// byte and sent as Content-Length. Immutable after construction; shared by every thread.
#pragma once

#include <cstdint>
#include <string>

#include "serve/handler.h"
#include "serve/routes/route_config.h"

namespace proofload::serve {

class SseStream : public ReplyStream {
 public:
  explicit SseStream(const SseSpec& spec);

  // Parts: the events 0..events-1, then the terminator.
  int64_t part_count() const override { return events_ + 1; }
  // Event i at over * (i + 1) / (events + 1); the terminator at `over`.
  int64_t part_offset_ns(int64_t index) const override;
  // "event: tokens\ndata: {"i":I,"tokens":T,"text":"xx..."}\n\n", or the terminator
  // "event: done\ndata: [DONE]\n\n".
  void append_part(int64_t index, std::string& out) const override;

  // The sum of every part's size, without making them: O(digits of events).
  int64_t body_bytes() const { return body_bytes_; }

 private:
  // The size of event i's data: its fields, padded with 'x' to event_bytes when shorter.
  int64_t data_bytes(int64_t digits_of_index) const;

  int64_t events_;
  int64_t over_ns_;
  int64_t event_bytes_;
  std::string tokens_;  // tokens per event, in decimal
  int64_t body_bytes_;
};

}  // namespace proofload::serve
