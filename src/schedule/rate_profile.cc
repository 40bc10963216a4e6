// Piecewise-linear target profile (see rate_profile.h). Immutable after construction.
#include "schedule/rate_profile.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "common/clock.h"
#include "common/usage_error.h"

namespace proofload::schedule {
namespace {

void check_target(double target, size_t stage_index) {
  if (!std::isfinite(target) || target < 0) {
    throw UsageError("stage " + std::to_string(stage_index + 1) + ": target " +
                     std::to_string(target) + " must be a finite number >= 0");
  }
}

// Integral over the first `elapsed_ns` of a segment: from*u + slope*u^2/2, u in seconds.
long double partial_integral(const Profile::Segment& s, int64_t elapsed_ns) {
  const long double u_s = static_cast<long double>(elapsed_ns) / kNsPerS;
  const long double duration_s = static_cast<long double>(s.duration_ns) / kNsPerS;
  const long double slope_per_s = (static_cast<long double>(s.to) - s.from) / duration_s;
  return s.from * u_s + slope_per_s * u_s * u_s / 2;
}

}  // namespace

Profile::Profile(std::vector<Segment> segments) : segments_(std::move(segments)) {
  if (!segments_.empty()) {
    const Segment& last = segments_.back();
    duration_ns_ = last.start_ns + last.duration_ns;
    total_integral_ = last.integral_before + partial_integral(last, last.duration_ns);
  }
}

Profile Profile::constant(double target, int64_t duration_ns) {
  if (duration_ns < 0) throw UsageError("a run's duration must not be negative");
  if (!std::isfinite(target) || target < 0) {
    throw UsageError("a run's rate or connection count must be a finite number >= 0");
  }
  return staged({Stage{duration_ns, target}}, target);
}

Profile Profile::staged(std::vector<Stage> stages, double initial) {
  check_target(initial, 0);
  std::vector<Segment> segments;
  segments.reserve(stages.size());
  int64_t start_ns = 0;
  long double integral = 0;
  double from = initial;
  for (size_t i = 0; i < stages.size(); ++i) {
    const Stage& stage = stages[i];
    check_target(stage.target, i);
    if (stage.duration_ns < 0) {
      throw UsageError("stage " + std::to_string(i + 1) + ": duration must not be negative");
    }
    if (stage.duration_ns > std::numeric_limits<int64_t>::max() - start_ns) {
      throw UsageError("stages: the total duration is too large");
    }
    if (stage.duration_ns > 0) {
      Segment segment{start_ns, stage.duration_ns, from, stage.target, integral};
      integral += partial_integral(segment, stage.duration_ns);
      segments.push_back(segment);
      start_ns += stage.duration_ns;
    }
    from = stage.target;  // a zero-length stage is a jump
  }
  return Profile(std::move(segments));
}

size_t Profile::segment_at(int64_t t_ns) const {
  // The last segment starting at or before t.
  const auto after = std::upper_bound(segments_.begin(), segments_.end(), t_ns,
                                      [](int64_t t, const Segment& s) { return t < s.start_ns; });
  return static_cast<size_t>(after - segments_.begin()) - 1;
}

double Profile::target_at(int64_t t_ns) const {
  if (t_ns < 0 || t_ns >= duration_ns_) return 0;
  const Segment& s = segments_[segment_at(t_ns)];
  const long double fraction =
      static_cast<long double>(t_ns - s.start_ns) / static_cast<long double>(s.duration_ns);
  return static_cast<double>(s.from + (static_cast<long double>(s.to) - s.from) * fraction);
}

long double Profile::integral_until(int64_t t_ns) const {
  if (t_ns <= 0) return 0;
  if (t_ns >= duration_ns_) return total_integral_;
  const Segment& s = segments_[segment_at(t_ns)];
  return s.integral_before + partial_integral(s, t_ns - s.start_ns);
}

}  // namespace proofload::schedule
