// An HDR histogram with HdrHistogram's semantics: values are recorded into buckets whose width
// keeps `significant_figures` decimal digits of precision; percentiles are nearest-rank and are
// reported as the highest value equivalent to the bucket (as HdrHistogram's
// getValueAtPercentile); merge is lossless between histograms of the same configuration.
// Written here because no Debian package provides one.
//
// Units are the caller's; proofload records microseconds (1 us .. 1 h).
// Not thread-safe: each worker owns its histograms; merge happens on the coordinator.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace proofload::measure {

class HdrHistogram {
 public:
  // lowest_discernible >= 1, highest_trackable >= 2 * lowest_discernible, figures in [1, 5];
  // throws std::invalid_argument otherwise.
  explicit HdrHistogram(int64_t lowest_discernible = 1, int64_t highest_trackable = 3'600'000'000,
                        int significant_figures = 3);

  // Values above highest_trackable are clamped to it and values below 0 are clamped to 0;
  // both are counted in clamped_count(). A count <= 0 records nothing. Counters are allocated
  // as far as the highest value recorded so far needs, a bucket at a time: memory follows what
  // is used (an unused histogram holds none; one of millisecond latencies a few thousand), and
  // recording allocates only when a value lands past every bucket used before.
  void record(int64_t value) { record_n(value, 1); }
  void record_n(int64_t value, int64_t count) {
    if (count <= 0) return;
    const int64_t kept = std::clamp<int64_t>(value, 0, highest_trackable_);
    clamped_count_ += (kept != value) ? count : 0;
    const int index = index_of(kept);
    if (static_cast<size_t>(index) >= counts_.size()) grow_to(index);
    counts_[index] += count;
    total_count_ += count;
    sum_ += static_cast<Int128>(kept) * count;
    min_value_ = std::min(min_value_, kept);
    max_value_ = std::max(max_value_, kept);
  }

  // Adds every count of `other`. Both must share the configuration (checked; throws
  // std::invalid_argument otherwise).
  void merge(const HdrHistogram& other);
  void reset();

  int64_t total_count() const { return total_count_; }
  int64_t clamped_count() const { return clamped_count_; }
  // min/max of recorded values as bucket-equivalent values (0 when empty): min() is the lowest
  // value equivalent to the smallest recorded value, max() the highest equivalent to the largest.
  int64_t min() const;
  int64_t max() const;
  // Exact mean of the recorded (clamped) values, kept beside the buckets; 0 when empty.
  double mean() const;
  // Nearest rank: the smallest recorded value v (bucket's highest equivalent value) such that
  // at least percentile% of all values are <= v. percentile in [0, 100] (clamped to it); 0 when
  // empty. As HdrHistogram, percentile 0 gives min().
  int64_t value_at_percentile(double percentile) const;
  // Number of recorded values <= value (bucket resolution).
  int64_t count_at_or_below(int64_t value) const;

  int64_t lowest_discernible() const { return lowest_discernible_; }
  int64_t highest_trackable() const { return highest_trackable_; }
  int significant_figures() const { return significant_figures_; }

  // Bucket geometry helpers (as HdrHistogram's): the range of values recorded into the same
  // counter as `value`.
  int64_t lowest_equivalent(int64_t value) const;
  int64_t highest_equivalent(int64_t value) const;
  // Number of counters of the configuration, and how many are allocated now (8 bytes each).
  size_t counter_count() const { return full_size_; }
  size_t allocated_counters() const { return counts_.size(); }
  // True when both have the same lowest/highest/figures (the condition for merge()).
  bool same_configuration(const HdrHistogram& other) const {
    return lowest_discernible_ == other.lowest_discernible_ &&
           highest_trackable_ == other.highest_trackable_ &&
           significant_figures_ == other.significant_figures_;
  }
  // True when both hold the same counts (configuration, total and every counter).
  bool same_counts(const HdrHistogram& other) const;

  // HdrHistogram's V2 compressed encoding, the form carried base64-encoded in interval logs:
  // cookie 0x1c849304 (written as 0x1c849314, with the word-size nibble that Java's
  // HdrHistogram writes and some decoders require), the deflated length, then a zlib stream of
  // the V2 encoding (cookie 0x1c849303 likewise written as 0x1c849313, payload length,
  // normalizing offset 0, figures, lowest, highest, conversion ratio 1.0, ZigZag LEB128 counts
  // with runs of zeros as negative numbers).
  std::vector<uint8_t> encode_compressed() const;
  // Decodes the above (also accepts the uncompressed V2 cookie 0x1c849303 payload; any
  // word-size nibble). Throws std::runtime_error on malformed input. The exact mean is not part
  // of the encoding; a decoded histogram's mean() is computed from bucket midpoints.
  static HdrHistogram decode_compressed(const uint8_t* data, size_t size);
  // What the encoding leaves out, for a lossless copy (a segment's file for `proofload merge`):
  // the exact sum of the recorded values (high and low 64 bits of its 128) and the clamped count.
  struct ExactTotals {
    int64_t sum_high = 0;
    uint64_t sum_low = 0;
    int64_t clamped = 0;
  };
  ExactTotals exact_totals() const;
  // Puts them back after decode_compressed. False, changing nothing, when they cannot be this
  // histogram's: a sum outside [0, count x highest_trackable] or a clamped count past the count.
  bool restore_exact_totals(const ExactTotals& totals);

 private:
  __extension__ typedef __int128 Int128;  // exact sum of values (int64 * int64 cannot overflow)

  int index_of(int64_t value) const {
    const int bucket = leading_zero_count_base_ -
                       std::countl_zero(static_cast<uint64_t>(value | sub_bucket_mask_));
    const int sub_bucket = static_cast<int>(value >> (bucket + unit_magnitude_));
    return ((bucket + 1) << sub_bucket_half_count_magnitude_) +
           (sub_bucket - sub_bucket_half_count_);
  }
  int64_t value_from_index(int index) const;
  // Allocates counters up to `index` (whole buckets, at most full_size_).
  void grow_to(int index);
  int64_t size_of_equivalent_range(int64_t value) const;
  // Recomputes total, min, max and the midpoint sum from the counters (after decoding).
  void establish_totals_from_counts();
  // Fills the counters from a V2 payload (ZigZag LEB128 counts); throws std::runtime_error.
  void decode_counts(const uint8_t* payload, size_t size);

  int64_t lowest_discernible_;
  int64_t highest_trackable_;
  int significant_figures_;
  // Geometry (names as in HdrHistogram): counters cover [0, sub_bucket_count_ << unit_magnitude_)
  // at unit resolution, then each further bucket doubles the width of its half of sub-buckets.
  int unit_magnitude_ = 0;
  int sub_bucket_half_count_magnitude_ = 0;
  int sub_bucket_count_ = 0;
  int sub_bucket_half_count_ = 0;
  int64_t sub_bucket_mask_ = 0;
  int leading_zero_count_base_ = 0;
  int bucket_count_ = 0;
  size_t full_size_ = 0;  // counters the configuration has; counts_ holds a prefix of them

  int64_t total_count_ = 0;
  int64_t clamped_count_ = 0;
  Int128 sum_ = 0;                 // sum of recorded (clamped) values, for the exact mean
  int64_t min_value_ = INT64_MAX;  // smallest recorded (clamped) value; INT64_MAX when empty
  int64_t max_value_ = 0;          // largest recorded (clamped) value; 0 when empty
  std::vector<int64_t> counts_;
};

}  // namespace proofload::measure
