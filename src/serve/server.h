// The built-in HTTP/1.1 target (`proofload serve`): the ground truth for the load engine's
// accuracy tests and the demo's target. One listening socket (SO_REUSEPORT) and one event loop
// per thread, shared nothing; the only shared state is the start time (so all threads stall
// together) and the stop signal. stop() is thread-safe and async-signal-safe; the rest of the
// interface is for the owning thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "net/tls_server.h"
#include "serve/handler.h"
#include "serve/routes/route_config.h"

namespace proofload::serve {

struct ServerOptions {
  std::string host = "127.0.0.1";  // numeric IPv4/IPv6 address or a resolvable name
  int port = 8080;                 // 0 picks a free port; see Server::port()
  std::string body = "ok\n";       // the body of every 200 response
  int64_t delay_ns = 0;            // each response is sent this long after its request was read
  int64_t stall_ns = 0;            // length of each stall; 0: never stall
  int64_t stall_every_ns = 0;      // period of the stalls (required when stall_ns > 0)
  int64_t stall_first_ns = -1;     // start of the first stall after start; < 0: stall_every_ns
  // Time zero on the monotonic clock, which stalls, drift, faults and exit_after_ns count from;
  // 0: when the Server's constructor has begun listening.
  int64_t start_ns = 0;
  int64_t exit_after_ns = 0;             // > 0: run() stops by itself (gracefully) this long after
                                         // time zero, so a wrapper can start a fresh server
  int threads = 1;                       // event loops, each with its own listening socket
  int max_connections = 10'000;          // beyond: accepted and closed at once (split over threads)
  int64_t max_header_bytes = 64 * 1024;  // request line + headers; beyond: 431 and close
  int64_t max_body_bytes = 1024 * 1024;  // request body, read and discarded; beyond: 413
  int64_t shutdown_grace_ns = 2 * kNsPerS;  // how long stop() lets responses in progress finish
  // A request begun but not complete after this long gets 408 and the connection closes, so a
  // client that never finishes cannot hold a connection for ever.
  int64_t request_timeout_ns = 30 * kNsPerS;
  // A connection with no request in progress and nothing to send for this long is closed, so
  // idle clients cannot fill max_connections (nginx's keepalive_timeout is 75 s).
  int64_t idle_timeout_ns = 60 * kNsPerS;
  // Routes (--routes FILE or --profile NAME); without them every request gets 200 and `body`
  // after `delay_ns`. A route table's stalls apply unless stall_ns is set.
  std::optional<RouteTable> routes;
  // TLS: the certificate (chain) and key in PEM; empty: plain HTTP. The same routes over TLS.
  std::string tls_certificate_pem;
  std::string tls_key_pem;

  // Throws UsageError with a one-line message naming the flag at fault.
  void validate() const;
};

class Worker;

class Server {
 public:
  // Validates the options, then binds and listens on every thread's socket, so port() is known
  // and connections queue from here on. Throws UsageError (bad options, address in use) or
  // std::system_error.
  explicit Server(ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // The bound port (the chosen one when options.port was 0).
  int port() const { return port_; }
  // What the server had to change to run, for its log ("" when nothing): a file-descriptor
  // limit (ulimit -n) too low for max_connections lowers the connection cap.
  const std::string& notice() const { return notice_; }
  // Time zero on the monotonic clock (options.start_ns, or when the Server was constructed).
  int64_t start_ns() const { return options_.start_ns; }
  // True once run() has returned because exit_after_ns passed (not stop()).
  bool exited_after_deadline() const { return exited_after_deadline_.load(); }
  // The connection cap in force (max_connections, or less when the fd limit is lower).
  int max_connections() const { return options_.max_connections; }
  // "HOST:PORT" as a client would dial it, e.g. "127.0.0.1:8080" or "[::1]:8080".
  std::string address() const;

  // Serves on options.threads threads (the caller's included) until stop(), then stops
  // accepting, finishes responses in progress for at most shutdown_grace_ns, and returns.
  // Call once.
  void run();

  // Asks run() to shut down gracefully. Safe from any thread and from a signal handler.
  void stop();

 private:
  ServerOptions options_;
  std::unique_ptr<RequestHandler> handler_;
  std::unique_ptr<net::TlsServerContext> tls_;  // null unless serving TLS
  int port_ = 0;
  std::vector<int> listen_fds_;  // one per thread; owned until a worker takes it
  int stop_fd_ = -1;             // eventfd: readable once stop() was called; never drained
  std::atomic<bool> stopping_{false};
  std::atomic<bool> exited_after_deadline_{false};
  std::string notice_;
};

}  // namespace proofload::serve
