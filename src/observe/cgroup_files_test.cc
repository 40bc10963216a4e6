// The parsers of cgroup files: what newer and older kernels write, and what no kernel writes.
#include "observe/cgroup_files.h"

#include <gtest/gtest.h>

#include <string>

namespace proofload::observe::cgroup {
namespace {

TEST(CgroupFilesTest, FlatKeyedTakesTheAskedKeysIgnoresOthersAndLeavesAbsentOnesEmpty) {
  KeyedValue fields[] = {{"nr_periods", {}}, {"nr_throttled", {}}, {"throttled_usec", {}}};
  std::string error;
  // A newer kernel's extra keys, no final newline, and no throttled_usec at all.
  ASSERT_TRUE(
      parse_flat_keyed("usage_usec 5\nnr_periods 18446744073709551615\n\n"
                       "core_sched.force_idle_usec 0\nnr_throttled\t7",
                       fields, error))
      << error;
  EXPECT_EQ(fields[0].value, 18446744073709551615ULL);
  EXPECT_EQ(fields[1].value, 7u);
  EXPECT_FALSE(fields[2].value.has_value());
}

TEST(CgroupFilesTest, FlatKeyedRefusesAnAskedKeyWithoutACount) {
  for (const char* text : {"nr_periods x\n", "nr_periods\n", "nr_periods -1\n", "nr_periods 1 2\n",
                           "nr_periods 99999999999999999999\n"}) {
    KeyedValue fields[] = {{"nr_periods", {}}};
    std::string error;
    EXPECT_FALSE(parse_flat_keyed(text, fields, error)) << text;
    EXPECT_NE(error.find("nr_periods"), std::string::npos) << error;
  }
  // Garbage in a key nobody asked for is none of the sampler's business.
  KeyedValue fields[] = {{"nr_periods", {}}};
  std::string error;
  EXPECT_TRUE(parse_flat_keyed("burst_usec ???\nnr_periods 3\n", fields, error));
  EXPECT_EQ(fields[0].value, 3u);
}

TEST(CgroupFilesTest, SingleIntegerAllowsOnlySurroundingWhitespace) {
  EXPECT_EQ(parse_single_integer("167772160\n"), 167772160);
  EXPECT_EQ(parse_single_integer("  -1\n"), -1);
  for (const char* text : {"", "\n", "12x\n", "1 2\n", "max\n", "0x10\n", "+5\n"}) {
    EXPECT_FALSE(parse_single_integer(text).has_value()) << text;
  }
}

TEST(CgroupFilesTest, CpuMaxIsUnlimitedOrAQuotaAndAPeriod) {
  auto limited = parse_cpu_max("50000 100000\n");
  ASSERT_TRUE(limited);
  EXPECT_EQ(limited->quota_us, 50000);
  EXPECT_EQ(limited->period_us, 100000);
  auto unlimited = parse_cpu_max("max 100000\n");
  ASSERT_TRUE(unlimited);
  EXPECT_FALSE(unlimited->quota_us.has_value());
  EXPECT_EQ(unlimited->period_us, 100000);
  for (const char* text : {"", "max\n", "50000\n", "0 100000\n", "50000 0\n", "-1 100000\n",
                           "half 100000\n", "max max\n"}) {
    EXPECT_FALSE(parse_cpu_max(text).has_value()) << text;
  }
}

TEST(CgroupFilesTest, ReadingTellsAMissingFileFromOneThatCannotBeRead) {
  std::string text = "left over";
  std::string error;
  EXPECT_EQ(read_small_file("/nonexistent-proofload/cpu.stat", text, error), FileRead::kMissing);
  EXPECT_EQ(read_small_file("/", text, error), FileRead::kFailed);  // a directory: EISDIR
  EXPECT_NE(error.find("cannot read /"), std::string::npos) << error;
  ASSERT_EQ(read_small_file(PL_CGROUP_TESTDATA_DIR "/v2/sys/fs/cgroup/kubepods.slice/pod-a/cpu.max",
                            text, error),
            FileRead::kOk);
  EXPECT_EQ(text, "50000 100000\n");
}

}  // namespace
}  // namespace proofload::observe::cgroup
