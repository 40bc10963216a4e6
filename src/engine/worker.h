// One load worker: a thread with its own epoll loop, its own connections, its own arrival
// schedule share and its own window statistics (shared nothing). It talks to the rest of the
// run only through RunControl (stop requests) and the WindowMailbox (once per window).
// Its clock, event loop and transport come through worker_io.h, so that worker_simulation_test
// runs this same code in simulated time.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/http1_session.h"
#include "engine/load_spec.h"
#include "engine/stream_body.h"
#include "engine/window_mailbox.h"
#include "engine/window_recorder.h"
#include "engine/worker_io.h"
#include "engine/worker_schedule.h"
#include "http/h2_memory.h"
#include "http/h2_session.h"
#include "measure/named_stats.h"
#include "measure/span_counts.h"
#include "measure/window_stats.h"
#include "net/event_loop.h"
#include "net/transport.h"
#include "workload/session.h"

namespace proofload::engine {

// Stop requests, shared by the coordinator and the workers (a failing worker stops the rest).
struct RunControl {
  // 0: run; 1: stop starting requests and drain within the grace period; 2: end now.
  std::atomic<int> stop_level{0};
};

// Final: the one Slots its schedule drives, deleted as a Worker (Slots has no virtual
// destructor, and needs none).
class Worker final : private WorkerSchedule::Slots {
 public:
  Worker(const LoadSpec& spec, int index, int64_t start_ns, RunControl& control,
         WindowMailbox& mailbox);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // The thread body: runs the load until the schedule ends and in-flight requests drained.
  // Never throws: a failure ends this worker early and is kept in failure().
  void run();
  // Why the worker ended early ("" if it did not). Read after the thread was joined.
  const std::string& failure() const { return failure_; }
  // Wakes the worker's loop so it sees a new stop level. Async-signal-safe.
  void wake() const;
  // Why this worker's first failed TLS handshake failed ("" if none did). Read after the join.
  const std::string& first_tls_failure() const { return first_tls_failure_; }
  // HTTP/2: the lowest SETTINGS_MAX_CONCURRENT_STREAMS a server announced (UINT32_MAX: none).
  uint32_t h2_server_max_streams() const { return h2_server_max_streams_; }

 private:
  // kConnecting: waiting for its link to open (its connect, handshake and, for HTTP/2, the
  // server's SETTINGS). kThinking: a flow's next step waits out its think time on this slot (not
  // idle: the open loop's pool cannot hand it out).
  enum class ConnState : uint8_t { kClosed, kConnecting, kIdle, kBusy, kThinking };
  // One TCP connection, and TLS over it for https: the connect, the handshake and their counts
  // (worker_wire.cc). Each link has one.
  struct Wire {
    WorkerTransport transport;   // the socket, and TLS over it for https
    bool want_epollout = false;  // EPOLLOUT registered (connect, handshake or a blocked write)
    int64_t connect_start_ns = 0;
    int64_t handshake_start_ns = 0;
  };
  // Where a wire's connect or handshake got to: still under way, open (connected, and for https
  // the handshake done), or failed (the TLS failure noted).
  enum class WireStep : uint8_t { kWaiting, kOpen, kFailed };
  // A slot: the place of one request in flight on a link (an HTTP/1.1 connection has one, an
  // HTTP/2 connection h2_streams), and the lifecycle around it (worker_connection.cc): intended
  // times, flows, outcomes, the open loop's pool, backoff. In closed loop it is also the virtual
  // user; in both executors it carries one iteration of the mix (a request, or every step of a
  // flow). It never touches a transport: its link does.
  struct Connection {
    ConnState state = ConnState::kClosed;
    bool active = false;          // closed loop: this user is part of the current target
    int64_t ready_ns = 0;         // closed loop: when the user was ready for its next request
    int64_t retry_at_ns = 0;      // closed and not to be reopened before this (connect backoff)
    int64_t backoff_ns = 0;       // grows after each failed connect, reset on success
    bool reopen_pending = false;  // open loop: reopen at retry_at_ns (after a failed connect)
    int64_t intended_ns = 0;      // the current request's intended start
    int64_t write_start_ns = 0;
    bool waiting_think = false;  // a think timer is due for this connection's next step
    workload::Session session;
    bool attached = false;  // counted in its link's `attached`
    http::H2Stream stream;  // HTTP/2: the request in flight as a stream
    std::unique_ptr<StreamBody> stream_body;  // LoadSpec::stream: the response read as events
  };
  // A link: one TCP (and TLS) connection and the protocol's session over it, shared by the
  // slots_per_link_ slots next to each other in connections_ (slot j uses link
  // j / slots_per_link_). It carries the protocol (worker_link.cc, and its session's file:
  // worker_http1.cc, worker_h2.cc); the slots carry the requests' lifecycle.
  enum class LinkState : uint8_t { kClosed, kConnecting, kHandshaking, kSettings, kReady };
  struct Link {
    Wire wire;
    LinkState state = LinkState::kClosed;  // kSettings: HTTP/2, waiting for the server's SETTINGS
    bool dirty = false;  // HTTP/2: frames may be waiting in the session: flush at the turn's end
    bool going_away = false;  // HTTP/2: seen going away (GOAWAY): its idle slots have left
    int attached = 0;         // slots using it or waiting for it
    int usable_streams = 0;   // the slots it carries: HTTP/1.1 one; HTTP/2 min(h2_streams, the
                              // server's SETTINGS_MAX_CONCURRENT_STREAMS)
    Http1Session http1;       // HTTP/1.1: the request's bytes, and its response read back
    std::unique_ptr<http::H2Session> h2;  // HTTP/2: from the connect on (one allocation a link)
  };

  void run_loop();
  void close_all();
  bool open_loop() const { return spec_.executor == Executor::kOpenLoop; }
  int64_t since_start(int64_t now) const { return now - start_ns_; }

  // Hands over the windows that ended by `now`, with the gauges of this moment.
  void roll_windows(int64_t now) { recorder_.roll(now, busy_, queued()); }
  // Open loop: requests waiting for a connection.
  int64_t queued() const { return schedule_.queued(); }
  int64_t next_deadline() const;

  // A turn of the schedule: a stop request begins the drain, else the schedule runs.
  void run_schedule(int64_t now);
  // What the schedule asks of the slots (WorkerSchedule::Slots).
  void start_on_idle_slot(int64_t intended_ns, int64_t now) override;
  void open_closed_slot(int64_t now) override;
  void set_active_users(int users, int64_t now) override;
  void sweep(int64_t now);
  // `early`: the schedule ended before its planned end (a stop, -n, a failure): the measured
  // span ends now rather than at the planned end.
  void begin_drain(int64_t now, bool early);
  void end_drain(int64_t now);
  bool drained() const;

  // A wire's connect and handshake (worker_wire.cc). `token` is its epoll token.
  // Starts connecting to `to`, from this worker's source address if it has one; false if that
  // failed at once.
  bool dial(Wire& w, const net::Address& to, uint64_t token, int64_t now);
  // Connected (counted): https begins its handshake; plain TCP is open at once.
  WireStep on_wire_connected(Wire& w, uint64_t token, int64_t now);
  WireStep advance_wire_handshake(Wire& w, uint64_t token, int64_t now);
  // Inline: a request's write ends with it.
  void set_wire_epollout(Wire& w, uint64_t token, bool on) {
    if (w.want_epollout == on) return;
    w.want_epollout = on;
    loop_.modify(w.transport.fd(), on ? (EPOLLIN | EPOLLOUT) : EPOLLIN, token);
  }
  // The connect or handshake ran past the connect timeout: its outcome (the TLS failure noted).
  measure::Outcome wire_timed_out(bool handshaking);

  // A slot's lifecycle (worker_connection.cc): it opens by attaching to its link.
  void open_connection(Connection& c, int64_t now) { attach_to_link(c, now); }
  void close_connection(Connection& c);
  void on_connect_failed(Connection& c, int64_t now, measure::Outcome outcome);
  void on_transport_ready(Connection& c, int64_t now);
  void note_tls_failure(std::string_view reason);
  void on_ready(Connection& c, int64_t now);
  void start_request(Connection& c, int64_t intended_ns, int64_t now);
  // A response came whole (from the connection's session: HTTP/1.1's, or an HTTP/2 stream),
  // its first byte at `first_byte_ns`: its outcome, and what the connection does next.
  void complete_request(Connection& c, const workload::ResponseView& response,
                        int64_t first_byte_ns, int64_t now, bool reusable);
  void fail_request(Connection& c, measure::Outcome outcome, int64_t now);
  void fail_unsent_step(Connection& c, measure::Outcome outcome, int64_t intended_ns);
  // Flows: what follows a step, the next step, and the end of an iteration.
  void after_step(Connection& c, const workload::Session::StepEnd& end, int64_t now, bool reusable);
  bool continue_iteration(Connection& c, int64_t now);
  bool may_continue_iteration(const Connection& c) const;
  void reopen_mid_iteration(Connection& c, int64_t now);
  void end_iteration(Connection& c, const workload::Session::StepEnd& end, int64_t now);
  void pause_after_iteration(Connection& c, int64_t now, int64_t pause_ns, bool reusable);
  void abandon_iteration(Connection& c);
  void fire_think_timers(int64_t now);
  void record_named(const Connection& c, measure::Outcome outcome, int64_t now, bool responded) {
    recorder_.count_named(c.session.request(), c.intended_ns, outcome, now, responded);
  }
  http::BodySink* begin_stream(Connection& c, const workload::CompiledRequest& request,
                               int64_t intended_ns, int64_t now);
  // A stream that has begun (its first byte came) and got no byte for the stream idle timeout.
  bool stream_idle(const Connection& c, int64_t now) const {
    return spec_.stream_idle_timeout_ns > 0 && c.stream_body && c.stream_body->active() &&
           c.stream_body->begun() &&
           now - c.stream_body->last_read_ns() > spec_.stream_idle_timeout_ns;
  }
  void lose_idle_connection(Connection& c, int64_t now, bool orderly_close);
  void back_off(Connection& c, int64_t now);
  void reopen_after_loss(Connection& c, int64_t now);
  void reopen_after_loss_open_loop(Connection& c, int64_t now);
  int slot_of(const Connection& c) const { return static_cast<int>(&c - connections_.data()); }
  uint64_t token_of(const Connection& c) const { return static_cast<uint64_t>(slot_of(c)); }

  // Links (worker_link.cc): the lifecycle every protocol shares, and the session seam.
  Link& link_of(const Connection& c) {
    return links_[static_cast<size_t>(slot_of(c) / slots_per_link_)];
  }
  int first_slot_of(const Link& link) const {
    return static_cast<int>(&link - links_.data()) * slots_per_link_;
  }
  // The slots of a link: [first_slot_of(link), end_slot_of(link)).
  int end_slot_of(const Link& link) const {
    return std::min(first_slot_of(link) + slots_per_link_, static_cast<int>(connections_.size()));
  }
  void attach_to_link(Connection& c, int64_t now);
  void detach_from_link(Connection& c);
  void open_link(Link& link, int64_t now);
  void close_link(Link& link);
  void on_link_event(Link& link, uint32_t events);
  void after_link_wire_step(Link& link, WireStep step, int64_t now);
  uint64_t token_of(const Link& link) const { return static_cast<uint64_t>(&link - links_.data()); }
  void set_link_epollout(Link& link, bool on);
  // Registers for what the transport waits for (readable always; writable when it says so).
  void wait_for(Link& link, net::IoStatus want) {
    set_link_epollout(link, want == net::IoStatus::kWantWrite);
  }
  void lose_link(Link& link, int64_t now, measure::Outcome outcome, bool orderly);
  void fail_link_open(Link& link, int64_t now, measure::Outcome outcome);
  void start_ready_slots(int64_t now);
  void sweep_links(int64_t now);
  // The session seam: what each protocol does with a link. A protocol is a session class
  // (Http1Session, http::H2Session) and the four calls below, each a switch on the protocol to
  // its file; the slots and the links above are the same for every protocol.
  // The link's wire is open: its session begins.
  void open_session(Link& link, int64_t now);
  // An event on a link whose session runs.
  void on_session_event(Link& link, uint32_t events);
  // A slot's request goes to its link's session.
  void submit(Connection& c, const workload::CompiledRequest& request,
              const http::ResponseCapture& capture);
  // A request in flight ends without a response: over HTTP/1.1 the connection goes with it
  // (fail_request); over HTTP/2 only its stream does.
  void fail_in_flight(Connection& c, measure::Outcome outcome, int64_t now);

  // HTTP/1.1 (worker_http1.cc): a link of one slot.
  void on_http1_event(Link& link, Connection& c, uint32_t events);
  void write_request(Link& link, Connection& c);
  void read_response(Link& link, Connection& c);
  std::optional<bool> lost_while_idle(Link& link);
  measure::Outcome lost_outcome(const Link& link);

  // HTTP/2 (worker_h2.cc).
  bool slot_usable(const Connection& c) const;
  // The read's time for every streamed slot of the link: the session hands DATA to any of them.
  void stamp_link_streams(Link& link, int64_t now);
  void on_h2_event(Link& link, uint32_t events);
  void start_h2(Link& link);
  void on_link_ready(Link& link, int64_t now);
  void follow_stream_limit(Link& link, int64_t now);
  void read_link(Link& link);
  void flush_link(Link& link);
  void mark_dirty(Link& link);
  void flush_dirty_links();
  void settle_link(Link& link, int64_t now);
  void end_stream(Connection& c, int64_t now);
  void leave_going_away_link(Link& link, int64_t now);
  void submit_stream(Connection& c, std::string_view request, http::ResponseCapture capture);
  void fail_stream(Connection& c, measure::Outcome outcome, int64_t now);
  void cancel_stream(Connection& c);

  bool may_start_request() const { return !draining_ && schedule_.budget_left(); }
  http::ResponseCapture capture_for(const workload::CompiledRequest& request) const {
    http::ResponseCapture capture = request.capture;
    capture.headers = capture.headers || spec_.watch_limit_headers;
    return capture;
  }

  const LoadSpec& spec_;
  const workload::Workload& workload_;
  const int64_t start_ns_;
  RunControl& control_;
  WorkerLoop loop_;
  int wake_fd_;
  // This worker's shard of the whole load: shard_ of shards_ (LoadSpec::segment).
  const int shard_;
  const int shards_;
  // The slots a link carries: HTTP/1.1 one; HTTP/2 h2_streams. Every count of connections in
  // the spec is of links; the slots are these many times as many.
  const int slots_per_link_;

  workload::WorkerContext context_;  // random stream and data cursors of this worker
  WindowRecorder recorder_;          // what this worker's load did, window by window
  WorkerSchedule schedule_;          // when its requests arrive, or how many users are active
  bool streams_ = false;             // some request is read as a stream (StreamBody per slot)
  int iterations_in_progress_ = 0;   // begun and not ended or abandoned (flows between steps)
  net::TimerHeap think_timers_;      // flows' think times; token: the connection's slot
  std::vector<Connection> connections_;
  std::vector<int> idle_;  // open loop: indexes of idle connections
  int busy_ = 0;           // connections with a request in flight
  bool draining_ = false;
  int64_t drain_started_ns_ = 0;
  int64_t drain_deadline_ns_ = 0;
  int64_t next_sweep_ns_ = 0;

  // LoadSpec::sources: the local address this worker's connections are bound to (null: any).
  const net::Address* source_ = nullptr;
  // LoadSpec::targets: the number, counted across the workers, of this worker's first
  // connection slot (for HTTP/2, of its first link's first slot).
  int64_t first_slot_ = 0;
  // Where a connection (or an HTTP/2 link, given its first slot) connects to.
  const net::Address& address_of_slot(int slot) const;

  static constexpr size_t kReadBufferBytes = 64 * 1024;
  static constexpr int kMaxReadsPerEvent = 4;  // 256 KiB of one connection per turn of the loop
  static constexpr size_t kMaxLinkReadBytes = 256 * 1024;  // HTTP/2: the same bound, in bytes
  std::vector<char> read_buffer_;
  std::string failure_;
  net::TlsSessionCache tls_sessions_;  // the last session a server gave this worker
  std::string first_tls_failure_;
  // Links: an epoll token is a link's index.
  http::H2Memory h2_memory_;  // where HTTP/2 links' sessions allocate: declared first, freed last
  std::vector<Link> links_;
  std::vector<int> ready_slots_;  // HTTP/2: slots whose link is ready: started at the turn's end
  std::vector<int> dirty_links_;
  std::vector<http::H2Stream*> ended_streams_;  // reused while a link's ended streams settle
  http::H2RequestHead h2_head_;                 // scratch: nghttp2 copies the header list on submit
  uint32_t h2_server_max_streams_ = UINT32_MAX;  // the lowest limit a server announced
};

}  // namespace proofload::engine
