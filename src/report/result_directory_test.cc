// ResultDirectory: windows reach disk as they end (read back before finish), result.json goes
// from "running" to final, summary.md is rendered from the final result.json, and an unusable
// directory fails early with one clear line.
#include "report/result_directory.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
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
using testing_support::lines_of;
using testing_support::make_synthetic_result;
using testing_support::read_file;
using testing_support::ScratchDirectory;

// Interval lines of an HdrHistogram log: not comments, not the quoted legend.
int hlog_intervals(const std::filesystem::path& path) {
  int n = 0;
  for (const std::string& line : lines_of(read_file(path))) {
    if (!line.empty() && line[0] != '#' && line[0] != '"') ++n;
  }
  return n;
}

// A tmpfs of `bytes` mounted on `dir` in a mount namespace of this test process's own, so no
// other process sees it (ctest runs each test in a process of its own); unmounted when done.
// Needs root (CAP_SYS_ADMIN), as CI has: a full or read-only disk cannot be made otherwise.
class PrivateTmpfs {
 public:
  PrivateTmpfs(const std::filesystem::path& dir, int64_t bytes, bool read_only = false)
      : dir_(dir) {
    std::filesystem::create_directories(dir);
    if (::unshare(CLONE_NEWNS) != 0 ||
        ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
      error_ = std::string("a mount namespace of its own: ") + std::strerror(errno);
      return;
    }
    const std::string options = "size=" + std::to_string(bytes);
    if (::mount("tmpfs", dir.c_str(), "tmpfs", read_only ? MS_RDONLY : 0, options.c_str()) != 0) {
      error_ = std::string("a tmpfs: ") + std::strerror(errno);
      return;
    }
    mounted_ = true;
  }
  ~PrivateTmpfs() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  // Why it could not be made ("" when it was).
  const std::string& error() const { return error_; }
  void resize(int64_t bytes) {
    const std::string options = "size=" + std::to_string(bytes);
    ASSERT_EQ(::mount(nullptr, dir_.c_str(), nullptr, MS_REMOUNT, options.c_str()), 0)
        << std::strerror(errno);
  }

 private:
  std::filesystem::path dir_;
  bool mounted_ = false;
  std::string error_;
};

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
  EXPECT_EQ(running["spec"], result::spec_to_json(result.spec));
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
  {
    ResultDirectory dir(scratch.path() / "a" / "b" / "c");
    EXPECT_TRUE(std::filesystem::is_directory(scratch.path() / "a" / "b" / "c"));
  }
  // The write check (the reserve) leaves nothing behind.
  EXPECT_TRUE(std::filesystem::is_empty(scratch.path() / "a" / "b" / "c"));
}

// The disk fills up while windows are written: the error names ENOSPC, the final result.json
// (status and summary, without the windows: they do not fit) is written in the space the
// reserve kept, and summary.md beside it; once there is space, the windows are put in.
TEST(ResultDirectory, AFullDiskLeavesAFinalResultAndItsWindowsInTheJournal) {
  ScratchDirectory scratch;
  const std::filesystem::path mount_point = scratch.path() / "disk";
  PrivateTmpfs disk(mount_point, 3 << 20);
  if (!disk.error().empty()) GTEST_SKIP() << "needs root to make a full disk: " << disk.error();
  const RunResult result = make_synthetic_result();
  const measure::WindowStats window = testing_support::make_synthetic_windows().front();
  size_t written = 0;
  std::string append_error;
  {
    ResultDirectory dir(mount_point / "run");
    dir.open(result);
    for (int i = 0; i < 100'000 && append_error.empty(); ++i) {
      measure::WindowStats w = window;
      w.index = i;
      w.start_ns = int64_t{i} * 1'000'000'000;
      try {
        dir.append_window(w, result.start_wall_ns + w.start_ns);
        ++written;
      } catch (const std::runtime_error& e) {
        append_error = e.what();
      }
    }
    EXPECT_NE(append_error.find("No space left on device"), std::string::npos) << append_error;
    ASSERT_GT(written, 100u);
    try {
      dir.finish(result);
      FAIL() << "the windows fit after all";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("run `proofload report " +
                                           (mount_point / "run").string() + "` to put them in"),
                std::string::npos)
          << e.what();
    }
  }
  const auto run = mount_point / "run";
  const json pending = json::parse(read_file(run / "result.json"));
  EXPECT_EQ(pending["status"], "complete");
  EXPECT_EQ(pending["pending_windows"]["journal"], ".windows.jsonl");
  EXPECT_TRUE(pending["summary"].is_object());
  EXPECT_FALSE(read_file(run / "summary.md").empty());
  EXPECT_FALSE(std::filesystem::exists(run / ResultDirectory::kReserve));

  disk.resize(64 << 20);
  EXPECT_TRUE(complete_pending_windows(run));
  const json complete = json::parse(read_file(run / "result.json"));
  EXPECT_FALSE(complete.contains("pending_windows"));
  EXPECT_EQ(complete["windows"].size(), written);
  EXPECT_EQ(complete["summary"], pending["summary"]);
  EXPECT_FALSE(std::filesystem::exists(run / ResultDirectory::kWindowsJournal));
  EXPECT_FALSE(complete_pending_windows(run));  // nothing pending any more
}

// A disk with no room for the reserve is refused before anything is sent.
TEST(ResultDirectory, ADiskWithoutRoomForTheReserveIsRefusedAtTheStart) {
  ScratchDirectory scratch;
  const std::filesystem::path mount_point = scratch.path() / "disk";
  PrivateTmpfs disk(mount_point, 512 << 10);
  if (!disk.error().empty()) GTEST_SKIP() << "needs root to make a full disk: " << disk.error();
  try {
    ResultDirectory dir(mount_point / "run");
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write results to " + (mount_point / "run").string() +
                                         ": No space left on device (a run keeps 1 MiB free for "
                                         "its final results)");
  }
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

TEST(ResultDirectory, AReadOnlyFileSystemIsRefusedAtTheStart) {
  ScratchDirectory scratch;
  const std::filesystem::path mount_point = scratch.path() / "ro";
  PrivateTmpfs disk(mount_point, 1 << 20, /*read_only=*/true);
  if (!disk.error().empty())
    GTEST_SKIP() << "needs root to mount a read-only disk: " << disk.error();
  try {
    ResultDirectory dir(mount_point);
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot write results to " + mount_point.string() + ": Read-only file system");
  }
}

// Root writes anywhere: as root, the attempt is made by a child that has become "nobody".
TEST(ResultDirectory, ReadOnlyDirectoryGivesPermissionDenied) {
  ScratchDirectory scratch;
  using std::filesystem::perms;
  std::filesystem::permissions(scratch.path(), perms::owner_all | perms::group_read |
                                                   perms::group_exec | perms::others_read |
                                                   perms::others_exec);
  const auto target = scratch.path() / "locked";
  std::filesystem::create_directory(target);
  constexpr uid_t kNobody = 65534;
  const bool root = ::geteuid() == 0;
  if (root) {
    ASSERT_EQ(::chown(target.c_str(), kNobody, kNobody), 0);
  }
  std::filesystem::permissions(target, perms::owner_read | perms::owner_exec);
  auto attempt = [&]() -> std::string {
    try {
      ResultDirectory dir(target);
      return "no error";
    } catch (const UsageError& e) {
      return e.what();
    }
  };
  std::string error;
  if (!root) {
    error = attempt();
  } else {
    int pipe_fds[2];
    ASSERT_EQ(::pipe(pipe_fds), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::close(pipe_fds[0]);
      const std::string text = ::setgid(kNobody) == 0 && ::setuid(kNobody) == 0
                                   ? attempt()
                                   : std::string("cannot become nobody");
      const ssize_t ignored = ::write(pipe_fds[1], text.data(), text.size());
      (void)ignored;
      ::_exit(0);
    }
    ::close(pipe_fds[1]);
    char buffer[512];
    ssize_t n;
    while ((n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0) error.append(buffer, n);
    ::close(pipe_fds[0]);
    ::waitpid(child, nullptr, 0);
  }
  EXPECT_EQ(error, "cannot write results to " + target.string() + ": Permission denied");
  std::filesystem::permissions(target, perms::owner_all);
}

TEST(ResultDirectory, AppendBeforeOpenIsAProgrammingError) {
  ScratchDirectory scratch;
  ResultDirectory dir(scratch.path());
  EXPECT_THROW(dir.append_window(measure::WindowStats(), 0), std::logic_error);
}

}  // namespace
}  // namespace proofload::report
