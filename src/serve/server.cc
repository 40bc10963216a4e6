// Sockets, threads and the stop signal of the built-in server; see server.h.
#include "serve/server.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

#include "common/usage_error.h"
#include "net/tcp.h"
#include "serve/route_handler.h"
#include "serve/worker.h"

namespace proofload::serve {

namespace {

constexpr int kListenBacklog = 4096;
constexpr int64_t kMaxBodyBytes = 64 * 1024 * 1024;
constexpr int kMaxThreads = 1024;
// As `run -c`: one per connection, a million is past any machine's ephemeral ports.
constexpr int kMaxServerConnections = 1'000'000;
// Descriptors besides connections and listening sockets: stdio, epoll, eventfds, route files.
constexpr int64_t kSpareDescriptors = 32;

// Binds and listens on host:port. With several threads each gets its own socket in one
// SO_REUSEPORT group, and the kernel spreads connections over them. (A single thread does not
// join a group, so it can never silently share a port with another process.)
int listen_on(const addrinfo& address, bool reuse_port, const std::string& where) {
  int fd = socket(address.ai_family, address.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                  address.ai_protocol);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "socket");
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (reuse_port) setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
  if (bind(fd, address.ai_addr, address.ai_addrlen) != 0 || listen(fd, kListenBacklog) != 0) {
    int error = errno;
    close(fd);
    throw UsageError("cannot listen on " + where + ": " + std::strerror(error));
  }
  return fd;
}

int bound_port(int fd) {
  sockaddr_storage local{};
  socklen_t length = sizeof(local);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) != 0) {
    throw std::system_error(errno, std::generic_category(), "getsockname");
  }
  if (local.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&local)->sin6_port);
  }
  return ntohs(reinterpret_cast<const sockaddr_in*>(&local)->sin_port);
}

}  // namespace

void ServerOptions::validate() const {
  if (host.empty()) throw UsageError("--host: must not be empty");
  if (request_timeout_ns <= 0) throw UsageError("--timeout: must be longer than 0");
  if (idle_timeout_ns <= 0) throw UsageError("--idle-timeout: must be longer than 0");
  if (port < 0 || port > 65535) throw UsageError("--port: must be between 0 and 65535");
  if (threads < 1 || threads > kMaxThreads) {
    throw UsageError("--threads: must be between 1 and " + std::to_string(kMaxThreads));
  }
  if (static_cast<int64_t>(body.size()) > kMaxBodyBytes) {
    throw UsageError("--body-size: at most " + std::to_string(kMaxBodyBytes) + " bytes");
  }
  if (delay_ns < 0) throw UsageError("--delay: must not be negative");
  if (stall_ns < 0) throw UsageError("--stall: must not be negative");
  if (exit_after_ns < 0) throw UsageError("--exit-after: must not be negative");
  if (stall_ns > 0 && stall_every_ns <= stall_ns) {
    throw UsageError("--stall-every: must be longer than --stall");
  }
  if (max_connections < 1 || max_connections > kMaxServerConnections) {
    throw UsageError("--max-connections: must be between 1 and " +
                     std::to_string(kMaxServerConnections));
  }
  if (max_header_bytes < 1 || max_body_bytes < 0 || shutdown_grace_ns < 0) {
    throw UsageError("request limits and grace period must not be negative");
  }
}

namespace {
ServerOptions validated(ServerOptions options) {
  options.validate();
  return options;
}
}  // namespace

Server::Server(ServerOptions options) : options_(validated(std::move(options))) {
  // As `run` does: a soft limit of 1,024 would hold about 1,017 connections, and a generator
  // at -c 3000 would see failures that are this server's. The hard limit is the ceiling.
  const int64_t spare = 2 * options_.threads + kSpareDescriptors;
  const int64_t limit = net::raise_fd_limit(options_.max_connections + spare);
  if (limit < options_.max_connections + spare) {
    const int64_t fits = limit - spare;
    if (fits < 1) {
      throw UsageError("the file-descriptor limit (ulimit -n " + std::to_string(limit) +
                       ") leaves no room for a connection");
    }
    notice_ = "the file-descriptor limit (ulimit -n " + std::to_string(limit) + ") allows " +
              std::to_string(fits) + " connections, not " +
              std::to_string(options_.max_connections) + ": serving at most " +
              std::to_string(fits);
    options_.max_connections = static_cast<int>(fits);
  }
  RouteHandler* route_handler = nullptr;
  if (options_.routes) {
    if (options_.stall_ns == 0 && options_.routes->stalls) {
      options_.stall_ns = options_.routes->stalls->stall_ns;
      options_.stall_every_ns = options_.routes->stalls->every_ns;
      options_.stall_first_ns = options_.routes->stalls->first_ns;
    }
    auto routes = std::make_unique<RouteHandler>(*options_.routes, options_.threads);
    route_handler = routes.get();
    handler_ = std::move(routes);
  } else {
    handler_ = std::make_unique<StaticHandler>(options_.body, options_.delay_ns);
  }
  if (!options_.tls_certificate_pem.empty() || !options_.tls_key_pem.empty()) {
    tls_ =
        std::make_unique<net::TlsServerContext>(options_.tls_certificate_pem, options_.tls_key_pem);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string port_text = std::to_string(options_.port);
  int status = getaddrinfo(options_.host.c_str(), port_text.c_str(), &hints, &found);
  if (status != 0) {
    throw UsageError("--host: cannot resolve '" + options_.host + "': " + gai_strerror(status));
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(found, freeaddrinfo);
  try {
    bool reuse_port = options_.threads > 1;
    listen_fds_.push_back(listen_on(*found, reuse_port, options_.host + ":" + port_text));
    port_ = bound_port(listen_fds_[0]);
    // With --port 0 the first socket chose the port; the others join it.
    if (found->ai_family == AF_INET6) {
      reinterpret_cast<sockaddr_in6*>(found->ai_addr)->sin6_port = htons(port_);
    } else {
      reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_port = htons(port_);
    }
    for (int i = 1; i < options_.threads; ++i) {
      listen_fds_.push_back(listen_on(*found, true, address()));
    }
    stop_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (stop_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  } catch (...) {
    for (int fd : listen_fds_) close(fd);
    throw;
  }
  // Time zero: now that it listens (a large initial dataset may have taken a while to build).
  if (options_.start_ns <= 0) options_.start_ns = monotonic_ns();
  if (route_handler) route_handler->set_start_ns(options_.start_ns);
}

Server::~Server() {
  for (int fd : listen_fds_) {
    if (fd >= 0) close(fd);
  }
  if (stop_fd_ >= 0) close(stop_fd_);
}

std::string Server::address() const {
  bool ipv6_literal = options_.host.find(':') != std::string::npos;
  std::string host = ipv6_literal ? "[" + options_.host + "]" : options_.host;
  return host + ":" + std::to_string(port_);
}

void Server::run() {
  // One start time for all threads, so their stalls line up like one process-wide pause.
  StallSchedule stalls;
  if (options_.stall_ns > 0) {
    int64_t first_ns =
        options_.stall_first_ns >= 0 ? options_.stall_first_ns : options_.stall_every_ns;
    stalls = StallSchedule(options_.start_ns, first_ns, options_.stall_every_ns, options_.stall_ns);
  }
  int threads = options_.threads;
  int per_thread = (options_.max_connections + threads - 1) / threads;
  std::vector<std::unique_ptr<Worker>> workers;
  for (int i = 0; i < threads; ++i) {
    WorkerConfig config{&options_,      handler_.get(), i,
                        listen_fds_[i], stop_fd_,       &stopping_,
                        stalls,         per_thread,     tls_ ? tls_->get() : nullptr};
    workers.push_back(std::make_unique<Worker>(config));
    listen_fds_[i] = -1;  // the worker owns it now
  }
  std::vector<std::exception_ptr> errors(threads);
  auto serve = [&](int i) {
    try {
      workers[i]->run();
    } catch (...) {
      errors[i] = std::current_exception();
      stop();  // one thread failing ends the server, not just its share of connections
    }
  };
  // --exit-after: a timer thread takes the same graceful path as SIGTERM; it is woken early
  // when the server stops for another reason.
  std::mutex done_mutex;
  std::condition_variable done_changed;
  bool done = false;
  std::thread exit_timer;
  if (options_.exit_after_ns > 0) {
    exit_timer = std::thread([&] {
      auto wait =
          std::chrono::nanoseconds(options_.start_ns + options_.exit_after_ns - monotonic_ns());
      std::unique_lock lock(done_mutex);
      if (!done_changed.wait_for(lock, wait, [&] { return done; })) {
        exited_after_deadline_.store(true);
        stop();
      }
    });
  }
  std::vector<std::thread> others;
  for (int i = 1; i < threads; ++i) others.emplace_back(serve, i);
  serve(0);
  for (std::thread& t : others) t.join();
  if (exit_timer.joinable()) {
    {
      std::lock_guard lock(done_mutex);
      done = true;
    }
    done_changed.notify_one();
    exit_timer.join();
  }
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

void Server::stop() {
  stopping_.store(true, std::memory_order_relaxed);
  uint64_t one = 1;
  // Async-signal-safe; the counter never overflows from a handful of calls.
  [[maybe_unused]] ssize_t written = write(stop_fd_, &one, sizeof(one));
}

}  // namespace proofload::serve
