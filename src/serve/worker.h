// One thread of the built-in server: its own listening socket, epoll loop, timers and
// connections (shared nothing). Internal to src/serve; Server creates one per thread.
// Not thread-safe: everything but the stop signal belongs to the thread running run().
#pragma once

#include <openssl/ssl.h>
#include <sys/socket.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "net/event_loop.h"
#include "serve/handler.h"
#include "serve/stall_schedule.h"

namespace proofload::serve {

struct ServerOptions;
struct Connection;
struct QueuedReply;

struct WorkerConfig {
  const ServerOptions* options;
  const RequestHandler* handler;
  int thread_index;                   // 0..threads-1, handed to the handler with each request
  int listen_fd;                      // taken over by the worker (closed when it stops accepting)
  int stop_fd;                        // eventfd, readable once the server is asked to stop
  const std::atomic<bool>* stopping;  // set before stop_fd is signalled
  StallSchedule stalls;               // shared start time, so every thread stalls together
  int max_connections;                // this thread's share of the server's bound
  SSL_CTX* tls = nullptr;             // TLS on every connection (the server owns it); null: plain
};

class Worker {
 public:
  explicit Worker(const WorkerConfig& config);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Serves until the stop signal, then drains (bounded by the grace period) and returns.
  void run();

 private:
  friend struct ParserHooks;
  friend class ConnectionReplyBuilder;

  // Each fd and timer carries a token: kind in the top bits, connection generation, slot.
  enum class Kind : uint64_t { kConnection = 0, kLinger = 1, kListen = 2, kStop = 3 };
  static uint64_t token(Kind kind, const Connection& c);
  Connection* connection_for(uint64_t token);

  // Blocks while `now_ns` is inside a stall (like a GC pause); returns the time after it.
  int64_t wait_out_stall(int64_t now_ns);
  void accept_connections();
  // A free (or new) slot made ready for an accepted connection: reset, parser started,
  // registered for reading.
  Connection& take_slot(int fd, const sockaddr_storage& peer);
  void on_connection_event(Connection& c, uint32_t events, int64_t now_ns);
  void on_readable(Connection& c, int64_t now_ns);
  // TLS: the handshake's next step; reading begins once it is done.
  void on_handshake_event(Connection& c, int64_t now_ns);
  // Feeds bytes to the parser; returns how many it consumed (fewer only when the reply queue
  // filled up and parsing paused).
  size_t parse(Connection& c, const char* data, size_t size);
  // The handler step: queues the reply to the request just parsed.
  void on_request(Connection& c);
  // Writes what is due, resumes held input, and closes when finished.
  void service(Connection& c, int64_t now_ns);
  // Returns false when the connection was closed.
  bool write_due(Connection& c, int64_t now_ns);
  void batch_stream_parts(QueuedReply& r, int64_t now_ns);
  void update_interest(Connection& c);
  void begin_linger(Connection& c, int64_t now_ns);
  void close_connection(Connection& c);
  // Forgets the connection's queued replies, telling the handler of each stream cut short.
  void drop_unfinished_streams(Connection& c);
  void begin_drain(int64_t now_ns);
  int64_t sweep_interval_ns() const;
  // 408 to requests begun too long ago, a close to connections idle too long.
  void sweep_connections(int64_t now_ns);
  // Notes a connection closed at accept for the cap; logs it at most every kCapLogEveryNs.
  void note_refused_at_cap(int64_t now_ns);

  const ServerOptions& options_;
  const RequestHandler& handler_;
  int thread_index_;
  int listen_fd_;
  int stop_fd_;
  const std::atomic<bool>& stopping_;
  StallSchedule stalls_;
  SSL_CTX* tls_;
  int max_connections_;

  net::EventLoop loop_;
  net::TimerHeap timers_;
  std::vector<std::unique_ptr<Connection>> slots_;  // reused: never freed while running
  std::vector<uint32_t> free_slots_;
  int open_connections_ = 0;
  bool accept_paused_ = false;  // out of file descriptors: resume when a connection closes
  bool draining_ = false;
  int64_t drain_deadline_ns_ = 0;
  int64_t next_sweep_ns_ = 0;    // when to look for requests begun, and connections idle, too long
  int64_t refused_at_cap_ = 0;   // connections closed at accept since the last log line
  int64_t next_cap_log_ns_ = 0;  // the next log line of them may be written from then
  // Read scratch shared by this thread's connections: the parser streams, so no request is
  // kept; only bytes left unparsed behind a full reply queue are copied to the connection.
  static constexpr size_t kReadBytes = 16 * 1024;
  std::array<char, kReadBytes> read_buffer_;
};

}  // namespace proofload::serve
