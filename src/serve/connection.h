// One connection of the built-in server: its parser state, what was captured of the request
// being parsed, and its queue of reply parts; and the ReplyBuilder that fills that queue.
// Internal to src/serve; owned by one server Worker thread.
#pragma once

#include <llhttp.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "serve/handler.h"
#include "serve/worker.h"

namespace proofload::serve {

// Reply parts queued but not yet written, per connection. Parsing pauses while there is no room
// for one more whole reply (ReplyBuilder::kMaxReplyParts), and reading with it, so a client
// that pipelines without reading cannot grow memory.
constexpr uint32_t kMaxQueuedReplies = 64;
static_assert(kMaxQueuedReplies > ReplyBuilder::kMaxReplyParts);

struct QueuedReply {
  int64_t due_ns = 0;         // when it may be written (read time + delay; a stream: its next part)
  std::string_view prepared;  // bytes owned by the handler, or
  std::string built;          // bytes made for this request (capacity reused across requests)
  bool uses_built = false;
  bool close_after = false;  // close once written (a stream: once its last part is)
  bool abort = false;        // reset the connection when due, sending nothing
  // A stream stays at its place in the queue until its last part is written; `built` holds
  // the batch of parts being written ([next_part, next_part + batched_parts)), or nothing.
  const ReplyStream* stream = nullptr;
  int64_t stream_start_ns = 0;  // part i is due at stream_start_ns + part_offset_ns(i)
  int64_t next_part = 0;        // the first part not yet written whole
  int64_t batched_parts = 0;    // parts in `built`; 0: the next batch is not made yet
  std::string_view bytes() const { return uses_built ? std::string_view(built) : prepared; }
};

struct Connection {
  int fd = -1;
  SSL* ssl = nullptr;        // TLS over fd (serve --tls-*); null: plain
  bool handshaking = false;  // TLS: the handshake is not done yet
  uint32_t slot = 0;
  uint32_t generation = 0;   // bumped on close, so stale events and timers are recognised
  uint32_t interest = 0;     // epoll events currently registered
  bool read_closed = false;  // no further requests: close asked, error, EOF or shutdown
  bool write_blocked = false;
  bool lingering = false;
  Worker* worker = nullptr;

  llhttp_t parser;
  RequestHead request;
  sockaddr_storage peer{};
  // What the handler may look at, captured while parsing (capacity reused across requests).
  std::string target;
  std::string headers;    // "name:value\n", names lower-cased
  std::string body;       // up to kMaxCapturedBodyBytes
  int64_t read_ns = 0;    // when the bytes being parsed were read from the socket
  int64_t active_ns = 0;  // the last accept, read or reply written: idle time counts from it
  int64_t header_bytes = 0;
  bool in_request = false;       // a request has begun and is not complete
  int64_t request_began_ns = 0;  // when its first bytes were read
  int64_t body_bytes = 0;
  bool header_too_large = false;
  bool body_too_large = false;

  std::array<QueuedReply, kMaxQueuedReplies> replies;
  uint32_t replies_head = 0;
  uint32_t replies_size = 0;
  uint32_t head_written = 0;  // bytes of the first queued reply already sent

  std::vector<char> held_input;  // unparsed bytes behind a full reply queue
  size_t held_offset = 0;

  bool replies_full() const {
    return replies_size + ReplyBuilder::kMaxReplyParts > kMaxQueuedReplies;
  }
  bool has_held_input() const { return held_offset < held_input.size(); }
};

// Appends parts to the connection's reply queue (room for kMaxReplyParts is guaranteed: the
// parser only runs while there is).
class ConnectionReplyBuilder : public ReplyBuilder {
 public:
  ConnectionReplyBuilder(Worker& worker, Connection& c) : worker_(worker), c_(c) {}

  void send(std::string_view prepared, int64_t delay_ns) override {
    QueuedReply& r = next(delay_ns);
    r.prepared = prepared;
  }
  std::string& send_built(int64_t delay_ns) override {
    QueuedReply& r = next(delay_ns);
    r.uses_built = true;
    return r.built;
  }
  void stream(const ReplyStream& stream, int64_t delay_ns) override {
    if (stream.part_count() <= 0) return;
    QueuedReply& r = next(delay_ns + stream.part_offset_ns(0));
    r.uses_built = true;
    r.stream = &stream;
    r.stream_start_ns = c_.read_ns + delay_ns;
  }
  void close_after() override {
    if (c_.replies_size > 0) last().close_after = true;
    c_.read_closed = true;
  }
  void abort(int64_t delay_ns) override {
    next(delay_ns).abort = true;
    c_.read_closed = true;
  }

 private:
  QueuedReply& last() {
    return c_.replies[(c_.replies_head + c_.replies_size - 1) % kMaxQueuedReplies];
  }
  QueuedReply& next(int64_t delay_ns) {
    if (c_.replies_size == kMaxQueuedReplies) {
      throw std::logic_error("a handler sent more than ReplyBuilder::kMaxReplyParts parts");
    }
    // Parts go out in order: a part is never due before the one ahead of it.
    int64_t due_ns = c_.read_ns + delay_ns;
    if (c_.replies_size > 0) due_ns = std::max(due_ns, last().due_ns);
    ++c_.replies_size;
    QueuedReply& r = last();
    r.due_ns = due_ns;
    r.prepared = {};
    r.built.clear();
    r.uses_built = r.close_after = r.abort = false;
    r.stream = nullptr;
    r.next_part = r.batched_parts = 0;
    if (delay_ns > 0) worker_.timers_.push(due_ns, Worker::token(Worker::Kind::kConnection, c_));
    return r;
  }

  Worker& worker_;
  Connection& c_;
};

}  // namespace proofload::serve
