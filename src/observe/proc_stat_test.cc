// The /proc parsers on fixture files (from a real kernel, with awkward command names, older
// kernels' shorter lines and missing fields) and on this machine's /proc.
#include "observe/proc_stat.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>

#include "observe/proc_test_support.h"

namespace proofload::observe {
namespace {

using proc_test::fixture_dir;
using proc_test::fixture_root;

std::string read_fixture(const std::filesystem::path& path) {
  std::string text;
  EXPECT_EQ(read_small_file(path, text), 0) << path;
  return text;
}

TEST(PidStat, CountsFieldsFromTheLastParenthesisSoACommandNameMayHoldSpacesAndParentheses) {
  // The command name of process 42 is "we (ir) d) x".
  std::string error;
  const auto stat = parse_pid_stat(read_fixture(fixture_root() / "proc/42/stat"), error);
  ASSERT_TRUE(stat) << error;
  EXPECT_EQ(stat->state, 'S');
  EXPECT_EQ(stat->utime_ticks, 250u);
  EXPECT_EQ(stat->stime_ticks, 130u);
  EXPECT_EQ(stat->num_threads, 7);
  EXPECT_EQ(stat->starttime_ticks, 123456u);
  EXPECT_EQ(stat->rss_pages, 3000);
}

TEST(PidStat, ReadsAZombiesState) {
  std::string error;
  const auto stat = parse_pid_stat(read_fixture(fixture_root() / "proc/44/stat"), error);
  ASSERT_TRUE(stat) << error;
  EXPECT_EQ(stat->state, 'Z');
}

TEST(PidStat, ALineCutBeforeRssIsAnError) {
  std::string error;
  EXPECT_FALSE(parse_pid_stat("42 (a b) S 1 42 42 0 -1 4194560 1000 0 0 0 250 130\n", error));
  EXPECT_EQ(error, "only 15 fields, need 24 (up to rss)");
  EXPECT_FALSE(parse_pid_stat("42 (a b)", error));
  EXPECT_EQ(error, "only 2 fields, need 24 (up to rss)");
}

TEST(PidStat, ALineWithoutACommandNameOrWithANonNumberIsAnError) {
  std::string error;
  EXPECT_FALSE(parse_pid_stat("", error));
  EXPECT_EQ(error, "no command name in parentheses");
  EXPECT_FALSE(parse_pid_stat("42 a) S", error));
  EXPECT_EQ(error, "no command name in parentheses");
  EXPECT_FALSE(parse_pid_stat(
      "42 (x) S 1 42 42 0 -1 4194560 1000 0 0 0 2x0 130 0 0 20 0 7 0 123456 104857600 3000",
      error));
  EXPECT_EQ(error, "field 14 (utime) is not a number: \"2x0\"");
  EXPECT_FALSE(parse_pid_stat(
      "42 (x) SS 1 42 42 0 -1 4194560 1000 0 0 0 250 130 0 0 20 0 7 0 123456 104857600 3000",
      error));
  EXPECT_EQ(error, "field 3 (state) is not one letter: \"SS\"");
}

TEST(PidStat, ParsesThisProcess) {
  std::string text;
  ASSERT_EQ(read_small_file("/proc/self/stat", text), 0);
  std::string error;
  const auto stat = parse_pid_stat(text, error);
  ASSERT_TRUE(stat) << error;
  EXPECT_EQ(stat->state, 'R');  // it is reading its own stat
  EXPECT_GE(stat->num_threads, 1);
  EXPECT_GT(stat->rss_pages, 0);
}

TEST(PidStatus, GivesVmRssInBytes) {
  const PidStatus status = parse_pid_status(read_fixture(fixture_root() / "proc/42/status"));
  ASSERT_TRUE(status.vm_rss_bytes);
  EXPECT_EQ(*status.vm_rss_bytes, 12000 * 1024);
}

TEST(PidStatus, VmRssIsAbsentWhereTheKernelLeavesItOut) {
  EXPECT_FALSE(parse_pid_status(read_fixture(fixture_root() / "proc/43/status")).vm_rss_bytes);
  EXPECT_FALSE(parse_pid_status("VmRSS:\t12 MB\n").vm_rss_bytes);  // a unit it never wrote
  EXPECT_FALSE(parse_pid_status("").vm_rss_bytes);
}

TEST(PidStatus, CountsTheCpusItsAffinityAllows) {
  EXPECT_EQ(parse_pid_status(read_fixture(fixture_root() / "proc/42/status")).cpus_allowed, 2);
  EXPECT_EQ(parse_pid_status("Cpus_allowed_list:\t3\n").cpus_allowed, 1);
  EXPECT_EQ(parse_pid_status("Cpus_allowed_list:\t0-1,4,6-7\n").cpus_allowed, 5);
  EXPECT_FALSE(parse_pid_status("Cpus_allowed_list:\t2-1\n").cpus_allowed);
  EXPECT_FALSE(parse_pid_status("Cpus_allowed_list:\tx\n").cpus_allowed);
  EXPECT_FALSE(parse_pid_status("").cpus_allowed);
}

TEST(OpenFiles, CountsTheEntriesOfTheFdDirectory) {
  EXPECT_EQ(count_open_files(fixture_root() / "proc/42/fd"), 4);
  EXPECT_EQ(count_open_files(fixture_root() / "proc/43/fd"), std::nullopt);  // no fd directory
}

TEST(OpenFiles, SeesADescriptorThisProcessOpens) {
  const auto before = count_open_files("/proc/self/fd");
  ASSERT_TRUE(before);
  const int fd = ::dup(0);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(count_open_files("/proc/self/fd"), *before + 1);
  ::close(fd);
}

TEST(ProcStat, SumsBusyAndTotalTicksLeavingOutGuestTimeAlreadyInUser) {
  std::string error;
  const auto times = parse_proc_stat(read_fixture(fixture_root() / "proc/stat"), error);
  ASSERT_TRUE(times) << error;
  // cpu  100 5 50 800 20 3 2 0 10 0: busy 100+5+50+3+2+0, idle 800+20.
  EXPECT_EQ(times->busy_ticks, 160u);
  EXPECT_EQ(times->total_ticks, 980u);
  EXPECT_EQ(times->cpu_count, 2);
}

TEST(ProcStat, ReadsAnOldKernelsFourFieldLine) {
  std::string error;
  const auto times = parse_proc_stat(read_fixture(fixture_dir() / "stat_old_kernel"), error);
  ASSERT_TRUE(times) << error;
  EXPECT_EQ(times->busy_ticks, 155u);
  EXPECT_EQ(times->total_ticks, 955u);
  EXPECT_EQ(times->cpu_count, 2);
}

TEST(ProcStat, AMissingOrShortCpuLineIsAnError) {
  std::string error;
  EXPECT_FALSE(parse_proc_stat("cpu  100 5 50\ncpu0 100 5 50\n", error));
  EXPECT_EQ(error, "cpu line has 3 fields, needs at least 4");
  EXPECT_FALSE(parse_proc_stat("cpu0 100 5 50 800\nctxt 5\n", error));
  EXPECT_EQ(error, "no aggregate cpu line");
  EXPECT_FALSE(parse_proc_stat("cpu  100 5 50 800\nctxt 5\n", error));
  EXPECT_EQ(error, "no per-CPU lines (cpu0, cpu1, ...)");
  EXPECT_FALSE(parse_proc_stat("cpu  100 5 -50 800\ncpu0 100 5 50 800\n", error));
  EXPECT_EQ(error, "cpu line: field 3 is not a number: \"-50\"");
}

TEST(ProcStat, ParsesThisMachine) {
  std::string text;
  ASSERT_EQ(read_small_file("/proc/stat", text), 0);
  std::string error;
  const auto times = parse_proc_stat(text, error);
  ASSERT_TRUE(times) << error;
  EXPECT_EQ(times->cpu_count, ::sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_GT(times->total_ticks, times->busy_ticks);
}

TEST(BusyShare, IsTheShareOfTicksBusyBetweenTwoReadings) {
  std::string error;
  const auto before = parse_proc_stat(read_fixture(fixture_root() / "proc/stat"), error);
  const auto after = parse_proc_stat(read_fixture(fixture_dir() / "stat_later"), error);
  ASSERT_TRUE(before && after) << error;
  // Busy 160 -> 250, total 980 -> 1180; guest rose by 30 inside user's 60 and counts once.
  EXPECT_DOUBLE_EQ(*busy_share(*before, *after), 90.0 / 200.0);
}

TEST(BusyShare, HasNoValueWhenNoTickPassedOrCountersWentBack) {
  const HostCpuTimes a{100, 1000, 2};
  const HostCpuTimes later{150, 1100, 2};
  EXPECT_EQ(busy_share(a, a), std::nullopt);
  EXPECT_EQ(busy_share(later, a), std::nullopt);
  EXPECT_DOUBLE_EQ(*busy_share(a, later), 0.5);
}

TEST(LoadAverage, ReadsTheThreeAverages) {
  std::string error;
  const auto load = parse_loadavg(read_fixture(fixture_root() / "proc/loadavg"), error);
  ASSERT_TRUE(load) << error;
  EXPECT_DOUBLE_EQ(load->load1, 0.52);
  EXPECT_DOUBLE_EQ(load->load5, 0.58);
  EXPECT_DOUBLE_EQ(load->load15, 0.59);
}

TEST(LoadAverage, GarbageOrAShortLineIsAnError) {
  std::string error;
  EXPECT_FALSE(parse_loadavg("0.52 abc 0.59 1/389 12345\n", error));
  EXPECT_EQ(error, "load average 2 is not a number: \"abc\"");
  EXPECT_FALSE(parse_loadavg("0.52\n", error));
  EXPECT_EQ(error, "only 1 load averages, need 3");
}

TEST(ReadSmallFile, ReportsTheSystemsReasonAndBoundsTheSize) {
  std::string text = "left over";
  EXPECT_EQ(read_small_file(fixture_dir() / "no-such-file", text), ENOENT);
  EXPECT_EQ(errno_text(ENOENT), "No such file or directory");
  EXPECT_EQ(read_small_file(fixture_root() / "proc/loadavg", text, 8), EFBIG);
  ASSERT_EQ(read_small_file(fixture_root() / "proc/loadavg", text), 0);
  EXPECT_EQ(text, "0.52 0.58 0.59 1/389 12345\n");
}

}  // namespace
}  // namespace proofload::observe
