// Open-loop dispatch bookkeeping (see open_loop_dispatcher.h for the invariants). Not
// thread-safe; allocates only in the constructor.
#include "schedule/open_loop_dispatcher.h"

#include <cassert>
#include <cstdint>
#include <string>

#include "common/usage_error.h"

namespace proofload::schedule {

OpenLoopDispatcher::OpenLoopDispatcher(Limits limits) : limits_(limits) {
  if (limits.pool < 0) throw UsageError("the connection pool must not be negative");
  if (limits.max_connections < 1 || limits.max_connections < limits.pool) {
    throw UsageError("max connections (" + std::to_string(limits.max_connections) +
                     ") must be at least 1 and at least the pool (" + std::to_string(limits.pool) +
                     ")");
  }
  if (limits.queue_capacity > kMaxQueueCapacity) {
    throw UsageError("the request queue (" + std::to_string(limits.queue_capacity) +
                     ") must not exceed " + std::to_string(kMaxQueueCapacity));
  }
  if (limits.max_wait_ns < 0) throw UsageError("the maximum queue wait must not be negative");
  // Room for I5: the bounded queue plus one arrival per connection the pool may grow by.
  ring_.resize(limits.queue_capacity + static_cast<size_t>(limits.max_connections));
}

void OpenLoopDispatcher::push(int64_t intended_ns) {
  ring_[(head_ + size_) % ring_.size()] = intended_ns;
  ++size_;
}

int64_t OpenLoopDispatcher::pop() {
  const int64_t intended_ns = ring_[head_];
  head_ = (head_ + 1) % ring_.size();
  --size_;
  return intended_ns;
}

OpenLoopDispatcher::Action OpenLoopDispatcher::on_arrival(int64_t intended_ns) {
  ++intended_;
  // The arrival's own time is a lower bound of now: nothing dropped here was not expired.
  expire(intended_ns);
  if (idle_ > 0) {  // by I2 the queue is empty: no one is ahead of this arrival
    --idle_;
    ++started_;
    return Action::kSendNow;
  }
  const bool grow = open_or_opening_ + pending_growth_ < limits_.max_connections;
  if ((!grow && size_ >= limits_.queue_capacity) || size_ == ring_.size()) {
    count_never_started(intended_ns);
    return Action::kNeverStarted;
  }
  push(intended_ns);
  if (grow) {
    ++pending_growth_;
    return Action::kQueuedOpenNew;
  }
  return Action::kQueued;
}

std::optional<int64_t> OpenLoopDispatcher::saturated_until(int64_t intended_ns) {
  expire(intended_ns);
  const bool grow = open_or_opening_ + pending_growth_ < limits_.max_connections;
  if (idle_ > 0 || grow || (size_ < limits_.queue_capacity && size_ < ring_.size())) {
    return std::nullopt;
  }
  if (size_ == 0) return INT64_MAX;  // no queue: nothing will ever free a place by itself
  const int64_t head = ring_[head_];
  // The head expires once an arrival is more than max_wait_ns after it.
  return head > INT64_MAX - limits_.max_wait_ns ? INT64_MAX : head + limits_.max_wait_ns;
}

void OpenLoopDispatcher::never_start(int64_t count, int64_t before_split) {
  intended_ += count;
  never_started_ += count;
  never_started_before_split_ += before_split;
}

std::optional<int64_t> OpenLoopDispatcher::on_connection_ready(int64_t now_ns) {
  expire(now_ns);
  if (size_ > 0) {
    ++started_;
    return pop();  // the connection stays counted as not idle: it is busy again
  }
  // A ready report for a connection never reported opening would break I1: not counted.
  assert(idle_ < open_or_opening_);
  if (idle_ < open_or_opening_) ++idle_;
  return std::nullopt;
}

void OpenLoopDispatcher::on_connection_lost(bool was_idle) {
  assert(open_or_opening_ > 0);
  if (open_or_opening_ > 0) --open_or_opening_;
  if (was_idle && idle_ > 0) --idle_;
  // Keep I1 even if the engine reported a busy connection as not idle by mistake.
  if (idle_ > open_or_opening_) idle_ = open_or_opening_;
}

void OpenLoopDispatcher::on_connection_opening() {
  ++open_or_opening_;
  if (pending_growth_ > 0) --pending_growth_;
}

std::optional<int64_t> OpenLoopDispatcher::fail_oldest_queued() {
  if (size_ == 0) return std::nullopt;
  ++started_;
  return pop();
}

bool OpenLoopDispatcher::should_open_connection() const {
  const int planned = open_or_opening_ + pending_growth_;
  if (planned < limits_.pool) return true;
  return size_ > 0 && idle_ == 0 && planned < limits_.max_connections;
}

void OpenLoopDispatcher::expire(int64_t now_ns) {
  // Waits only grow from the head: the queue is in arrival order, and arrivals come in time
  // order. Were they not, a later-expiring head would only delay the drop, never start an
  // expired request: the head is checked again right before it is handed out.
  while (size_ > 0 && now_ns - ring_[head_] > limits_.max_wait_ns) count_never_started(pop());
}

void OpenLoopDispatcher::abandon_queue() {
  while (size_ > 0) count_never_started(pop());
}

void OpenLoopDispatcher::count_never_started(int64_t intended_ns) {
  ++never_started_;
  if (intended_ns < split_ns_) ++never_started_before_split_;
}

bool OpenLoopDispatcher::invariants_hold() const {
  const bool i1 = 0 <= idle_ && idle_ <= open_or_opening_;
  const bool i2 = idle_ == 0 || size_ == 0;
  const bool i3 = intended_ == started_ + never_started_ + static_cast<int64_t>(size_);
  const bool i4 =
      pending_growth_ >= 0 && open_or_opening_ + pending_growth_ <= limits_.max_connections;
  const bool i5 = size_ <= limits_.queue_capacity + static_cast<size_t>(limits_.max_connections);
  return i1 && i2 && i3 && i4 && i5;
}

}  // namespace proofload::schedule
