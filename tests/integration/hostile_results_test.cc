// `report`, `export` and `merge` on result directories an attacker made: a pending-window journal
// that is a symlink to /etc/passwd, a FIFO or not windows at all; a result.json that is a FIFO,
// a million `[` or larger than a JSON tree fits in; a segment.jsonl that is /dev/zero or NUL
// bytes. Each ends at once with one line and exit 2, and nothing that was recorded is replaced or
// deleted. The run they start from is real (a short run against `proofload serve`).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "process.h"

namespace proofload::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;

class HostileResults : public ::testing::Test {
 protected:
  // One real run, recorded once; each test copies it.
  static void SetUpTestSuite() {
    ServeProcess server({"--exit-after", "60s"});
    run_dir_ = make_temp_dir("hostile-results-run") + "/run";
    const Completed run = run_to_completion({proofload_binary(), "run", server.url(), "--rate",
                                             "200", "-d", "3s", "-q", "--out", run_dir_});
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }

  // A copy of the run whose windows are pending in its journal, as a run on a full disk leaves
  // it (result.json names the journal; `proofload report` puts them in).
  std::string pending_copy(const std::string& name) {
    const std::string dir = make_temp_dir(name);
    fs::copy(run_dir_, dir, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    json result = json::parse(read_file(dir + "/result.json"));
    std::string journal;
    for (const json& w : result["windows"]) journal += w.dump() + "\n";
    result["windows"] = json::array();
    result["pending_windows"] = {{"journal", ".windows.jsonl"}, {"reason", "the disk was full"}};
    write_file(dir + "/result.json", result.dump(2));
    write_file(dir + "/.windows.jsonl", journal);
    return dir;
  }

  // A copy of the run with `windows` windows, each the run's last at its own start.
  std::string copy_with_windows(const std::string& name, int windows) {
    const std::string dir = make_temp_dir(name);
    fs::copy(run_dir_, dir, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    json result = json::parse(read_file(dir + "/result.json"));
    const json window = result["windows"].back();
    result["windows"] = json::array();
    for (int i = 0; i < windows; ++i) {
      json w = window;
      w["start_s"] = i;
      result["windows"].push_back(std::move(w));
    }
    write_file(dir + "/result.json", result.dump());
    return dir;
  }

  static std::string run_dir_;
};

std::string HostileResults::run_dir_;

Completed proofload(const std::vector<std::string>& args) {
  std::vector<std::string> all = {proofload_binary()};
  all.insert(all.end(), args.begin(), args.end());
  return run_to_completion(all, 20s);
}

void expect_one_line_usage_error(const Completed& c, const std::string& says) {
  EXPECT_EQ(c.exit_code, 2) << c.err;
  EXPECT_NE(c.err.find(says), std::string::npos) << c.err;
  EXPECT_EQ(c.err.find('\n'), c.err.size() - 1) << c.err;
}

TEST_F(HostileResults, APendingWindowsJournalIsPutInWhenItHoldsWindows) {
  const std::string dir = pending_copy("pending-good");
  const Completed report = proofload({"report", dir});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const json result = json::parse(read_file(dir + "/result.json"));
  EXPECT_FALSE(result.contains("pending_windows"));
  EXPECT_EQ(result["windows"], json::parse(read_file(run_dir_ + "/result.json"))["windows"]);
  EXPECT_FALSE(fs::exists(dir + "/.windows.jsonl"));
}

TEST_F(HostileResults, AJournalThatIsASymlinkOrAFifoIsNeitherReadNorDeleted) {
  for (const std::string kind : {"symlink", "fifo"}) {
    SCOPED_TRACE(kind);
    const std::string dir = pending_copy("pending-" + kind);
    const std::string before = read_file(dir + "/result.json");
    fs::remove(dir + "/.windows.jsonl");
    if (kind == "symlink") {
      fs::create_symlink("/etc/passwd", dir + "/.windows.jsonl");
    } else {
      ASSERT_EQ(::mkfifo((dir + "/.windows.jsonl").c_str(), 0600), 0);
    }
    // Before: /etc/passwd was spliced into result.json, then the link unlinked; a FIFO hung.
    expect_one_line_usage_error(proofload({"report", dir}), "only regular files");
    EXPECT_EQ(read_file(dir + "/result.json"), before);
    EXPECT_TRUE(fs::exists(fs::symlink_status(dir + "/.windows.jsonl")));
  }
}

TEST_F(HostileResults, AJournalLineThatIsNotAWindowLeavesResultJsonAsItWas) {
  const std::string dir = pending_copy("pending-not-windows");
  const std::string before = read_file(dir + "/result.json");
  write_file(dir + "/.windows.jsonl", read_file(dir + "/.windows.jsonl") + "root:x:0:0:root\n");
  expect_one_line_usage_error(proofload({"report", dir}), "is not a window");
  EXPECT_EQ(read_file(dir + "/result.json"), before);
  EXPECT_TRUE(fs::exists(dir + "/.windows.jsonl"));

  // A line longer than any window is refused at its bound, not read whole into memory.
  write_file(dir + "/.windows.jsonl", std::string(size_t{17} << 20, '{'));
  expect_one_line_usage_error(proofload({"report", dir}), "longer than");
  EXPECT_EQ(read_file(dir + "/result.json"), before);
}

TEST_F(HostileResults, AResultJsonThatIsAFifoIsRefusedAtOnceByReportAndExport) {
  const std::string dir = make_temp_dir("result-fifo");
  ASSERT_EQ(::mkfifo((dir + "/result.json").c_str(), 0600), 0);
  expect_one_line_usage_error(proofload({"report", dir}), "only regular files");
  expect_one_line_usage_error(proofload({"export", dir, "--format", "csv"}), "only regular files");
  expect_one_line_usage_error(proofload({"export", dir, "--format", "openmetrics"}),
                              "only regular files");
}

TEST_F(HostileResults, AResultJsonNestedAMillionDeepIsRefusedWithOneLine) {
  const std::string dir = make_temp_dir("result-deep");
  write_file(dir + "/result.json", std::string(size_t{5} << 20, '['));
  expect_one_line_usage_error(proofload({"report", dir}), "nests deeper than 64");
  expect_one_line_usage_error(proofload({"export", dir, "--format", "openmetrics"}),
                              "nests deeper than 64");
  expect_one_line_usage_error(proofload({"merge", dir, "-o", dir + "/merged"}),
                              "nests deeper than 64");
}

TEST_F(HostileResults, AnOpenMetricsExportReadsWindowsAsTheyAreParsed) {
#ifdef PL_UNDER_SANITIZER
  GTEST_SKIP() << "a sanitizer reserves terabytes of address space, so no `ulimit -v` can hold "
                  "it; `make test` (no sanitizer) runs this";
#endif
  // 40,000 windows (~40 MB): held as a JSON tree this took ~6 times its size and, under a memory
  // limit below that, aborted with an uncaught std::bad_alloc (exit 134). Read a window at a
  // time, the export's memory is its samples.
  const std::string dir = copy_with_windows("result-large", 40000);
  const Completed limited = run_to_completion(
      {"/bin/sh", "-c",
       "ulimit -v 150000 && exec \"$0\" export \"$1\" --format openmetrics -o \"$1/run.om\"",
       proofload_binary(), dir},
      60s);
  ASSERT_EQ(limited.exit_code, 0) << limited.err;
  const std::string om = read_file(dir + "/run.om");
  EXPECT_TRUE(om.ends_with("# EOF\n"));
  size_t intended_samples = 0;
  for (size_t at = om.find("\nproofload_intended_total "); at != std::string::npos;
       at = om.find("\nproofload_intended_total ", at + 1)) {
    ++intended_samples;
  }
  EXPECT_EQ(intended_samples, 40000u);
}

// The data report.html carries (the JSON in its proofload-data script).
json page_data(const std::string& page) {
  const std::string open = "id=\"proofload-data\">";
  const size_t from = page.find(open);
  if (from == std::string::npos) return json();
  const size_t to = page.find("</script>", from);
  return json::parse(page.substr(from + open.size(), to - from - open.size()));
}

TEST_F(HostileResults, AReportOfAMillionWindowRunIsDrawnInGroupsInBoundedMemory) {
#ifdef PL_UNDER_SANITIZER
  GTEST_SKIP() << "a sanitizer reserves terabytes of address space, so no `ulimit -v` can hold "
                  "it; `make test` (no sanitizer) runs this";
#endif
  // 30,000 windows (~30 MB; a million of them were 943 MB). Before: every window went into the
  // page, and report took ~11 KiB a window (11 GiB for the million, past 300 s), here past the
  // limit below: std::bad_alloc. Now the page draws at most 8,192 points, groups of windows.
  const std::string dir = copy_with_windows("report-large", 30000);
  const json window = json::parse(read_file(run_dir_ + "/result.json"))["windows"].back();
  const Completed limited = run_to_completion(
      {"/bin/sh", "-c", "ulimit -v 150000 && exec \"$0\" report \"$1\"", proofload_binary(), dir},
      60s);
  ASSERT_EQ(limited.exit_code, 0) << limited.err;
  const std::string page = read_file(dir + "/report.html");
  EXPECT_NE(page.find("This run has 30000 windows of 1.0 s, more than a page draws: each point is "
                      "a group of up to 4 consecutive windows"),
            std::string::npos);
  const json points = page_data(page)["run_windows"];
  ASSERT_TRUE(points.is_array());
  EXPECT_EQ(points.size(), 7500u);
  EXPECT_EQ(points[1]["start_s"], 4);
  EXPECT_EQ(points[1]["duration_s"], 4 * window["duration_s"].get<double>());
  EXPECT_EQ(points[1]["intended"], 4 * window["intended"].get<int64_t>());
  EXPECT_EQ(points[1]["latency_ms"]["p99"], window["latency_ms"]["p99"]);
  // summary.md is the run's, from every window's data as before.
  EXPECT_EQ(read_file(dir + "/summary.md"), read_file(run_dir_ + "/summary.md"));
}

TEST_F(HostileResults, MergeRefusesASegmentFileThatIsADeviceOrNulBytes) {
  const std::string dir = make_temp_dir("segment-zero");
  fs::create_directories(dir + "/zero");
  fs::create_symlink("/dev/zero", dir + "/zero/segment.jsonl");
  // Before: merge read /dev/zero forever at 99.5% CPU.
  expect_one_line_usage_error(proofload({"merge", dir + "/zero", "-o", dir + "/merged"}),
                              "only regular files");

  // NUL bytes in a regular file: fgets saw empty lines and never moved on.
  fs::create_directories(dir + "/nul");
  write_file(dir + "/nul/segment.jsonl", std::string(1 << 20, '\0'));
  const Completed nul = proofload({"merge", dir + "/nul", "-o", dir + "/merged-nul"});
  EXPECT_NE(nul.exit_code, 0);
  EXPECT_NE(nul.err.find("segment.jsonl"), std::string::npos) << nul.err;
  EXPECT_FALSE(fs::exists(dir + "/merged-nul/result.json"));
}

}  // namespace
}  // namespace proofload::testing
