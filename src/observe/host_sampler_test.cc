// The host sampler on fixture trees (the busy share exact, the first sample without one, gaps)
// and on this machine's /proc.
#include "observe/host_sampler.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/clock.h"
#include "observe/proc_test_support.h"
#include "observe/process_sampler.h"

namespace proofload::observe {
namespace {

using proc_test::burn_thread_cpu;
using proc_test::copy_fixture_root;
using proc_test::fixture_dir;
using proc_test::fixture_root;
using proc_test::reading;
using proc_test::reading_kind;
using proc_test::TempDir;

void use_stat(const std::filesystem::path& root, const std::filesystem::path& fixture) {
  std::filesystem::copy_file(fixture, root / "proc/stat",
                             std::filesystem::copy_options::overwrite_existing);
}

TEST(HostSampler, GivesLoadAndCpuCountAndTheBusyShareFromTheSecondSampleOn) {
  TempDir dir;
  copy_fixture_root(dir.path());
  const auto sampler = make_proc_sampler("host", dir.path());
  ASSERT_TRUE(sampler);
  EXPECT_EQ(sampler->spec(), "host");

  const Sample first = sampler->sample(10);
  ASSERT_TRUE(first.ok) << first.error;
  EXPECT_EQ(first.at_ns, 10);
  EXPECT_EQ(reading(first, "load1"), 0.52);
  EXPECT_EQ(reading(first, "cpu_count"), 2);
  EXPECT_FALSE(reading(first, "cpu_busy_share"));  // nothing to compare with yet

  use_stat(dir.path(), fixture_dir() / "stat_later");
  const Sample second = sampler->sample(20);
  ASSERT_TRUE(second.ok) << second.error;
  // Busy ticks 160 -> 250 of total 980 -> 1180.
  EXPECT_DOUBLE_EQ(*reading(second, "cpu_busy_share"), 0.45);
  for (const char* gauge : {"load1", "cpu_busy_share", "cpu_count"}) {
    EXPECT_EQ(reading_kind(second, gauge), MetricKind::kGauge) << gauge;
  }

  // No tick passed: no share, and no gap either.
  const Sample third = sampler->sample(30);
  ASSERT_TRUE(third.ok) << third.error;
  EXPECT_FALSE(reading(third, "cpu_busy_share"));
  EXPECT_EQ(reading(third, "cpu_count"), 2);
}

TEST(HostSampler, AnUnreadableFileIsAGapAndTheShareSpansItAfterwards) {
  TempDir dir;
  copy_fixture_root(dir.path());
  HostSampler sampler(dir.path());
  ASSERT_TRUE(sampler.sample(1).ok);

  std::filesystem::remove(dir.path() / "proc/loadavg");
  Sample gap = sampler.sample(2);
  EXPECT_FALSE(gap.ok);
  EXPECT_EQ(gap.error, "cannot read " + (dir.path() / "proc/loadavg").string() +
                           ": No such file or directory");
  EXPECT_TRUE(gap.readings.empty());

  proc_test::write_file(dir.path() / "proc/loadavg", "0.52 0.58 0.59 1/389 12345\n");
  proc_test::write_file(dir.path() / "proc/stat", "cpu  1 2 3\ncpu0 1 2 3\n");
  gap = sampler.sample(3);
  EXPECT_FALSE(gap.ok);
  EXPECT_EQ(gap.error,
            (dir.path() / "proc/stat").string() + ": cpu line has 3 fields, needs at least 4");

  use_stat(dir.path(), fixture_dir() / "stat_later");
  const Sample back = sampler.sample(4);
  ASSERT_TRUE(back.ok) << back.error;
  EXPECT_DOUBLE_EQ(*reading(back, "cpu_busy_share"), 0.45);  // since the last good sample
}

TEST(HostSampler, ReadsAnOldKernelsProcStat) {
  TempDir dir;
  copy_fixture_root(dir.path());
  use_stat(dir.path(), fixture_dir() / "stat_old_kernel");
  HostSampler sampler(dir.path());
  const Sample sample = sampler.sample(1);
  ASSERT_TRUE(sample.ok) << sample.error;
  EXPECT_EQ(reading(sample, "cpu_count"), 2);
}

TEST(HostSampler, SeesThisMachinesCpus) {
  HostSampler sampler;
  const Sample first = sampler.sample(monotonic_ns());
  ASSERT_TRUE(first.ok) << first.error;
  burn_thread_cpu(0.05);  // so that ticks pass, and some of them busy
  const Sample second = sampler.sample(monotonic_ns());
  ASSERT_TRUE(second.ok) << second.error;
  const std::optional<double> share = reading(second, "cpu_busy_share");
  ASSERT_TRUE(share);
  EXPECT_GT(*share, 0.0);
  EXPECT_LE(*share, 1.0);
  EXPECT_EQ(reading(second, "cpu_count"), static_cast<double>(::sysconf(_SC_NPROCESSORS_ONLN)));
  EXPECT_GE(*reading(second, "load1"), 0.0);
}

}  // namespace
}  // namespace proofload::observe
