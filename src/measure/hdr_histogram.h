// An HDR histogram with HdrHistogram's semantics: values are recorded into buckets whose width
// keeps `significant_figures` decimal digits of precision; percentiles are nearest-rank and are
// reported as the highest value equivalent to the bucket (as HdrHistogram's
// getValueAtPercentile); merge is lossless between histograms of the same configuration.
// Written here because no Debian package provides one.
//
// Units are the caller's; proofload records microseconds (1 us .. 1 h).
// Not thread-safe: each worker owns its histograms; merge happens on the coordinator.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace proofload::measure {

class HdrHistogram {
 public:
  // lowest_discernible >= 1, highest_trackable >= 2 * lowest_discernible, figures in [1, 5].
  explicit HdrHistogram(int64_t lowest_discernible = 1, int64_t highest_trackable = 3'600'000'000,
                        int significant_figures = 3);

  // Values above highest_trackable are clamped to it (and counted in clamped_count());
  // values below 0 are clamped to 0. Never allocates.
  void record(int64_t value) { record_n(value, 1); }
  void record_n(int64_t value, int64_t count);

  // Adds every count of `other`. Both must share the configuration (checked; throws
  // std::invalid_argument otherwise).
  void merge(const HdrHistogram& other);
  void reset();

  int64_t total_count() const { return total_count_; }
  int64_t clamped_count() const { return clamped_count_; }
  // min/max of recorded values as bucket-equivalent values (0 when empty).
  int64_t min() const;
  int64_t max() const;
  // Exact mean of the recorded (clamped) values, kept beside the buckets; 0 when empty.
  double mean() const;
  // Nearest rank: the smallest recorded value v (bucket's highest equivalent value) such that
  // at least percentile% of all values are <= v. percentile in [0, 100]; 0 when empty.
  int64_t value_at_percentile(double percentile) const;
  // Number of recorded values <= value (bucket resolution).
  int64_t count_at_or_below(int64_t value) const;

  int64_t lowest_discernible() const { return lowest_discernible_; }
  int64_t highest_trackable() const { return highest_trackable_; }
  int significant_figures() const { return significant_figures_; }

  // HdrHistogram's V2 compressed encoding (cookie 0x1c849304, zlib-deflated V2 payload with
  // ZigZag LEB128 counts), the form carried base64-encoded in interval logs.
  std::vector<uint8_t> encode_compressed() const;
  // Decodes the above (also accepts the uncompressed V2 cookie 0x1c849303 payload).
  // Throws std::runtime_error on malformed input. The exact mean is not part of the encoding;
  // a decoded histogram's mean() is computed from bucket midpoints.
  static HdrHistogram decode_compressed(const uint8_t* data, size_t size);

 private:
  // ... (implementation state: counts array, bucket geometry, totals)
  int64_t lowest_discernible_;
  int64_t highest_trackable_;
  int significant_figures_;
  int64_t total_count_ = 0;
  int64_t clamped_count_ = 0;
  std::vector<int64_t> counts_;
};

}  // namespace proofload::measure
