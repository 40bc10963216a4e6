// ResultDirectory: windows reach disk as they end (read back before finish), result.json goes
// from "running" to final, summary.md is rendered from the final result.json, and an unusable
// directory fails early with one clear line.
#include "report/result_directory.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "common/usage_error.h"
#include "measure/hlog.h"
#include "report/result_json.h"
#include "report/run_report.h"
#include "report/test_fixtures.h"
#include "report/windows_csv.h"

namespace proofload::report {
namespace {

using nlohmann::json;
using testing_support::make_synthetic_result;
using testing_support::read_file;
using testing_support::ScratchDirectory;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// Interval lines of an HdrHistogram log: not comments, not the quoted legend.
int hlog_intervals(const std::filesystem::path& path) {
  int n = 0;
  for (const std::string& line : lines_of(read_file(path))) {
    if (!line.empty() && line[0] != '#' && line[0] != '"') ++n;
  }
  return n;
}

TEST(ResultDirectory, StreamsEachWindowBeforeFinish) {
  ScratchDirectory scratch;
  const RunResult result = make_synthetic_result();
  const std::vector<measure::WindowStats> windows = testing_support::make_synthetic_windows();
  ResultDirectory dir(scratch.path() / "run");
  dir.open(result);

  const auto csv = scratch.path() / "run" / "windows.csv";
  const auto hlog = scratch.path() / "run" / "latency.hlog";
  EXPECT_EQ(read_file(csv), windows_csv_header());
  EXPECT_EQ(hlog_intervals(hlog), 0);
  EXPECT_NE(read_file(hlog).find('#'), std::string::npos);  // the header is there already

  for (size_t i = 0; i < windows.size(); ++i) {
    dir.append_window(windows[i], result.start_wall_ns + windows[i].start_ns);
    // Readable by another process now: that is what survives a crash.
    const std::vector<std::string> rows = lines_of(read_file(csv));
    ASSERT_EQ(rows.size(), i + 2);
    EXPECT_EQ(rows.back() + "\n", windows_csv_row(result.windows[i]));
    EXPECT_EQ(hlog_intervals(hlog), static_cast<int>(i + 1));
  }
  EXPECT_EQ(json::parse(read_file(scratch.path() / "run" / "result.json"))["status"], "running");

  dir.finish(result);
  EXPECT_EQ(read_file(csv), windows_csv(result));
  // The log holds each window's latency histogram, stamped relative to the run's start.
  std::ifstream hlog_in(hlog);
  const std::vector<measure::HlogInterval> intervals = measure::read_hlog(hlog_in);
  ASSERT_EQ(intervals.size(), windows.size());
  for (size_t i = 0; i < windows.size(); ++i) {
    EXPECT_DOUBLE_EQ(intervals[i].start_s, static_cast<double>(windows[i].start_ns) / 1e9);
    EXPECT_DOUBLE_EQ(intervals[i].length_s, static_cast<double>(windows[i].duration_ns) / 1e9);
    EXPECT_TRUE(intervals[i].tag.empty());
    EXPECT_TRUE(intervals[i].histogram.same_counts(windows[i].latency_us)) << "window " << i;
  }
}

TEST(ResultDirectory, ResultJsonGoesFromRunningToFinal) {
  ScratchDirectory scratch;
  RunResult result = make_synthetic_result();
  ResultDirectory dir(scratch.path());
  dir.open(result);
  const json running = json::parse(read_file(scratch.path() / "result.json"));
  EXPECT_EQ(running["status"], "running");
  EXPECT_EQ(running["spec"], result.spec);
  EXPECT_FALSE(running.contains("summary"));

  for (const measure::WindowStats& w : testing_support::make_synthetic_windows()) {
    dir.append_window(w, result.start_wall_ns + w.start_ns);
  }
  result.interrupted = true;
  // The windows in result.json come from what was appended, not from memory: a long run keeps
  // none of them in RunResult.
  RunResult without_windows = result;
  without_windows.windows.clear();
  dir.finish(without_windows);
  const json final_result = json::parse(read_file(scratch.path() / "result.json"));
  EXPECT_EQ(final_result, result_to_json(result));
  EXPECT_EQ(final_result["status"], "interrupted");
  EXPECT_EQ(final_result["windows"].size(), 4u);
  EXPECT_FALSE(std::filesystem::exists(scratch.path() / ResultDirectory::kWindowsJournal));
}

TEST(ResultDirectory, FinishWritesTheSummaryOfTheResultJsonItWrote) {
  ScratchDirectory scratch;
  const std::filesystem::path summary = scratch.path() / ResultDirectory::kSummaryMd;
  { std::ofstream(summary) << "an earlier run's summary\n"; }
  RunResult result = make_synthetic_result();
  ResultDirectory dir(scratch.path());
  dir.open(result);
  // An earlier run's summary never sits beside this run's result.json.
  EXPECT_FALSE(std::filesystem::exists(summary));
  for (const measure::WindowStats& w : testing_support::make_synthetic_windows()) {
    dir.append_window(w, result.start_wall_ns + w.start_ns);
  }
  result.windows.clear();
  dir.finish(result);
  // What `proofload report DIR` renders later from the same file.
  const json written = json::parse(read_file(scratch.path() / ResultDirectory::kResultJson));
  ASSERT_TRUE(std::filesystem::exists(summary));
  EXPECT_EQ(read_file(summary), render_run_summary(written));
  EXPECT_TRUE(read_file(summary).starts_with("# Run: http://127.0.0.1:8080/\n"))
      << read_file(summary);
}

TEST(ResultDirectory, RunWithoutWindowsHasAnEmptyWindowsArray) {
  ScratchDirectory scratch;
  RunResult result = make_synthetic_result();
  result.windows.clear();
  ResultDirectory dir(scratch.path());
  dir.open(result);
  dir.finish(result);
  const json final_result = json::parse(read_file(scratch.path() / "result.json"));
  EXPECT_TRUE(final_result["windows"].is_array());
  EXPECT_TRUE(final_result["windows"].empty());
}

TEST(ResultDirectory, CreatesMissingParents) {
  ScratchDirectory scratch;
  ResultDirectory dir(scratch.path() / "a" / "b" / "c");
  EXPECT_TRUE(std::filesystem::is_directory(scratch.path() / "a" / "b" / "c"));
  // The write check leaves nothing behind.
  EXPECT_TRUE(std::filesystem::is_empty(scratch.path() / "a" / "b" / "c"));
}

TEST(ResultDirectory, PathThroughAFileGivesClearUsageError) {
  ScratchDirectory scratch;
  const auto file = scratch.path() / "plain-file";
  { std::ofstream(file) << "x"; }
  const auto target = file / "results";
  try {
    ResultDirectory dir(target);
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot write results to " + target.string() + ": Not a directory");
  }
}

TEST(ResultDirectory, ReadOnlyDirectoryGivesPermissionDenied) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes to read-only directories";
  ScratchDirectory scratch;
  const auto target = scratch.path() / "locked";
  std::filesystem::create_directory(target);
  std::filesystem::permissions(
      target, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  try {
    ResultDirectory dir(target);
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot write results to " + target.string() + ": Permission denied");
  }
  std::filesystem::permissions(target, std::filesystem::perms::owner_all);
}

TEST(ResultDirectory, AppendBeforeOpenIsAProgrammingError) {
  ScratchDirectory scratch;
  ResultDirectory dir(scratch.path());
  EXPECT_THROW(dir.append_window(measure::WindowStats(), 0), std::logic_error);
}

}  // namespace
}  // namespace proofload::report
