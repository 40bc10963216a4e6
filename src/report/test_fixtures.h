// Shared by the report tests: a synthetic run with histograms built from known values (so every
// percentile can be checked by hand), golden-file comparison, and scratch directories.
// Test-only; not thread-safe.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "measure/window_stats.h"
#include "report/run_result.h"

namespace proofload::report::testing_support {

// Four 1 s windows of an open-loop run at 1,000 req/s (see test_fixtures.cc for the values):
// 0 warm-up, 1 with 503s, timeouts and never-started requests, 2 clean, 3 empty and shorter.
std::vector<measure::WindowStats> make_synthetic_windows();
// The run made of those windows (summaries, totals, spec, times).
RunResult make_synthetic_result();

// Compares `actual` with testdata/<name>; with PROOFLOAD_UPDATE_GOLDEN=1 in the environment,
// rewrites the golden file instead (then review the diff before committing it).
void expect_matches_golden(std::string_view name, const std::string& actual);

std::string read_file(const std::filesystem::path& path);
// The text's lines, without their line ends.
std::vector<std::string> lines_of(const std::string& text);

// A fresh, empty directory under the test's temp dir, removed when this goes out of scope.
class ScratchDirectory {
 public:
  ScratchDirectory();
  ~ScratchDirectory();
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace proofload::report::testing_support
