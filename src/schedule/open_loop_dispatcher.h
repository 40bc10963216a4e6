// What happens to each open-loop arrival: sent now, queued (maybe opening one more connection),
// or never started. Pure bookkeeping over counts; the engine owns the sockets and follows the
// decisions. One per worker, not thread-safe. No allocation after construction, no throwing
// after construction.
//
// The engine only *reports* what happened to its connections (opening, ready, lost); every
// count the decisions depend on is changed here, by the decision itself, so the engine cannot
// get the bookkeeping out of step by forgetting to adjust a counter:
//   - on_arrival returning kSendNow has already counted one idle connection as busy;
//   - on_connection_ready returning nullopt has already counted that connection as idle;
//   - on_arrival returning kQueuedOpenNew has reserved room for the connection it asks for,
//     released when the engine reports on_connection_opening.
//
// Invariants (checked by invariants_hold(), asserted after every step in the tests):
//   I1  0 <= idle() <= open_or_opening()
//   I2  idle() > 0 implies queued() == 0: work never waits while a connection is idle
//   I3  intended() == started() + never_started() + queued(): every arrival is accounted for,
//       exactly once, at all times
//   I4  open_or_opening() + pending_growth() <= max_connections, as long as the engine opens
//       only the pool and the connections it is asked for
//   I5  queued() <= queue_capacity + max_connections (see on_arrival: an arrival that makes the
//       pool grow waits for its own connection even when the bounded queue is full)
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace proofload::schedule {

class OpenLoopDispatcher {
 public:
  struct Limits {
    int pool;             // connections the engine opens at the start (>= 0)
    int max_connections;  // the pool may grow to this when arrivals find none idle (>= pool, >= 1)
    size_t queue_capacity;  // arrivals that may wait beyond max_connections (<= kMaxQueueCapacity)
    int64_t max_wait_ns;    // a queued arrival waiting longer than this is never started (>= 0)
  };
  // Bounds the preallocated ring buffer (8 bytes an entry).
  static constexpr size_t kMaxQueueCapacity = size_t{1} << 24;

  // Preallocates the queue. Throws UsageError on limits outside the ranges above.
  explicit OpenLoopDispatcher(Limits limits);

  enum class Action {
    kSendNow,        // an idle connection takes it (engine: pop an idle connection, send)
    kQueuedOpenNew,  // queued, and the engine should open one more connection (then report
                     // on_connection_opening)
    kQueued,         // queued behind busy/opening connections
    kNeverStarted    // the queue was full: record it as never started
  };
  // An arrival due at `intended_ns` (the engine calls this at or after that time). Queued
  // arrivals already older than max_wait_ns at intended_ns are dropped first (never started).
  // When no connection is idle and open_or_opening() + pending_growth() < max_connections, the
  // pool grows by one (kQueuedOpenNew); that arrival is queued even if the bounded queue is
  // full, since the connection it asked for will take it.
  Action on_arrival(int64_t intended_ns);

  // Up to when every arrival would be never started, if nothing else happened: no connection is
  // idle, the pool cannot grow and the queue is full. Until its oldest entry expires (and frees a
  // place) or, with no queue at all, for ever (INT64_MAX); nullopt when an arrival at
  // `intended_ns` could be sent or queued. Expires entries up to `intended_ns` first.
  std::optional<int64_t> saturated_until(int64_t intended_ns);
  // `count` arrivals that saturated_until() says cannot start, counted at once: intended and
  // never started, `before_split` of them intended before the split. (The engine skips them in
  // bulk: one by one, a rate far above what the generator can send would take longer than the
  // run itself.)
  void never_start(int64_t count, int64_t before_split);

  // A connection is ready for work: it just connected, or it finished a request. Queued
  // requests older than max_wait_ns at now_ns are dropped first (never started). Returns the
  // intended time of the oldest queued request, which the connection must send now (its
  // latency counts from that time), or nullopt: the connection is now counted idle.
  std::optional<int64_t> on_connection_ready(int64_t now_ns);

  // A connection was lost (closed by the peer, failed to connect, or closed by the engine).
  // `was_idle`: the engine had it in its idle set. The engine reopens it if
  // should_open_connection() says so (and reports on_connection_opening).
  void on_connection_lost(bool was_idle);

  // The engine started opening a connection: one of the pool, a reopen, or the one a
  // kQueuedOpenNew asked for.
  void on_connection_opening();

  // Whether the engine should open (or reopen) a connection now: the pool is not full, or work
  // waits with no connection idle and room to grow. For the engine's reconnect decision.
  bool should_open_connection() const;

  // A connection opened for queued work failed to connect: the oldest queued request fails
  // with it (the engine records a connect error), so a dead server shows as connect errors, not
  // as work that merely never started. Counted as started. Returns its intended time, or
  // nullopt when nothing was queued.
  std::optional<int64_t> fail_oldest_queued();

  // Drops queued requests that waited longer than max_wait_ns (from a periodic sweep, so
  // requests do not sit expired while every connection is stuck).
  void expire(int64_t now_ns);
  // End of run: every queued request becomes never started.
  void abandon_queue();

  int64_t intended() const { return intended_; }            // arrivals so far
  int64_t started() const { return started_; }              // handed to a connection to send
  int64_t never_started() const { return never_started_; }  // queue full, expired, abandoned
  // Never-started requests are also counted by which side of `split_ns` they were intended on
  // (the engine splits the warm-up from the measured part this way). Default: no split.
  void set_split(int64_t split_ns) { split_ns_ = split_ns; }
  int64_t never_started_before_split() const { return never_started_before_split_; }
  size_t queued() const { return size_; }
  int idle() const { return idle_; }
  int open_or_opening() const { return open_or_opening_; }
  // Connections asked for by kQueuedOpenNew that the engine has not yet reported opening.
  int pending_growth() const { return pending_growth_; }
  const Limits& limits() const { return limits_; }

  // I1-I5 above.
  bool invariants_hold() const;

 private:
  void push(int64_t intended_ns);
  int64_t pop();
  void count_never_started(int64_t intended_ns);

  Limits limits_;
  std::vector<int64_t> ring_;  // intended times, FIFO; fixed size, never reallocated
  size_t head_ = 0;            // index of the oldest queued request
  size_t size_ = 0;
  int open_or_opening_ = 0;
  int idle_ = 0;
  int pending_growth_ = 0;
  int64_t intended_ = 0;
  int64_t started_ = 0;
  int64_t never_started_ = 0;
  int64_t split_ns_ = INT64_MIN;
  int64_t never_started_before_split_ = 0;
};

}  // namespace proofload::schedule
