// A segment's file for merging (docs/result-schema.md "segment.jsonl"): a run given --segment
// writes it beside its result.json, one JSON object a line: a header (the segment's facts, the
// spec, the observed sources), then each window as it ends with every histogram and count and the
// observers' raw figures (segment_codec.h), then the run's totals once it has finished. Written a
// line at a time and flushed (report::LineFile), so a killed segment leaves its windows and no end
// line, which the reader reports. Not thread-safe: the run's coordinator owns the writer.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "experiments/observation.h"
#include "measure/named_stats.h"
#include "measure/span_counts.h"
#include "measure/window_stats.h"
#include "observe/observer.h"
#include "report/line_file.h"
#include "result/segment_record.h"
#include "result/spec_record.h"

namespace proofload::experiments {

constexpr const char* kSegmentFile = "segment.jsonl";
constexpr const char* kSegmentSchema = "proofload.segment/v1";

struct SegmentHeader {
  result::SegmentRecord segment;
  result::SpecRecord spec;  // the run's recorded spec
  std::string command_line;
  std::string proofload_version;
  int64_t window_ns = 0;
  int workers = 0;  // the generator's load workers (its busy bar is of these cores)
  std::vector<ObservedSource> observed_sources;  // the generator first, as the run labelled them
};

struct SegmentWindow {
  measure::WindowStats stats;
  std::vector<observe::SamplerFigures> observed;  // in observed_sources' order
};

// What a finished run adds up to, beside its windows (report::RunResult's fields of the same
// names): requests are totalled by the part of the run they were intended in.
struct SegmentEnd {
  measure::WindowStats total;
  measure::WindowStats warmup_total;
  measure::MeasuredSpan span;
  measure::NamedTotals named;
  std::vector<std::string> request_names, flow_names;
  double warmup_duration_s = 0;
  std::string end_reason;
  bool interrupted = false;
  bool aborted = false;
  std::string first_tls_failure;
  std::optional<int64_t> h2_server_max_streams;
};

// This machine's record as segment `index` of `count`: its host, the agreed start and when it
// started (the skew between them), and how far its clock can be trusted (common/wall_time.h).
result::SegmentRecord segment_record(int index, int count, std::optional<int64_t> start_at_unix_ns,
                                     int64_t started_unix_ns);

class SegmentFileWriter {
 public:
  // Starts DIRECTORY/segment.jsonl with its header line. Throws std::runtime_error.
  SegmentFileWriter(const std::filesystem::path& directory, const SegmentHeader& header);
  void append_window(const measure::WindowStats& w,
                     const std::vector<observe::SamplerFigures>& observed);
  void finish(const SegmentEnd& end);

 private:
  report::LineFile file_;
};

class SegmentFileReader {
 public:
  // Opens DIRECTORY/segment.jsonl and reads its header. Throws std::runtime_error naming the file
  // ("not a segment's directory", a line that is not the format).
  explicit SegmentFileReader(const std::filesystem::path& directory);
  ~SegmentFileReader();
  SegmentFileReader(const SegmentFileReader&) = delete;
  SegmentFileReader& operator=(const SegmentFileReader&) = delete;

  const SegmentHeader& header() const { return header_; }
  // The next window; nullopt once the windows are over: end() then holds the totals, or nullopt
  // when the file stops before them (the segment was killed; a torn last line is skipped).
  std::optional<SegmentWindow> next();
  const std::optional<SegmentEnd>& end() const { return end_; }

 private:
  std::optional<nlohmann::json> next_line();

  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
  int64_t line_ = 0;
  SegmentHeader header_;
  std::optional<SegmentEnd> end_;
  bool over_ = false;
};

}  // namespace proofload::experiments
