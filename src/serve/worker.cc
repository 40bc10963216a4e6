// One server thread's event loop and connections; see worker.h. Steady state allocates nothing:
// connections are reused slots, replies point at prepared responses, stream parts are made into
// the reply's reused buffer, and the timer heap and held-input buffers keep their capacity.
#include "serve/worker.h"

#include <errno.h>
#include <llhttp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "common/clock.h"
#include "serve/connection.h"
#include "serve/connection_io.h"
#include "serve/server.h"

namespace proofload::serve {

namespace {

// How long a closing connection may keep sending before we stop reading it; reading until the
// peer's FIN keeps the kernel from answering late bytes with a reset that could destroy the
// final response (e.g. a 431) before the client read it.
constexpr int64_t kLingerNs = 1 * kNsPerS;
constexpr uint64_t kSlotMask = 0xFFFF'FFFF;
constexpr uint64_t kGenerationMask = 0x3FFF'FFFF;
// Bytes of a stream's parts made ahead and written with one sendmsg, when several are due.
constexpr size_t kStreamBatchBytes = 64 * 1024;

}  // namespace

// llhttp's callbacks: count header and body bytes against the limits, and hand each complete
// request to the handler step.
struct ParserHooks {
  static Connection& conn(llhttp_t* p) { return *static_cast<Connection*>(p->data); }
  static const ServerOptions& options(llhttp_t* p) { return conn(p).worker->options_; }

  static int on_message_begin(llhttp_t* p) {
    Connection& c = conn(p);
    c.request = RequestHead{};
    c.header_bytes = 0;
    c.body_bytes = 0;
    c.target.clear();
    c.headers.clear();
    c.body.clear();
    c.in_request = true;
    c.request_began_ns = c.read_ns;
    return 0;
  }
  static int count_header(llhttp_t* p, size_t length) {
    Connection& c = conn(p);
    c.header_bytes += static_cast<int64_t>(length);
    if (c.header_bytes > options(p).max_header_bytes) {
      c.header_too_large = true;
      return -1;
    }
    return 0;
  }
  static int on_span(llhttp_t* p, const char*, size_t length) { return count_header(p, length); }
  static int on_url(llhttp_t* p, const char* at, size_t length) {
    conn(p).target.append(at, length);
    return count_header(p, length);
  }
  static int on_header_field(llhttp_t* p, const char* at, size_t length) {
    std::string& headers = conn(p).headers;
    for (size_t i = 0; i < length; ++i) {
      char ch = at[i];
      headers.push_back(ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch - 'A' + 'a') : ch);
    }
    return count_header(p, length);
  }
  static int on_header_field_complete(llhttp_t* p) {
    conn(p).headers.push_back(':');
    return 0;
  }
  static int on_header_value(llhttp_t* p, const char* at, size_t length) {
    conn(p).headers.append(at, length);
    return count_header(p, length);
  }
  // The separators and line ends the spans leave out.
  static int on_header_value_complete(llhttp_t* p) {
    conn(p).headers.push_back('\n');
    return count_header(p, 4);
  }
  static int on_headers_complete(llhttp_t* p) {
    Connection& c = conn(p);
    c.request.is_head = p->method == HTTP_HEAD;
    c.request.http_1_0 = p->http_major == 1 && p->http_minor == 0;
    if ((p->flags & F_CONTENT_LENGTH) &&
        p->content_length > static_cast<uint64_t>(options(p).max_body_bytes)) {
      c.body_too_large = true;
      return -1;
    }
    return 0;
  }
  static int on_body(llhttp_t* p, const char* at, size_t length) {
    Connection& c = conn(p);
    if (c.body.size() < kMaxCapturedBodyBytes) {
      c.body.append(at, std::min(length, kMaxCapturedBodyBytes - c.body.size()));
    }
    c.body_bytes += static_cast<int64_t>(length);
    if (c.body_bytes > options(p).max_body_bytes) {
      c.body_too_large = true;
      return -1;
    }
    return 0;
  }
  static int on_message_complete(llhttp_t* p) {
    Connection& c = conn(p);
    c.in_request = false;
    c.request.keep_alive = llhttp_should_keep_alive(p) != 0;
    c.request.method = llhttp_method_name(static_cast<llhttp_method_t>(p->method));
    c.request.target = c.target;
    c.request.headers = c.headers;
    c.request.body = c.body;
    c.request.peer = &c.peer;
    c.worker->on_request(c);
    // Stop at a request that closes the connection (what follows is ignored) or when the
    // reply queue is full (what follows is held until it drains).
    return c.read_closed || c.replies_full() ? HPE_PAUSED : 0;
  }

  static const llhttp_settings_t& settings() {
    static const llhttp_settings_t kSettings = [] {
      llhttp_settings_t s;
      llhttp_settings_init(&s);
      s.on_message_begin = on_message_begin;
      s.on_method = on_span;
      s.on_url = on_url;
      s.on_version = on_span;
      s.on_header_field = on_header_field;
      s.on_header_field_complete = on_header_field_complete;
      s.on_header_value = on_header_value;
      s.on_header_value_complete = on_header_value_complete;
      s.on_headers_complete = on_headers_complete;
      s.on_body = on_body;
      s.on_message_complete = on_message_complete;
      return s;
    }();
    return kSettings;
  }
};

Worker::Worker(const WorkerConfig& config)
    : options_(*config.options),
      handler_(*config.handler),
      thread_index_(config.thread_index),
      listen_fd_(config.listen_fd),
      stop_fd_(config.stop_fd),
      stopping_(*config.stopping),
      stalls_(config.stalls),
      tls_(config.tls),
      max_connections_(config.max_connections),
      timers_(16 * 1024) {
  free_slots_.reserve(static_cast<size_t>(max_connections_));
}

Worker::~Worker() {
  for (auto& c : slots_) {
    end_tls(*c);
    if (c->fd >= 0) close(c->fd);
  }
  if (listen_fd_ >= 0) close(listen_fd_);
}

uint64_t Worker::token(Kind kind, const Connection& c) {
  return (static_cast<uint64_t>(kind) << 62) | ((c.generation & kGenerationMask) << 32) | c.slot;
}

Connection* Worker::connection_for(uint64_t t) {
  uint64_t slot = t & kSlotMask;
  if (slot >= slots_.size()) return nullptr;
  Connection* c = slots_[slot].get();
  if (c->fd < 0 || (c->generation & kGenerationMask) != ((t >> 32) & kGenerationMask)) {
    return nullptr;
  }
  return c;
}

void Worker::run() {
  net::use_precise_timers_on_this_thread();
  loop_.add(listen_fd_, EPOLLIN, static_cast<uint64_t>(Kind::kListen) << 62);
  loop_.add(stop_fd_, EPOLLIN, static_cast<uint64_t>(Kind::kStop) << 62);
  next_sweep_ns_ = monotonic_ns() + sweep_interval_ns();
  while (true) {
    int64_t deadline_ns = std::min(timers_.next_deadline(), next_sweep_ns_);
    if (draining_) deadline_ns = std::min(deadline_ns, drain_deadline_ns_);
    std::span<const epoll_event> events = loop_.wait(deadline_ns);
    int64_t now_ns = wait_out_stall(monotonic_ns());
    for (const epoll_event& e : events) {
      auto kind = static_cast<Kind>(e.data.u64 >> 62);
      if (kind == Kind::kListen) {
        if (!draining_) accept_connections();
      } else if (kind == Kind::kStop) {
        if (!draining_) begin_drain(now_ns);
      } else if (Connection* c = connection_for(e.data.u64)) {
        on_connection_event(*c, e.events, now_ns);
      }
    }
    while (!timers_.empty() && timers_.next_deadline() <= now_ns) {
      net::TimerHeap::Timer timer = timers_.pop();
      Connection* c = connection_for(timer.token);
      if (c == nullptr) continue;
      if (static_cast<Kind>(timer.token >> 62) == Kind::kLinger) {
        if (c->lingering) close_connection(*c);
      } else {
        service(*c, now_ns);
      }
    }
    if (now_ns >= next_sweep_ns_) sweep_connections(now_ns);
    if (draining_ && (open_connections_ == 0 || now_ns >= drain_deadline_ns_)) break;
  }
  for (auto& c : slots_) {
    if (c->fd >= 0) close_connection(*c);
  }
}

int64_t Worker::wait_out_stall(int64_t now_ns) {
  // Stalls end when shutdown begins: a graceful stop should not wait out a long pause.
  int64_t end_ns = stalls_.stall_end_ns(now_ns);
  while (end_ns != 0 && now_ns < end_ns && !stopping_.load(std::memory_order_relaxed)) {
    int64_t remaining_ns = end_ns - now_ns;
    timespec timeout{static_cast<time_t>(remaining_ns / kNsPerS),
                     static_cast<long>(remaining_ns % kNsPerS)};
    pollfd stop{stop_fd_, POLLIN, 0};
    ppoll(&stop, 1, &timeout, nullptr);  // EINTR or an early wake just loops
    now_ns = monotonic_ns();
  }
  return now_ns;
}

int64_t Worker::sweep_interval_ns() const {
  const int64_t shortest = std::min(options_.request_timeout_ns, options_.idle_timeout_ns);
  return std::clamp<int64_t>(shortest / 4, 10 * kNsPerMs, kNsPerS);
}

// A client that began a request and stopped sending (slowloris) gets 408 and a close; one that
// sends nothing more for the idle timeout is closed (keep-alive ends there, as nginx does it);
// everyone else is served meanwhile, since nothing here blocks.
void Worker::sweep_connections(int64_t now_ns) {
  next_sweep_ns_ = now_ns + sweep_interval_ns();
  for (auto& slot : slots_) {
    Connection& c = *slot;
    if (c.fd < 0 || c.lingering) continue;
    const bool idle = !c.in_request && c.replies_size == 0 && !c.has_held_input();
    if (idle && now_ns - c.active_ns > options_.idle_timeout_ns) {
      close_connection(c);
      continue;
    }
    // While replies are owed, a paused parse is the server's doing, not the client's.
    if (c.read_closed || !c.in_request || c.replies_size > 0) continue;
    if (now_ns - c.request_began_ns <= options_.request_timeout_ns) continue;
    c.in_request = false;
    c.held_input.clear();
    c.held_offset = 0;
    ConnectionReplyBuilder reply(*this, c);
    handler_.reject(RequestError::kRequestTimeout, reply);
    service(c, now_ns);
  }
}

Connection& Worker::take_slot(int fd, const sockaddr_storage& peer) {
  if (free_slots_.empty()) {
    auto c = std::make_unique<Connection>();
    c->slot = static_cast<uint32_t>(slots_.size());
    c->worker = this;
    free_slots_.push_back(c->slot);
    slots_.push_back(std::move(c));
  }
  Connection& c = *slots_[free_slots_.back()];
  free_slots_.pop_back();
  c.fd = fd;
  c.peer = peer;
  c.interest = EPOLLIN;
  c.read_closed = c.write_blocked = c.lingering = false;
  c.header_too_large = c.body_too_large = false;
  c.in_request = false;
  c.replies_head = c.replies_size = c.head_written = 0;
  c.held_input.clear();
  c.held_offset = 0;
  c.active_ns = monotonic_ns();
  llhttp_init(&c.parser, HTTP_REQUEST, &ParserHooks::settings());
  c.parser.data = &c;
  ++open_connections_;
  loop_.add(fd, EPOLLIN, token(Kind::kConnection, c));
  return c;
}

void Worker::on_connection_event(Connection& c, uint32_t events, int64_t now_ns) {
  if (events & (EPOLLERR | EPOLLHUP)) {
    close_connection(c);
    return;
  }
  if (c.handshaking) {
    on_handshake_event(c, now_ns);
    return;
  }
  if (c.lingering) {
    ssize_t n = read_from(c, read_buffer_.data(), read_buffer_.size());
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) close_connection(c);
    return;
  }
  if (events & EPOLLOUT) c.write_blocked = false;
  if (events & EPOLLIN) {
    on_readable(c, now_ns);
  } else {
    service(c, now_ns);
  }
}

void Worker::on_readable(Connection& c, int64_t now_ns) {
  if (c.read_closed || c.replies_full() || c.has_held_input()) {
    service(c, now_ns);  // not reading now: updates the interest so epoll stops reporting it
    return;
  }
  ssize_t n = read_from(c, read_buffer_.data(), read_buffer_.size());
  if (n < 0) {
    if (errno == EAGAIN || errno == EINTR) {
      update_interest(c);  // (after a handshake: registers for reading)
      return;
    }
    close_connection(c);
    return;
  }
  if (n == 0) {
    // The peer sent everything it will send; answer what it asked, then close.
    c.read_closed = true;
  } else {
    c.read_ns = now_ns;
    c.active_ns = now_ns;
    auto size = static_cast<size_t>(n);
    size_t consumed = parse(c, read_buffer_.data(), size);
    if (consumed < size && !c.read_closed) {
      c.held_input.assign(read_buffer_.data() + consumed, read_buffer_.data() + size);
      c.held_offset = 0;
    }
  }
  service(c, now_ns);
}

size_t Worker::parse(Connection& c, const char* data, size_t size) {
  llhttp_errno_t error = llhttp_execute(&c.parser, data, size);
  if (error == HPE_OK) return size;
  if (error == HPE_PAUSED) {
    const char* stopped_at = llhttp_get_error_pos(&c.parser);
    llhttp_resume(&c.parser);
    return static_cast<size_t>(stopped_at - data);
  }
  c.read_closed = true;
  // An upgrade (or CONNECT) was answered like any request; we speak nothing else, so close.
  if (error == HPE_PAUSED_UPGRADE) return size;
  RequestError reason = c.header_too_large ? RequestError::kHeaderTooLarge
                        : c.body_too_large ? RequestError::kBodyTooLarge
                                           : RequestError::kBadRequest;
  // Parsing only runs with room in the reply queue, and a request that fills it pauses the
  // parser before the next begins, so an error always finds room.
  ConnectionReplyBuilder reply(*this, c);
  handler_.reject(reason, reply);
  return size;
}

void Worker::on_request(Connection& c) {
  c.request.thread_index = thread_index_;
  ConnectionReplyBuilder reply(*this, c);
  handler_.handle(c.request, reply);
}

void Worker::service(Connection& c, int64_t now_ns) {
  while (true) {
    if (!write_due(c, now_ns)) return;
    if (c.lingering) return;
    if (c.replies_size == 0 && c.read_closed) {
      close_connection(c);
      return;
    }
    // Replies drained: parse the requests that waited behind a full queue.
    if (c.read_closed || c.replies_full() || !c.has_held_input()) break;
    size_t consumed =
        parse(c, c.held_input.data() + c.held_offset, c.held_input.size() - c.held_offset);
    c.held_offset += consumed;
    if (c.read_closed || !c.has_held_input()) {
      c.held_input.clear();
      c.held_offset = 0;
    }
  }
  update_interest(c);
}

bool Worker::write_due(Connection& c, int64_t now_ns) {
  // One pass writes every due reply up to the first stream; passes repeat while a stream has
  // more parts due (an SSE stream over 0 s is all due at once) and the socket takes them.
  bool more_due = true;
  while (more_due && !c.write_blocked) {
    more_due = false;
    std::array<iovec, kMaxQueuedReplies> iov;
    size_t count = 0;
    for (uint32_t i = 0; i < c.replies_size; ++i) {
      QueuedReply& r = c.replies[(c.replies_head + i) % kMaxQueuedReplies];
      if (r.due_ns > now_ns) break;  // in order: a later reply waits for an earlier one
      if (r.abort) {
        if (count > 0) break;  // write what is before it first
        // A reset, as a crashing server or a load balancer gives: SO_LINGER 0 makes close send
        // RST instead of FIN.
        linger reset{1, 0};
        setsockopt(c.fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
        close_connection(c);
        return false;
      }
      if (r.stream != nullptr && r.batched_parts == 0) batch_stream_parts(r, now_ns);
      std::string_view bytes = r.bytes();
      uint32_t skip = i == 0 ? c.head_written : 0;
      iov[count++] = iovec{const_cast<char*>(bytes.data() + skip), bytes.size() - skip};
      // Nothing goes out behind a stream's batch: the stream stays at the head until it ends.
      if (r.close_after || r.stream != nullptr) break;
    }
    if (count == 0) return true;
    ssize_t sent = write_to(c, iov.data(), count);
    if (sent < 0) {
      if (errno == EAGAIN || errno == EINTR) {
        c.write_blocked = true;
        return true;
      }
      close_connection(c);
      return false;
    }
    auto left = static_cast<size_t>(sent);
    bool closing = false;
    for (size_t i = 0; i < count; ++i) {
      QueuedReply& r = c.replies[c.replies_head];
      size_t remaining = r.bytes().size() - c.head_written;
      if (left < remaining) {
        c.head_written += static_cast<uint32_t>(left);
        c.write_blocked = true;  // a short write means the socket buffer is full
        break;
      }
      left -= remaining;
      c.head_written = 0;
      if (r.stream != nullptr) {
        r.next_part += r.batched_parts;
        r.batched_parts = 0;
        if (r.next_part < r.stream->part_count()) {
          r.due_ns = r.stream_start_ns + r.stream->part_offset_ns(r.next_part);
          more_due = r.due_ns <= now_ns;
          if (!more_due) timers_.push(r.due_ns, token(Kind::kConnection, c));
          break;
        }
        more_due = true;  // the stream ended: what waited behind it may be due
        handler_.stream_ended(true);
      }
      closing = r.close_after;
      c.replies_head = (c.replies_head + 1) % kMaxQueuedReplies;
      --c.replies_size;
      c.active_ns = now_ns;
    }
    if (closing) {
      if (draining_) {
        close_connection(c);
        return false;
      }
      begin_linger(c, now_ns);
      return true;
    }
  }
  return true;
}

// Makes the stream's next batch: its next part, and those after it that are due too, up to
// about kStreamBatchBytes (one sendmsg for many small events, bounded memory for large ones).
void Worker::batch_stream_parts(QueuedReply& r, int64_t now_ns) {
  const int64_t parts = r.stream->part_count();
  r.built.clear();
  do {
    r.stream->append_part(r.next_part + r.batched_parts, r.built);
    ++r.batched_parts;
  } while (r.next_part + r.batched_parts < parts && r.built.size() < kStreamBatchBytes &&
           r.stream_start_ns + r.stream->part_offset_ns(r.next_part + r.batched_parts) <= now_ns);
}

void Worker::update_interest(Connection& c) {
  uint32_t wanted = 0;
  if (c.lingering) {
    wanted = EPOLLIN;
  } else {
    if (!c.read_closed && !c.replies_full() && !c.has_held_input()) wanted |= EPOLLIN;
    if (c.write_blocked) wanted |= EPOLLOUT;
  }
  if (wanted != c.interest) {
    loop_.modify(c.fd, wanted, token(Kind::kConnection, c));
    c.interest = wanted;
  }
}

void Worker::begin_linger(Connection& c, int64_t now_ns) {
  send_close_notify(c);
  shutdown(c.fd, SHUT_WR);
  c.lingering = true;
  c.read_closed = true;
  drop_unfinished_streams(c);
  update_interest(c);
  timers_.push(now_ns + kLingerNs, token(Kind::kLinger, c));
}

void Worker::drop_unfinished_streams(Connection& c) {
  for (uint32_t i = 0; i < c.replies_size; ++i) {
    if (c.replies[(c.replies_head + i) % kMaxQueuedReplies].stream != nullptr) {
      handler_.stream_ended(false);
    }
  }
  c.replies_size = 0;
}

void Worker::close_connection(Connection& c) {
  drop_unfinished_streams(c);
  end_tls(c);
  close(c.fd);  // also removes it from epoll
  c.fd = -1;
  ++c.generation;
  free_slots_.push_back(c.slot);
  --open_connections_;
  if (accept_paused_ && listen_fd_ >= 0) {
    loop_.add(listen_fd_, EPOLLIN, static_cast<uint64_t>(Kind::kListen) << 62);
    accept_paused_ = false;
  }
}

void Worker::begin_drain(int64_t now_ns) {
  draining_ = true;
  drain_deadline_ns_ = now_ns + options_.shutdown_grace_ns;
  loop_.remove(stop_fd_);  // level-triggered and never drained: stop watching it
  close(listen_fd_);       // no new connections; queued ones get a reset
  listen_fd_ = -1;
  for (auto& slot : slots_) {
    Connection& c = *slot;
    if (c.fd < 0) continue;
    if (c.lingering || c.replies_size == 0) {
      close_connection(c);
      continue;
    }
    // Answer what was already parsed, then close; bytes not yet parsed are dropped.
    c.read_closed = true;
    c.held_input.clear();
    c.held_offset = 0;
    service(c, now_ns);
  }
}

}  // namespace proofload::serve
