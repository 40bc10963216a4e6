// When requests are due: open-loop arrival times from a rate Profile, split across workers, and
// the closed-loop share of connections per worker. Pure functions of simulated time. An
// ArrivalSchedule belongs to one worker (not thread-safe); each worker owns its own.
#pragma once

#include <cstdint>
#include <optional>

#include "schedule/rate_profile.h"

namespace proofload::schedule {

// Time (ns from the run start) of arrival k of the whole (unsharded) schedule, or nullopt if
// the schedule ends first. Arrival k is due at the first instant from which the integral of
// the rate exceeds k: a constant 1000/s gives 0, 1 ms, 2 ms...; a ramp from 0 has its first
// arrival at the ramp's start; a pause at rate 0 delays the next arrival until the rate
// resumes. Computed in closed form from k (solving the ramp's quadratic), rounded to the
// nearest ns, so there is no drift however long the run. Arrivals at or after the end are not
// part of the run. `segment_hint` (optional) speeds up calls with growing k.
std::optional<int64_t> arrival_time_ns(const Profile& profile, int64_t k,
                                       size_t* segment_hint = nullptr);

class ArrivalSchedule {
 public:
  // Worker `shard` of `shards` takes arrivals k = shard, shard + shards, ... so the workers
  // together produce the whole schedule, each arrival once. `max_count` > 0 caps the arrivals
  // of all shards together (only k < max_count are due), 0 = no cap. Throws
  // std::invalid_argument on shard outside [0, shards) or a negative max_count.
  ArrivalSchedule(Profile profile, int shard = 0, int shards = 1, int64_t max_count = 0);

  // Time (ns from the run start) of this shard's next arrival, or nullopt when it is over.
  // Does not advance. Non-decreasing from call to call.
  std::optional<int64_t> peek() const { return next_ns_; }
  // Index k (in the whole schedule) of the arrival peek() returns: for request numbering.
  int64_t next_index() const { return next_k_; }
  void advance();
  // Skips this shard's arrivals due at or before `t_ns` (from the run start) without handing
  // them out, and returns how many; `before_split` is set to how many of them were due before
  // `split_ns`. For arrivals that cannot start anyway, counted at once (OpenLoopDispatcher).
  int64_t skip_through(int64_t t_ns, int64_t split_ns, int64_t& before_split);
  // Number of arrivals, all shards together (and within max_count), due strictly before t:
  // what the whole run should have started by t. Exactly consistent with arrival_time_ns.
  int64_t total_arrivals_until(int64_t t_ns) const;

  const Profile& profile() const { return profile_; }

 private:
  void compute_next();

  Profile profile_;
  int shards_;
  int64_t max_count_;
  int64_t next_k_;
  size_t segment_hint_ = 0;
  std::optional<int64_t> next_ns_;
};

// Closed loop: how many of this shard's connections should be active at t, when connections
// 0..N-1 are dealt round-robin to shards (connection i belongs to shard i % shards) and
// N(t) = floor(profile.target_at(t)) (with a relative 1e-12 of slack for rounding error).
int connections_for_shard_at(const Profile& p, int64_t t_ns, int shard, int shards);

// -n split: the requests shard `shard` makes of `total`: total / shards, and one more for the
// first total % shards shards. The shares add up to total.
int64_t share_of(int64_t total, int shard, int shards);

}  // namespace proofload::schedule
