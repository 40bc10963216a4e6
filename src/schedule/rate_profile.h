// The intended arrival rate (open loop) or number of connections (closed loop) over a run, as a
// piecewise-linear function of time from the run start. Immutable after construction, so one
// Profile may be read from any number of threads.
#pragma once

#include <cstdint>
#include <vector>

#include "common/units.h"
#include "schedule/stages.h"

namespace proofload::schedule {

class Profile {
 public:
  // One piece of the profile: over [start_ns, start_ns + duration_ns) the target moves
  // linearly from `from` to `to`. duration_ns > 0 (zero-length stages only set the next from).
  struct Segment {
    int64_t start_ns;
    int64_t duration_ns;
    double from;
    double to;
    // Integral of the target over [0, start_ns), in target x seconds: for a rate, the expected
    // number of arrivals before this segment. long double: summed once, read exactly after.
    long double integral_before;
  };

  // The target held for the whole run (a constant rate or a fixed number of connections).
  static Profile constant(double target, int64_t duration_ns);
  // Stages ramp linearly from the previous stage's target; the first from `initial` (k6's
  // ramping executors start from 0). Throws UsageError on negative/non-finite targets,
  // negative durations or a total that overflows.
  static Profile staged(std::vector<Stage> stages, double initial = 0);

  int64_t duration_ns() const { return duration_ns_; }
  // The target at t, on [0, duration); 0 before the start and from the end on.
  double target_at(int64_t t_ns) const;
  // Integral of the target over [0, t) in target x seconds (expected arrivals for a rate).
  // Constant from the end on.
  long double integral_until(int64_t t_ns) const;
  long double total_integral() const { return total_integral_; }
  const std::vector<Segment>& segments() const { return segments_; }

 private:
  explicit Profile(std::vector<Segment> segments);
  // Index of the segment holding t; requires 0 <= t < duration_ns_.
  size_t segment_at(int64_t t_ns) const;

  std::vector<Segment> segments_;
  int64_t duration_ns_ = 0;
  long double total_integral_ = 0;
};

}  // namespace proofload::schedule
