// Open-loop arrival times and per-shard shares (see arrivals.h). No allocation after the
// ArrivalSchedule is built; advance() is O(1) amortised.
#include "schedule/arrivals.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "common/clock.h"

namespace proofload::schedule {

std::optional<int64_t> arrival_time_ns(const Profile& profile, int64_t k, size_t* segment_hint) {
  const auto& segments = profile.segments();
  if (k < 0) return std::nullopt;
  const auto target = static_cast<long double>(k);
  // Arrival k lies in the first segment whose end integral exceeds k (strictly: where the
  // integral only touches k, as a ramp down to 0 at the end does, there is no arrival k).
  size_t i = segment_hint != nullptr ? *segment_hint : 0;
  if (i >= segments.size() || segments[i].integral_before > target) i = 0;
  while (i < segments.size()) {
    const long double end_integral =
        i + 1 < segments.size() ? segments[i + 1].integral_before : profile.total_integral();
    if (end_integral > target) break;
    ++i;
  }
  if (i == segments.size()) return std::nullopt;
  if (segment_hint != nullptr) *segment_hint = i;

  const Profile::Segment& s = segments[i];
  // Solve from*u + slope*u^2/2 = m for u (seconds into the segment).
  const long double m = std::max(0.0L, target - s.integral_before);
  const long double from = s.from;
  const long double slope_per_s =
      (static_cast<long double>(s.to) - from) / (static_cast<long double>(s.duration_ns) / kNsPerS);
  long double u_ns = 0;
  if (m == 0) {
    u_ns = 0;  // also covers a ramp from 0, where the integral exceeds 0 right after the start
  } else if (slope_per_s == 0) {
    u_ns = m * kNsPerS / from;  // exact for k / rate whenever that is a whole number of ns
  } else {
    // 2m / (from + sqrt(from^2 + 2*slope*m)): the stable form of the quadratic's root, valid
    // for ramps up and down (the discriminant is >= 0 inside the segment; clamp rounding).
    const long double discriminant = std::max(0.0L, from * from + 2 * slope_per_s * m);
    u_ns = 2 * m / (from + std::sqrt(discriminant)) * kNsPerS;
  }
  u_ns = std::clamp(u_ns, 0.0L, static_cast<long double>(s.duration_ns));
  const int64_t t_ns = s.start_ns + std::llround(u_ns);
  if (t_ns >= profile.duration_ns()) return std::nullopt;
  return t_ns;
}

ArrivalSchedule::ArrivalSchedule(Profile profile, int shard, int shards, int64_t max_count)
    : profile_(std::move(profile)), shards_(shards), max_count_(max_count), next_k_(shard) {
  if (shards < 1 || shard < 0 || shard >= shards) {
    throw std::invalid_argument("ArrivalSchedule: shard must be in [0, shards)");
  }
  if (max_count < 0) throw std::invalid_argument("ArrivalSchedule: max_count must be >= 0");
  compute_next();
}

void ArrivalSchedule::compute_next() {
  if (max_count_ > 0 && next_k_ >= max_count_) {
    next_ns_.reset();
    return;
  }
  next_ns_ = arrival_time_ns(profile_, next_k_, &segment_hint_);
}

void ArrivalSchedule::advance() {
  if (!next_ns_) return;  // over: stays over
  next_k_ += shards_;
  compute_next();
}

int64_t ArrivalSchedule::skip_through(int64_t t_ns, int64_t split_ns, int64_t& before_split) {
  before_split = 0;
  if (!next_ns_ || *next_ns_ > t_ns) return 0;
  // This shard's arrivals k = next_k_, next_k_ + shards, ... below `end` (all shards' count).
  auto mine_below = [&](int64_t end) {
    return end > next_k_ ? (end - next_k_ + shards_ - 1) / shards_ : int64_t{0};
  };
  const int64_t skipped = mine_below(total_arrivals_until(t_ns + 1));
  before_split = std::min(skipped, mine_below(total_arrivals_until(split_ns)));
  next_k_ += skipped * shards_;
  compute_next();
  return skipped;
}

int64_t ArrivalSchedule::total_arrivals_until(int64_t t_ns) const {
  // Arrival k is before t exactly when the integral up to t exceeds k, so the count is about
  // ceil(integral); then settle the last one or two by the rounded times themselves, so this
  // agrees with what peek() hands out to the ns.
  if (t_ns <= 0) return 0;
  const long double integral = profile_.integral_until(t_ns);
  constexpr auto kMaxCount = static_cast<long double>(std::numeric_limits<int64_t>::max() / 2);
  int64_t count = static_cast<int64_t>(std::min(std::ceil(integral), kMaxCount));
  auto before_t = [&](int64_t k) {
    const auto t = arrival_time_ns(profile_, k);
    return t && *t < t_ns;
  };
  while (count > 0 && !before_t(count - 1)) --count;
  while (before_t(count)) ++count;
  if (max_count_ > 0) count = std::min(count, max_count_);
  return count;
}

int connections_for_shard_at(const Profile& p, int64_t t_ns, int shard, int shards) {
  // A little slack so that rounding (99.99999999999997 for 100) does not lose a connection;
  // far below what 1 ns of a ramp moves.
  const double raw = p.target_at(t_ns);
  const double target = std::floor(raw + 1e-12 * std::max(1.0, raw));
  const auto total =
      static_cast<int64_t>(std::min(target, double{std::numeric_limits<int>::max()}));
  return static_cast<int>(share_of(total, shard, shards));
}

int64_t share_of(int64_t total, int shard, int shards) {
  if (shards < 1 || shard < 0 || shard >= shards || total <= 0) return 0;
  return total / shards + (shard < total % shards ? 1 : 0);
}

}  // namespace proofload::schedule
