// Simulated time, sockets and server, for driving the real Worker in its tests (see
// engine/worker_io.h): a run of many simulated seconds takes milliseconds, and the server's
// answers are exact, so a test checks the worker's outcomes and latencies against arithmetic.
//
//   simulated::World world(model);   // the clock starts at 1 s; the server behaves as `model`
//   Worker worker(spec, 0, world.now() + lead, control, mailbox);
//   worker.run();                    // returns when the worker's run is over
//   world.stats();                   // what the server saw
//
// The Worker's loop calls Loop::wait with its next deadline: the world hands back the sockets
// that are ready now or, when none is, moves its clock to the next thing that happens (a connect
// completes, an answer is due) or to the deadline, whichever is first. Time passes only there.
// A worker that polls without end at one instant (a busy loop) fails the simulation instead of
// hanging it.
//
// The server answers each request (HTTP/1.1, one at a time per connection, as the worker sends
// them; or HTTP/2, each a stream, many on a connection) `service_ns` after it arrived, or after
// the stall it arrived in. Faults are counted: it can
// refuse connects, close a connection after its answer, or leave a request unanswered. Scripted
// (ServerModel::script), it plays given bytes instead, whatever the client sends: a hostile
// HTTP/2 server, frame by frame, for the h2_worker fuzzing harness.
// Single-threaded: one World per thread, alive while a Loop or Transport is used.
#pragma once

#include <sys/epoll.h>

#include <cerrno>
#include <cstdint>
#include <map>
#include <memory>
#include <queue>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/simulated_h2_server.h"
#include "net/io_backend.h"
#include "net/tcp.h"
#include "net/tls.h"
#include "net/transport.h"

namespace proofload::engine::simulated {

struct ServerModel {
  int64_t connect_ns = 100'000;    // from the connect call to the connection being open
  int64_t service_ns = 5'000'000;  // from a request's arrival (or its stall's end) to its answer
  // Stalls, like a garbage collector's: [first, first + length) and every `every_ns` after.
  // A request that arrives in one is answered `service_ns` after it ends. 0: no stalls.
  int64_t stall_length_ns = 0;
  int64_t stall_every_ns = 0;
  int64_t stall_first_ns = 0;  // since the world's start
  // Faults, each on every Nth occurrence (0: never).
  int refuse_every_nth_connect = 0;       // the connect fails: ECONNREFUSED
  int close_after_every_nth_answer = 0;   // the answer says Connection: close, and the server
                                          // closes the connection after it
  int ignore_every_nth_request = 0;       // the request is never answered
  // A rate limit: answers from this one on are 429 with Retry-After and RateLimit-Remaining: 0
  // (0: never); the answers before it say RateLimit-Remaining: how many are left before it.
  int64_t limited_from_answer = 0;
  // When set, every answer is 200 with this body (an event stream, say), all of it at once.
  std::string body;
  // Every connect after the first this many is refused: ECONNREFUSED (0: never).
  int refuse_connects_after = 0;
  // The server speaks HTTP/2 (h2c with prior knowledge, nghttp2's server session:
  // simulated_h2_server.h): each request is a stream, answered as over HTTP/1.1, with the same
  // times, faults and answers. A close after an answer is a GOAWAY, then the close.
  bool http2 = false;
  // Scripted, when not empty: the server parses no HTTP/1.1. Once a connection's first bytes
  // arrived (an HTTP/2 client's preface), it writes these pieces to it, the first at once and each
  // next `script_gap_ns` later (the client's turn comes between two pieces), then closes the
  // connection if `script_close`. Every connection gets the whole script. What the client sends
  // is read as HTTP/2 frames after the preface; its HEADERS frames count as requests.
  std::vector<std::string> script;
  int64_t script_gap_ns = 1'000;
  bool script_close = false;
};

// What the server saw.
struct ServerStats {
  int64_t connects_attempted = 0;
  int64_t connects_refused = 0;
  int64_t requests = 0;   // complete requests received (scripted: HEADERS frames)
  int64_t answers = 0;    // answers sent
  int64_t ignored = 0;    // requests left unanswered
  int64_t closes = 0;     // connections the server closed after an answer (or its script)
  int most_open = 0;      // connections open or opening at once, at most
  int64_t bytes_read = 0;                      // by the client: answer bytes it took
  int64_t bytes_written = 0;                   // by the client: request bytes the server took
  std::map<std::string, int64_t> connects_to;  // connects by the address they were made to
  int64_t h2_stream_window = 0;  // HTTP/2: the stream window the client announced last
};

class World {
 public:
  explicit World(ServerModel model);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  static constexpr int64_t kStartNs = 1'000'000'000;  // the clock's first reading
  int64_t now() const { return now_ns_; }
  const ServerStats& stats() const { return stats_; }

  // The one World of this thread (the Loop and Transport below use it).
  static World& current();

  // ---- for Loop and Transport ----
  // Starts a connect to `address` (its text is counted); returns the socket's fd (never a real
  // one).
  int open_socket(const std::string& address = "");
  int finish_connect(int fd);  // 0 when open, else the errno
  net::Io read(int fd, char* buffer, size_t size);
  net::Io write(int fd, const char* data, size_t size);
  void close_socket(int fd);
  void watch(int fd, uint32_t events, uint64_t token);
  void unwatch(int fd);
  std::span<const epoll_event> wait(int64_t deadline_ns);

 private:
  struct Socket {
    int64_t open_at_ns = 0;  // the connect completes then (or fails, if refused)
    bool refused = false;
    bool closed_by_server = false;
    std::string to_server;  // request bytes not yet parsed into a request
    std::string to_client;  // answer bytes not yet read
    bool script_started = false;  // scripted: its first bytes came, the pieces are due
    bool preface_read = false;    // scripted: the client's 24-byte preface was taken
    size_t script_next = 0;       // scripted: the next piece to write
    std::unique_ptr<H2Server> h2;  // ServerModel::http2: from the client's first bytes on
  };
  // Something that happens at a time: a connect completes (or is refused), an answer is due, or
  // a scripted server's next piece.
  enum class DueKind : uint8_t { kConnect, kAnswer, kScriptPiece };
  struct Due {
    int64_t at_ns;
    int64_t sequence;  // ties in the order they were made
    int fd;
    DueKind kind;
    int32_t stream;  // kAnswer over HTTP/2: the request's stream
    bool operator>(const Due& other) const {
      return at_ns != other.at_ns ? at_ns > other.at_ns : sequence > other.sequence;
    }
  };
  struct Watch {
    uint32_t events;
    uint64_t token;
  };

  Socket* socket(int fd);
  const Socket* socket(int fd) const;
  void schedule(int64_t at_ns, int fd, DueKind kind, int32_t stream = 0);
  void take_requests(int fd, Socket& s);
  void take_streams(int fd, Socket& s);
  void take_request(int fd, int32_t stream);
  void take_frames(Socket& s);
  void write_script_piece(int fd);
  int64_t answer_time(int64_t arrival_ns) const;
  Answer next_answer() const;
  void answer(int fd, int32_t stream);
  uint32_t ready_events(int fd, const Watch& watch) const;
  void collect_ready();

  ServerModel model_;
  int64_t now_ns_ = kStartNs;
  int next_fd_ = kFirstFd;
  int64_t sequence_ = 0;
  int64_t polls_at_this_instant_ = 0;
  ServerStats stats_;
  std::map<int, Socket> sockets_;  // open or opening
  std::map<int, Watch> watched_;   // the loop's interest, by fd (real fds too: never ready)
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;
  std::vector<epoll_event> ready_;

  static constexpr int kFirstFd = 1 << 20;  // above any real descriptor of the test
  static constexpr int64_t kMaxPollsAtOneInstant = 1'000'000;
};

// The clock the worker reads.
inline int64_t now() { return World::current().now(); }

// net::EventLoop's interface, over the World.
class Loop {
 public:
  Loop(net::IoBackend /*backend*/, int /*streams*/) {}
  void start_on_this_thread() {}
  // Simulated sockets are streamed as they are (net::LoadLoop::stream's io_uring path is the
  // real loop's).
  template <typename AnyTransport>
  void stream(AnyTransport& /*transport*/, uint64_t /*token*/) {}
  void add(int fd, uint32_t events, uint64_t token) { World::current().watch(fd, events, token); }
  void modify(int fd, uint32_t events, uint64_t token) {
    World::current().watch(fd, events, token);
  }
  void remove(int fd) { World::current().unwatch(fd); }
  std::span<const epoll_event> wait(int64_t deadline_ns) {
    return World::current().wait(deadline_ns);
  }
};

// net::Transport's interface (plain TCP; TLS is not simulated), over the World.
class Transport {
 public:
  Transport() = default;
  ~Transport() { close(); }
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;
  Transport(Transport&& other) noexcept : fd_(other.fd_), failure_(other.failure_) {
    other.fd_ = -1;
  }
  Transport& operator=(Transport&& other) noexcept {
    if (this != &other) {
      close();
      fd_ = other.fd_;
      failure_ = other.failure_;
      other.fd_ = -1;
    }
    return *this;
  }

  int fd() const { return fd_; }
  bool is_open() const { return fd_ >= 0; }
  bool tls() const { return false; }

  int connect(const net::Address& address, const net::Address* /*source*/ = nullptr) {
    close();
    fd_ = World::current().open_socket(address.text);
    return 0;
  }
  int finish_connect() { return World::current().finish_connect(fd_); }
  void begin_tls(const net::TlsContext& /*context*/, net::TlsSessionCache* /*cache*/) {}
  net::Io handshake() { return {net::IoStatus::kOk}; }
  bool resumed() const { return false; }
  int tls_version() const { return 0; }
  std::string_view alpn() const { return {}; }

  net::Io read(char* buffer, size_t size) {
    net::Io io = World::current().read(fd_, buffer, size);
    if (io.status == net::IoStatus::kFailed) failure_.error_number = ECONNRESET;
    return io;
  }
  bool buffered() const { return false; }
  net::Io write(const char* data, size_t size) {
    net::Io io = World::current().write(fd_, data, size);
    if (io.status == net::IoStatus::kFailed) failure_.error_number = EPIPE;
    return io;
  }
  int64_t sent_ns() const { return 0; }  // a simulated write sends at once
  void close() {
    if (fd_ >= 0) World::current().close_socket(fd_);
    fd_ = -1;
  }
  const net::TransportFailure& failure() const { return failure_; }
  bool closed_without_close_notify() const { return false; }  // plain bytes: no TLS

 private:
  int fd_ = -1;
  net::TransportFailure failure_;
};

}  // namespace proofload::engine::simulated
