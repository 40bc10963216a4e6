// HdrHistogram interval logs (format 1.3, as Java's HistogramLogWriter writes them): one line per
// interval with its start, length, max and base64 V2-compressed histogram, so that
// HdrHistogram's tools (HistogramLogAnalyzer, hdr-histogram-js, ...) read proofload's latencies.
// Not thread-safe: one writer per file, used by the coordinator.
#pragma once

#include <cstdint>
#include <cstdio>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "measure/hdr_histogram.h"

namespace proofload::measure {

class HlogWriter {  // streams to a FILE* the caller owns; flushes after each interval
 public:
  explicit HlogWriter(std::FILE* out) : out_(out) {}

  // "#[Histogram log format version 1.3]", "#[StartTime: ... (seconds since epoch), <date>]",
  // then the column legend line.
  void write_header(double start_time_epoch_s);
  // start_s relative to the start time, values recorded in microseconds: Interval_Max is
  // written in milliseconds (max-value unit ratio 1000), as HdrHistogram tools expect.
  // A tag must be a non-empty run of characters other than ',', whitespace and control
  // characters (throws std::invalid_argument otherwise); empty means untagged.
  void write_interval(double start_s, double length_s, const HdrHistogram& h,
                      std::string_view tag = {});
  // False once any write or flush to the file has failed (disk full, closed pipe, ...); the
  // writer keeps going so that a run is not stopped by its log. error(): the errno of the first
  // failure (EIO when the call gave none), 0 while ok.
  bool ok() const { return error_ == 0; }
  int error() const { return error_; }

 private:
  void put(const std::string& text);
  void flush();
  void note_failure();

  std::FILE* out_;
  int error_ = 0;
};

struct HlogInterval {
  double start_s = 0;   // interval start, seconds (relative to the log's StartTime)
  double length_s = 0;  // interval length, seconds
  double max_ms = 0;    // the Interval_Max column as written (ms for proofload's logs)
  std::string tag;      // "" when the line has no Tag= column
  HdrHistogram histogram;
};

// Parses a whole log (comments, legend, optional "Tag=" column); throws std::runtime_error
// with the line number on malformed input.
std::vector<HlogInterval> read_hlog(std::istream& in);

// Standard base64 (RFC 4648 alphabet, '=' padding), as the interval lines carry.
std::string base64_encode(const uint8_t* data, size_t size);
// Strict: rejects characters outside the alphabet, bad padding and lengths not a multiple of 4
// (throws std::runtime_error).
std::vector<uint8_t> base64_decode(std::string_view text);

}  // namespace proofload::measure
