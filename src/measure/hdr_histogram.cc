// HdrHistogram geometry, queries and merge (the V2 codec is in hdr_codec.cc).
// Not thread-safe; see hdr_histogram.h.
#include "measure/hdr_histogram.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace proofload::measure {

HdrHistogram::HdrHistogram(int64_t lowest_discernible, int64_t highest_trackable,
                           int significant_figures)
    : lowest_discernible_(lowest_discernible),
      highest_trackable_(highest_trackable),
      significant_figures_(significant_figures) {
  if (lowest_discernible < 1) {
    throw std::invalid_argument("HdrHistogram: lowest discernible value must be >= 1");
  }
  if (highest_trackable / 2 < lowest_discernible) {
    throw std::invalid_argument(
        "HdrHistogram: highest trackable value must be >= 2 * lowest discernible value");
  }
  if (significant_figures < 1 || significant_figures > 5) {
    throw std::invalid_argument("HdrHistogram: significant figures must be in [1, 5]");
  }
  // Enough sub-buckets that values below 2 * 10^figures are kept at unit resolution.
  int64_t single_unit_limit = 2;
  for (int i = 0; i < significant_figures; ++i) single_unit_limit *= 10;
  int sub_bucket_count_magnitude = 0;
  while ((int64_t{1} << sub_bucket_count_magnitude) < single_unit_limit) {
    ++sub_bucket_count_magnitude;
  }
  unit_magnitude_ = 63 - std::countl_zero(static_cast<uint64_t>(lowest_discernible));
  sub_bucket_half_count_magnitude_ = std::max(sub_bucket_count_magnitude, 1) - 1;
  if (unit_magnitude_ + sub_bucket_half_count_magnitude_ > 61) {
    throw std::invalid_argument(
        "HdrHistogram: lowest discernible value too large for the significant figures");
  }
  sub_bucket_count_ = 1 << (sub_bucket_half_count_magnitude_ + 1);
  sub_bucket_half_count_ = sub_bucket_count_ / 2;
  sub_bucket_mask_ = (int64_t{sub_bucket_count_} - 1) << unit_magnitude_;
  leading_zero_count_base_ = 64 - unit_magnitude_ - sub_bucket_half_count_magnitude_ - 1;

  // Buckets needed so that highest_trackable falls inside the last one.
  int64_t smallest_untrackable = int64_t{sub_bucket_count_} << unit_magnitude_;
  int buckets = 1;
  while (smallest_untrackable <= highest_trackable) {
    if (smallest_untrackable > INT64_MAX / 2) {
      ++buckets;
      break;
    }
    smallest_untrackable <<= 1;
    ++buckets;
  }
  bucket_count_ = buckets;
  full_size_ = static_cast<size_t>(bucket_count_ + 1) * static_cast<size_t>(sub_bucket_half_count_);
}

void HdrHistogram::grow_to(int index) {
  const auto half = static_cast<size_t>(sub_bucket_half_count_);
  const size_t wanted = (static_cast<size_t>(index) / half + 1) * half;
  counts_.resize(std::min(full_size_, std::max(wanted, counts_.size())), 0);
}

bool HdrHistogram::same_counts(const HdrHistogram& other) const {
  if (!same_configuration(other) || total_count_ != other.total_count_) return false;
  // The allocated prefixes may differ in length: what lies past the shorter one must be zero.
  const std::vector<int64_t>& longer = counts_.size() >= other.counts_.size() ? counts_ : other.counts_;
  const std::vector<int64_t>& shorter = &longer == &counts_ ? other.counts_ : counts_;
  return std::equal(shorter.begin(), shorter.end(), longer.begin()) &&
         std::all_of(longer.begin() + static_cast<ptrdiff_t>(shorter.size()), longer.end(),
                     [](int64_t c) { return c == 0; });
}

int64_t HdrHistogram::value_from_index(int index) const {
  int bucket = (index >> sub_bucket_half_count_magnitude_) - 1;
  int64_t sub_bucket = (index & (sub_bucket_half_count_ - 1)) + sub_bucket_half_count_;
  if (bucket < 0) {
    sub_bucket -= sub_bucket_half_count_;
    bucket = 0;
  }
  return sub_bucket << (bucket + unit_magnitude_);
}

int64_t HdrHistogram::size_of_equivalent_range(int64_t value) const {
  const int bucket =
      leading_zero_count_base_ - std::countl_zero(static_cast<uint64_t>(value | sub_bucket_mask_));
  const int64_t sub_bucket = value >> (bucket + unit_magnitude_);
  const int adjusted = (sub_bucket >= sub_bucket_count_) ? bucket + 1 : bucket;
  return int64_t{1} << (unit_magnitude_ + adjusted);
}

int64_t HdrHistogram::lowest_equivalent(int64_t value) const {
  value = std::max<int64_t>(value, 0);
  const int bucket =
      leading_zero_count_base_ - std::countl_zero(static_cast<uint64_t>(value | sub_bucket_mask_));
  const int64_t sub_bucket = value >> (bucket + unit_magnitude_);
  return sub_bucket << (bucket + unit_magnitude_);
}

int64_t HdrHistogram::highest_equivalent(int64_t value) const {
  value = std::max<int64_t>(value, 0);
  const int64_t low = lowest_equivalent(value);
  const int64_t size = size_of_equivalent_range(value);
  // The last bucket of a histogram near INT64_MAX would overflow; saturate.
  return (low > INT64_MAX - size) ? INT64_MAX : low + size - 1;
}

void HdrHistogram::merge(const HdrHistogram& other) {
  if (!same_configuration(other)) {
    throw std::invalid_argument(
        "HdrHistogram::merge: configurations differ (" + std::to_string(lowest_discernible_) +
        ".." + std::to_string(highest_trackable_) + "/" + std::to_string(significant_figures_) +
        " vs " + std::to_string(other.lowest_discernible_) + ".." +
        std::to_string(other.highest_trackable_) + "/" +
        std::to_string(other.significant_figures_) + ")");
  }
  if (other.total_count_ == 0) return;
  if (other.counts_.size() > counts_.size()) counts_.resize(other.counts_.size(), 0);
  int64_t* dst = counts_.data();
  const int64_t* src = other.counts_.data();
  const size_t n = other.counts_.size();
  for (size_t i = 0; i < n; ++i) dst[i] += src[i];
  total_count_ += other.total_count_;
  clamped_count_ += other.clamped_count_;
  sum_ += other.sum_;
  min_value_ = std::min(min_value_, other.min_value_);
  max_value_ = std::max(max_value_, other.max_value_);
}

void HdrHistogram::reset() {
  std::fill(counts_.begin(), counts_.end(), 0);
  total_count_ = 0;
  clamped_count_ = 0;
  sum_ = 0;
  min_value_ = INT64_MAX;
  max_value_ = 0;
}

int64_t HdrHistogram::min() const { return total_count_ == 0 ? 0 : lowest_equivalent(min_value_); }

int64_t HdrHistogram::max() const { return total_count_ == 0 ? 0 : highest_equivalent(max_value_); }

HdrHistogram::ExactTotals HdrHistogram::exact_totals() const {
  return {static_cast<int64_t>(sum_ >> 64), static_cast<uint64_t>(sum_), clamped_count_};
}

bool HdrHistogram::restore_exact_totals(const ExactTotals& totals) {
  if (totals.sum_high < 0) return false;
  __extension__ typedef unsigned __int128 Unsigned128;
  const auto sum = static_cast<Int128>(
      (static_cast<Unsigned128>(static_cast<uint64_t>(totals.sum_high)) << 64) | totals.sum_low);
  if (sum > static_cast<Int128>(highest_trackable_) * total_count_ ||
      totals.clamped < 0 || totals.clamped > total_count_) {
    return false;
  }
  sum_ = sum;
  clamped_count_ = totals.clamped;
  return true;
}

double HdrHistogram::mean() const {
  if (total_count_ == 0) return 0.0;
  return static_cast<double>(static_cast<long double>(sum_) /
                             static_cast<long double>(total_count_));
}

int64_t HdrHistogram::value_at_percentile(double percentile) const {
  if (total_count_ == 0) return 0;
  if (!(percentile > 0.0)) return min();  // also NaN
  percentile = std::min(percentile, 100.0);
  // Nearest rank: ceil(p% of the count). The product may come out one ulp above an integer
  // (99.9% of 1000 = 999.0000000000001); taking an ulp off first keeps such ranks exact, as
  // HdrHistogram does.
  const double fp_count = (percentile / 100.0) * static_cast<double>(total_count_);
  const double ulp = (fp_count > 0.0) ? std::ldexp(1.0, std::ilogb(fp_count) - 52) : 0.0;
  const double rank_fp = std::ceil(fp_count - ulp);
  const int64_t rank = (rank_fp >= static_cast<double>(total_count_))
                           ? total_count_
                           : std::max<int64_t>(static_cast<int64_t>(rank_fp), 1);
  // Counters above max_value_'s index are zero: stop scanning there.
  const int last = index_of(max_value_);
  int64_t running = 0;
  for (int i = 0; i <= last; ++i) {
    running += counts_[i];
    if (running >= rank) return highest_equivalent(value_from_index(i));
  }
  return max();
}

int64_t HdrHistogram::count_at_or_below(int64_t value) const {
  if (value < 0 || total_count_ == 0) return 0;
  if (value >= max_value_) return total_count_;
  const int last = index_of(value);
  int64_t running = 0;
  for (int i = 0; i <= last; ++i) running += counts_[i];
  return running;
}

void HdrHistogram::establish_totals_from_counts() {
  total_count_ = 0;
  sum_ = 0;
  min_value_ = INT64_MAX;
  max_value_ = 0;
  const int n = static_cast<int>(counts_.size());
  for (int i = 0; i < n; ++i) {
    const int64_t c = counts_[i];
    if (c == 0) continue;
    const int64_t low = value_from_index(i);
    total_count_ += c;  // the decoder bounds the total, so this cannot overflow
    sum_ += static_cast<Int128>(low + size_of_equivalent_range(low) / 2) * c;
    min_value_ = std::min(min_value_, low);
    max_value_ = std::max(max_value_, low);
  }
}

}  // namespace proofload::measure
