// The result directory of one run: result.json (canonical, rewritten atomically at the start and
// the end), summary.md (rendered from the final result.json at the end), windows.csv and
// latency.hlog (streamed one window at a time, so that a crash loses
// at most the window in progress). Windows are kept on disk, never in memory: result.json's
// `windows` array is spliced in at the end from a journal streamed beside the other files, so
// the generator's memory does not grow with the length of the run.
// Not thread-safe: owned by the run's coordinator thread.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "measure/window_stats.h"
#include "report/run_report.h"
#include "report/run_result.h"

namespace proofload::measure {
class HlogWriter;
}

namespace proofload::report {

class ResultDirectory {
 public:
  static constexpr const char* kResultJson = "result.json";
  // Rendered from result.json alone (run_report.h), so `proofload report DIR` writes it again.
  static constexpr const char* kSummaryMd = "summary.md";
  static constexpr const char* kWindowsCsv = "windows.csv";
  static constexpr const char* kLatencyHlog = "latency.hlog";
  // One JSON object per line, per window; removed once result.json holds them.
  static constexpr const char* kWindowsJournal = ".windows.jsonl";
  // Space kept free from the start to the end of the run, so that a disk filling up meanwhile
  // still leaves room for the final result.json (without its windows) and summary.md.
  static constexpr const char* kReserve = ".proofload-reserve";
  static constexpr int64_t kReserveBytes = int64_t{1} << 20;

  // Creates `directory` (and its parents) if missing and reserves kReserveBytes in it, before
  // anything is sent (a full disk, permissions or a read-only mount show here). Throws
  // UsageError("cannot write results to DIR: reason").
  explicit ResultDirectory(std::filesystem::path directory);
  ~ResultDirectory();
  ResultDirectory(const ResultDirectory&) = delete;
  ResultDirectory& operator=(const ResultDirectory&) = delete;

  // Writes result.json with status "running" (spec, no summary) and starts windows.csv (header
  // line) and latency.hlog (header, StartTime = initial.start_wall_ns). Replaces the files of
  // an earlier run in the same directory (its summary.md is removed until this run's is
  // written). Throws std::runtime_error on I/O failure.
  void open(const RunResult& initial);

  // Appends the window's row to windows.csv and its latency histogram as one interval of
  // latency.hlog (untagged; warm-up windows too), then flushes both. `window_start_wall_ns` is
  // the wall-clock time (ns since the Unix epoch) at which the window began: hlog intervals are
  // stamped with it, relative to the run's start. Throws std::runtime_error on I/O failure
  // (disk full, ...), and std::logic_error if open() was not called.
  // `observed`: what the observers saw in the window (extra CSV columns, JSON "observed").
  void append_window(const measure::WindowStats& w, int64_t window_start_wall_ns,
                     const std::vector<ObservedFigures>& observed = {});

  // Closes the streams (fsynced), frees the reserve and rewrites result.json atomically with the
  // final result (status "complete" or "interrupted") and, as its `windows`, every window
  // appended (final_result.windows is not used); then writes summary.md atomically, rendered
  // from the result.json just committed, read back (the bytes `proofload report DIR` renders
  // later). When result.json with its windows cannot be written (the disk is full), it is
  // written without them, naming the journal that holds them as "pending_windows" (see
  // complete_pending_windows), summary.md is written all the same, and the error is thrown.
  // Throws std::runtime_error on I/O failure.
  void finish(const RunResult& final_result);

  const std::filesystem::path& directory() const { return directory_; }

 private:
  void close_streams();
  void release_reserve();
  void write_summary();

  std::filesystem::path directory_;
  std::FILE* csv_ = nullptr;
  std::FILE* hlog_file_ = nullptr;
  std::FILE* journal_ = nullptr;
  std::unique_ptr<measure::HlogWriter> hlog_;
  int64_t start_wall_ns_ = 0;
  std::vector<std::string> observed_columns_;
  std::string goodput_slo_;      // the recorded spec's --goodput: windows count streams met
  bool stream_columns_ = false;  // the run streams: windows.csv has the stream columns
};

// A result.json that finish() wrote without its windows names them as "pending_windows": this
// puts them in from the journal (atomically, then removes the journal), as `proofload report
// DIR` does once there is space. False when nothing was pending. Throws std::runtime_error on
// I/O failure, and for a result.json that is not JSON.
bool complete_pending_windows(const std::filesystem::path& directory);

// A finished run's summary.md and report.html, rendered from its result.json (read back, so
// that `proofload report DIR` renders the same bytes); throws std::runtime_error when it cannot be
// read or does not hold a run's recorded data.
void write_run_reports(const std::filesystem::path& directory);
// The same from result.json as parse_result_for_report read it (`proofload report` has, to learn
// what the directory holds: a long run's file is then read once).
void write_run_reports(const std::filesystem::path& directory, const RunForReport& run);

}  // namespace proofload::report
