// A small HTTP/1.1 listener for what a running experiment shows while it runs (the dashboard's
// page and its Server-Sent Events, the Prometheus metrics): GET only, one request per
// connection, never trusting the client. It is bounded so that a browser tab or a scraper can
// never slow the load: at most kMaxClients connections, a request head of at most kMaxHeadBytes
// read within kHeadTimeoutNs, a stream's unsent bytes at most kMaxStreamBacklogBytes (a reader
// that falls further behind is dropped). Anything else gets 400, 404 or 405 and is closed.
//
// Thread-safety: routes are added before start(); then the listener's own thread does all the
// socket work, and send() and finish() may be called from any thread. Page bodies and a stream's
// on_open / on_close run on the listener's thread with no lock of the listener held, so they may
// call send().
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "common/unique_fd.h"
#include "net/tcp.h"

namespace proofload::live {

constexpr int kMaxClients = 64;
constexpr size_t kMaxHeadBytes = 8 * 1024;
constexpr int64_t kHeadTimeoutNs = int64_t{10} * 1'000'000'000;
// A stream reader that falls this far behind is dropped (closed). A dashboard draws recent
// windows: an event is a few KiB (~1.5 MB with a Prometheus observer's 10,000 series,
// observe/prom_limits.h), and a late subscriber's replay, sent at once, is at most half of this
// (dashboard_feed.h's kKeptBytes); so 4 MiB is a replay and then more than a thousand ordinary
// windows unread. kMaxClients readers that never read hold 256 MiB at most; at 64 MiB each, 64
// silent /events clients took a run from 43 MiB to 1.26 GiB in 15 s.
constexpr size_t kMaxStreamBacklogBytes = size_t{4} << 20;

class HttpListener {
 public:
  // Binds and listens on `address`. Throws UsageError naming `what` ("--dashboard
  // 127.0.0.1:9000") when it cannot (the port in use, an address not of this machine).
  HttpListener(const net::Address& address, std::string what);
  ~HttpListener();  // finish("", 0) if not finished
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  // GET `path` (the query ignored) answers 200 with `body()` (called for each request).
  void add_page(std::string path, std::string content_type, std::function<std::string()> body);
  // GET `path` answers a stream that stays open: the head, then whatever send() gives the client.
  // `on_open(client)` runs once its head is queued, `on_close(client)` once it is gone (closed
  // by the reader, dropped, or finished). `keep_alive` is sent to every stream client when it
  // has been sent nothing for `keep_alive_ns`, so proxies and browsers keep it open.
  void add_stream(std::string path, std::string content_type,
                  std::function<void(uint64_t client)> on_open,
                  std::function<void(uint64_t client)> on_close, std::string keep_alive,
                  int64_t keep_alive_ns);
  void start();

  uint16_t port() const { return port_; }
  // Queues bytes for a stream client; false when it is gone or was dropped for falling behind.
  bool send(uint64_t client, std::string_view bytes);
  // Stops accepting, queues `last` to every stream client, and returns once every client has
  // been sent what it was queued and closed, or after `flush_timeout_ns`. Idempotent.
  void finish(std::string_view last, int64_t flush_timeout_ns);

  struct Client;  // one connection (http_listener.cc)

 private:
  struct Route {
    std::string content_type;
    std::function<std::string()> body;      // a page
    std::function<void(uint64_t)> on_open;  // a stream
    std::function<void(uint64_t)> on_close;
    bool stream = false;
  };

  void loop();
  void wake();
  void accept_clients();
  void read_head(Client& client);
  void answer(Client& client, std::string_view head);
  void write_out(Client& client);
  void close_client(uint64_t id);

  std::string what_;
  UniqueFd listen_fd_;
  UniqueFd wake_read_, wake_write_;
  uint16_t port_ = 0;
  std::map<std::string, Route, std::less<>> routes_;
  std::string keep_alive_;
  int64_t keep_alive_ns_ = 0;
  std::thread thread_;

  std::mutex mutex_;  // guards clients_ (the map and each client's output) and the flags below
  std::map<uint64_t, std::unique_ptr<Client>> clients_;
  uint64_t next_id_ = 1;
  bool finishing_ = false;
  int64_t finish_deadline_ns_ = 0;
};

}  // namespace proofload::live
