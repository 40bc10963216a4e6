// The cgroup sampler on fixture trees (testdata/cgroup: a v2 tree, a v1 tree with separate
// controller mounts, a v1 tree with cpu,cpuacct co-mounted) and on copies of them altered to
// show an older kernel's missing files, garbage and a removed cgroup. The sampler on a real
// cgroup with a CPU quota is in cgroup_real_test.cc.
#include "observe/cgroup_sampler.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "common/usage_error.h"

namespace proofload::observe {
namespace {

namespace fs = std::filesystem;

const std::string kTestdata = PL_CGROUP_TESTDATA_DIR;
const std::string kV2Root = kTestdata + "/v2";
const std::string kV1Root = kTestdata + "/v1";
const std::string kV1CoMountedRoot = kTestdata + "/v1-comounted";

std::map<std::string, Reading> by_name(const Sample& sample) {
  std::map<std::string, Reading> readings;
  for (const Reading& r : sample.readings) readings[r.name] = r;
  return readings;
}

std::vector<std::string> names(const Sample& sample) {
  std::vector<std::string> out;
  for (const Reading& r : sample.readings) out.push_back(r.name);
  return out;
}

void expect_reading(const Sample& sample, const std::string& name, MetricKind kind, double value) {
  auto readings = by_name(sample);
  auto it = readings.find(name);
  ASSERT_NE(it, readings.end()) << "no reading " << name;
  EXPECT_EQ(it->second.kind, kind) << name;
  EXPECT_DOUBLE_EQ(it->second.value, value) << name;
}

const std::vector<std::string> kAllReadings = {
    "cpu_seconds",     "cpu_periods",  "cpu_throttled_periods", "cpu_throttled_seconds",
    "cpu_quota_cores", "memory_bytes", "memory_peak_bytes",     "oom_kills"};

// A writable copy of a fixture tree, removed at the end of the test.
class TreeCopy {
 public:
  explicit TreeCopy(const std::string& fixture) {
    std::string pattern = (fs::temp_directory_path() / "proofload-cgroup-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root_ = pattern;
    fs::copy(fixture, root_, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  }
  ~TreeCopy() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  const std::string& root() const { return root_; }
  std::string path(const std::string& inside) const { return root_ + inside; }
  void write(const std::string& inside, const std::string& text) const {
    std::ofstream(path(inside), std::ios::trunc) << text;
  }
  void remove(const std::string& inside) const { fs::remove_all(path(inside)); }

 private:
  std::string root_;
};

constexpr const char* kPodA = "/sys/fs/cgroup/kubepods.slice/pod-a";
constexpr const char* kPodBCpu = "/sys/fs/cgroup/cpu/kubepods/pod-b";

TEST(CgroupSamplerTest, OtherSpecsAreNotCgroupSpecs) {
  for (const char* spec : {"self", "pid:42", "prom:http://127.0.0.1:9100/metrics", "host",
                           "cgroups:/sys/fs/cgroup/x", "CGROUP:/sys/fs/cgroup/x"}) {
    EXPECT_EQ(make_cgroup_sampler(spec, kV2Root), nullptr) << spec;
  }
}

TEST(CgroupSamplerTest, ACgroupSpecWithoutACgroupDirectoryIsAUsageErrorOfOneLine) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"cgroup:", "needs a path"},
      {"cgroup:/sys/fs/cgroup/kubepods.slice/nope", "no such directory"},
      {"cgroup:/sys/fs", "not a cgroup directory"},
      {"cgroup:/sys/fs/cgroup/kubepods.slice/pod-a/cpu.stat", "not a directory"},
      {"cgroup:nope/pod", "no such cgroup under /sys/fs/cgroup"},
      {"cgroup:../etc", "must stay under /sys/fs/cgroup"},
  };
  for (const auto& [spec, why] : cases) {
    try {
      make_cgroup_sampler(spec, kV2Root);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const UsageError& e) {
      std::string message = e.what();
      EXPECT_NE(message.find(why), std::string::npos) << spec << ": " << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
}

TEST(CgroupSamplerTest, AV1PathInAHierarchyWithoutCpuOrMemoryBesideItIsAUsageError) {
  TreeCopy tree(kV1Root);
  for (const char* hierarchy : {"cpu", "cpuacct", "memory"}) {
    tree.remove(std::string("/sys/fs/cgroup/") + hierarchy + "/kubepods/pod-b");
  }
  EXPECT_THROW(make_cgroup_sampler("cgroup:/sys/fs/cgroup/pids/kubepods/pod-b", tree.root()),
               UsageError);
}

TEST(CgroupSamplerTest, V2TreeGivesEveryReadingExactly) {
  auto sampler = make_cgroup_sampler(std::string("cgroup:") + kPodA, kV2Root);
  ASSERT_NE(sampler, nullptr);
  EXPECT_EQ(sampler->spec(), std::string("cgroup:") + kPodA);
  Sample sample = sampler->sample(1234);
  ASSERT_TRUE(sample.ok) << sample.error;
  EXPECT_EQ(sample.at_ns, 1234);
  EXPECT_EQ(names(sample), kAllReadings);
  expect_reading(sample, "cpu_seconds", MetricKind::kCounter, 81.234567);
  expect_reading(sample, "cpu_periods", MetricKind::kCounter, 1200);
  expect_reading(sample, "cpu_throttled_periods", MetricKind::kCounter, 780);
  expect_reading(sample, "cpu_throttled_seconds", MetricKind::kCounter, 45.678901);
  expect_reading(sample, "cpu_quota_cores", MetricKind::kGauge, 0.5);
  expect_reading(sample, "memory_bytes", MetricKind::kGauge, 167772160);
  expect_reading(sample, "memory_peak_bytes", MetricKind::kGauge, 178257920);
  expect_reading(sample, "oom_kills", MetricKind::kCounter, 1);
}

TEST(CgroupSamplerTest, V2RelativeNameAndTrailingSlashFindTheSameCgroup) {
  CgroupLayout by_path = resolve_cgroup(kPodA, kV2Root);
  EXPECT_EQ(by_path.version, 2);
  EXPECT_EQ(by_path.primary_dir, kV2Root + kPodA);
  for (const char* other : {"kubepods.slice/pod-a", "kubepods.slice/pod-a/",
                            "/sys/fs/cgroup//kubepods.slice/./pod-a/"}) {
    CgroupLayout layout = resolve_cgroup(other, kV2Root);
    EXPECT_EQ(layout.version, 2) << other;
    EXPECT_EQ(layout.primary_dir, by_path.primary_dir) << other;
    EXPECT_EQ(layout.memory_dir, by_path.memory_dir) << other;
  }
}

TEST(CgroupSamplerTest, V2RootCgroupHasOnlyItsUsage) {
  // The root of a v2 tree has no cpu.max, memory.current or memory.events: only cpu_seconds.
  Sample sample = make_cgroup_sampler("cgroup:/sys/fs/cgroup", kV2Root)->sample(1);
  ASSERT_TRUE(sample.ok) << sample.error;
  EXPECT_EQ(names(sample), std::vector<std::string>{"cpu_seconds"});
  expect_reading(sample, "cpu_seconds", MetricKind::kCounter, 9000);
}

TEST(CgroupSamplerTest, V1TreeGivesEveryReadingExactlyFromTheThreeHierarchies) {
  CgroupLayout layout = resolve_cgroup(kPodBCpu, kV1Root);
  EXPECT_EQ(layout.version, 1);
  EXPECT_EQ(layout.primary_dir, kV1Root + kPodBCpu);
  EXPECT_EQ(layout.cpu_dir, kV1Root + kPodBCpu);
  EXPECT_EQ(layout.cpuacct_dir, kV1Root + "/sys/fs/cgroup/cpuacct/kubepods/pod-b");
  EXPECT_EQ(layout.memory_dir, kV1Root + "/sys/fs/cgroup/memory/kubepods/pod-b");

  Sample sample = make_cgroup_sampler(std::string("cgroup:") + kPodBCpu, kV1Root)->sample(7);
  ASSERT_TRUE(sample.ok) << sample.error;
  EXPECT_EQ(names(sample), kAllReadings);
  expect_reading(sample, "cpu_seconds", MetricKind::kCounter, 98.7654321);
  expect_reading(sample, "cpu_periods", MetricKind::kCounter, 500);
  expect_reading(sample, "cpu_throttled_periods", MetricKind::kCounter, 260);
  expect_reading(sample, "cpu_throttled_seconds", MetricKind::kCounter, 12.5);
  expect_reading(sample, "cpu_quota_cores", MetricKind::kGauge, 1.5);
  expect_reading(sample, "memory_bytes", MetricKind::kGauge, 268435456);
  expect_reading(sample, "memory_peak_bytes", MetricKind::kGauge, 301989888);
  expect_reading(sample, "oom_kills", MetricKind::kCounter, 3);
}

TEST(CgroupSamplerTest, V1FromAnyHierarchyOrARelativeNameReadsTheSameCgroup) {
  Sample from_cpu = make_cgroup_sampler(std::string("cgroup:") + kPodBCpu, kV1Root)->sample(1);
  for (const char* spec : {"cgroup:/sys/fs/cgroup/memory/kubepods/pod-b",
                           "cgroup:/sys/fs/cgroup/cpuacct/kubepods/pod-b",
                           "cgroup:/sys/fs/cgroup/pids/kubepods/pod-b", "cgroup:kubepods/pod-b"}) {
    Sample sample = make_cgroup_sampler(spec, kV1Root)->sample(1);
    ASSERT_TRUE(sample.ok) << spec << ": " << sample.error;
    ASSERT_EQ(names(sample), names(from_cpu)) << spec;
    for (size_t i = 0; i < sample.readings.size(); ++i) {
      EXPECT_EQ(sample.readings[i].value, from_cpu.readings[i].value) << spec;
    }
  }
  // A relative name's cgroup is gone when its cpu directory is (the first hierarchy found).
  EXPECT_EQ(resolve_cgroup("kubepods/pod-b", kV1Root).primary_dir, kV1Root + kPodBCpu);
}

TEST(CgroupSamplerTest, V1CoMountedCpuAndCpuacctAreOneHierarchy) {
  const std::string pod = "/sys/fs/cgroup/cpu/pod-c";
  CgroupLayout layout = resolve_cgroup(pod, kV1CoMountedRoot);
  EXPECT_EQ(layout.cpu_dir, kV1CoMountedRoot + pod);
  EXPECT_EQ(layout.cpuacct_dir, kV1CoMountedRoot + pod);
  EXPECT_EQ(layout.memory_dir, kV1CoMountedRoot + "/sys/fs/cgroup/memory/pod-c");

  Sample sample = make_cgroup_sampler("cgroup:" + pod, kV1CoMountedRoot)->sample(1);
  ASSERT_TRUE(sample.ok) << sample.error;
  // memory.oom_control there predates the oom_kill field (kernels before 4.13).
  EXPECT_EQ(names(sample), std::vector<std::string>(kAllReadings.begin(), kAllReadings.end() - 1));
  expect_reading(sample, "cpu_seconds", MetricKind::kCounter, 2.5);
  expect_reading(sample, "cpu_throttled_periods", MetricKind::kCounter, 4);
  expect_reading(sample, "cpu_throttled_seconds", MetricKind::kCounter, 0.25);
  expect_reading(sample, "cpu_quota_cores", MetricKind::kGauge, 0.25);
  expect_reading(sample, "memory_peak_bytes", MetricKind::kGauge, 2097152);
  // The same cgroup by its co-mounted name.
  EXPECT_EQ(resolve_cgroup("/sys/fs/cgroup/cpu,cpuacct/pod-c", kV1CoMountedRoot).memory_dir,
            layout.memory_dir);
}

TEST(CgroupSamplerTest, V2FilesMissingInAnOlderKernelOmitTheirReadings) {
  TreeCopy tree(kV2Root);
  tree.remove(std::string(kPodA) + "/memory.peak");  // before 5.19
  tree.remove(std::string(kPodA) + "/cpu.max");      // cpu controller not enabled
  tree.write(std::string(kPodA) + "/cpu.stat", "usage_usec 5\nuser_usec 3\nsystem_usec 2\n");
  tree.write(std::string(kPodA) + "/memory.events", "low 0\nhigh 0\nmax 0\noom 0\n");
  Sample sample = make_cgroup_sampler(std::string("cgroup:") + kPodA, tree.root())->sample(1);
  ASSERT_TRUE(sample.ok) << sample.error;
  EXPECT_EQ(names(sample), (std::vector<std::string>{"cpu_seconds", "memory_bytes"}));
  expect_reading(sample, "cpu_seconds", MetricKind::kCounter, 5e-6);
}

TEST(CgroupSamplerTest, AnUnlimitedQuotaIsOmitted) {
  TreeCopy v2(kV2Root);
  v2.write(std::string(kPodA) + "/cpu.max", "max 100000\n");
  Sample sample = make_cgroup_sampler(std::string("cgroup:") + kPodA, v2.root())->sample(1);
  ASSERT_TRUE(sample.ok) << sample.error;
  EXPECT_EQ(by_name(sample).count("cpu_quota_cores"), 0u);
  EXPECT_EQ(sample.readings.size(), kAllReadings.size() - 1);

  TreeCopy v1(kV1Root);
  v1.write(std::string(kPodBCpu) + "/cpu.cfs_quota_us", "-1\n");
  sample = make_cgroup_sampler(std::string("cgroup:") + kPodBCpu, v1.root())->sample(1);
  ASSERT_TRUE(sample.ok) << sample.error;
  EXPECT_EQ(by_name(sample).count("cpu_quota_cores"), 0u);
  EXPECT_EQ(sample.readings.size(), kAllReadings.size() - 1);
}

TEST(CgroupSamplerTest, V1WithoutAMemoryCgroupGivesTheCpuReadings) {
  TreeCopy tree(kV1Root);
  tree.remove("/sys/fs/cgroup/memory/kubepods/pod-b");
  Sample sample = make_cgroup_sampler(std::string("cgroup:") + kPodBCpu, tree.root())->sample(1);
  ASSERT_TRUE(sample.ok) << sample.error;
  EXPECT_EQ(names(sample), std::vector<std::string>(kAllReadings.begin(), kAllReadings.end() - 3));
}

TEST(CgroupSamplerTest, ARemovedCgroupIsAGapUntilItIsBack) {
  TreeCopy tree(kV2Root);
  auto sampler = make_cgroup_sampler(std::string("cgroup:") + kPodA, tree.root());
  ASSERT_TRUE(sampler->sample(1).ok);
  fs::rename(tree.path(kPodA), tree.path("/sys/fs/cgroup/moved"));
  Sample gone = sampler->sample(2);
  EXPECT_FALSE(gone.ok);
  EXPECT_EQ(gone.at_ns, 2);
  EXPECT_NE(gone.error.find("cgroup directory gone"), std::string::npos) << gone.error;
  EXPECT_TRUE(gone.readings.empty());
  fs::rename(tree.path("/sys/fs/cgroup/moved"), tree.path(kPodA));
  EXPECT_TRUE(sampler->sample(3).ok);
}

TEST(CgroupSamplerTest, V1IsGoneWhenTheNamedHierarchysCgroupIs) {
  TreeCopy tree(kV1Root);
  auto sampler = make_cgroup_sampler(std::string("cgroup:") + kPodBCpu, tree.root());
  tree.remove(kPodBCpu);
  Sample gone = sampler->sample(2);
  EXPECT_FALSE(gone.ok);
  EXPECT_NE(gone.error.find("gone"), std::string::npos) << gone.error;
}

// Garbage where the kernel writes numbers: a gap naming the file, never a crash, and the
// sampler reads again as soon as the file is sane.
TEST(CgroupSamplerTest, GarbageInAFileIsAGapNamingItAndTheNextSaneSampleIsRead) {
  const std::string v1_cpu = kPodBCpu;
  const std::string v1_memory = "/sys/fs/cgroup/memory/kubepods/pod-b";
  const std::string v1_cpuacct = "/sys/fs/cgroup/cpuacct/kubepods/pod-b";
  const std::string v2 = kPodA;
  const std::vector<std::tuple<std::string, std::string, std::string, std::string>> cases = {
      {kV2Root, v2, v2 + "/cpu.stat", "usage_usec 12\nnr_periods abc\n"},
      {kV2Root, v2, v2 + "/cpu.stat", "usage_usec\n"},
      {kV2Root, v2, v2 + "/cpu.stat", "usage_usec -4\n"},
      {kV2Root, v2, v2 + "/cpu.max", "half 100000\n"},
      {kV2Root, v2, v2 + "/cpu.max", "50000 0\n"},
      {kV2Root, v2, v2 + "/cpu.max", "50000\n"},
      {kV2Root, v2, v2 + "/memory.current", "12x\n"},
      {kV2Root, v2, v2 + "/memory.current", ""},
      {kV2Root, v2, v2 + "/memory.peak", "1e9\n"},
      {kV2Root, v2, v2 + "/memory.events", "oom_kill many\n"},
      {kV1Root, v1_cpu, v1_cpuacct + "/cpuacct.usage", "\x01\x02\x03"},
      {kV1Root, v1_cpu, v1_cpuacct + "/cpuacct.usage", "-1\n"},
      {kV1Root, v1_cpu, v1_cpu + "/cpu.stat", "nr_throttled 1.5\n"},
      {kV1Root, v1_cpu, v1_cpu + "/cpu.cfs_quota_us", "0\n"},
      {kV1Root, v1_cpu, v1_cpu + "/cpu.cfs_quota_us", "-2\n"},
      {kV1Root, v1_cpu, v1_cpu + "/cpu.cfs_period_us", "0\n"},
      {kV1Root, v1_cpu, v1_memory + "/memory.usage_in_bytes", "99999999999999999999999\n"},
      {kV1Root, v1_cpu, v1_memory + "/memory.oom_control", "oom_kill\n"},
  };
  for (const auto& [fixture, spec_path, file, garbage] : cases) {
    SCOPED_TRACE(file + " holding '" + garbage + "'");
    TreeCopy tree(fixture);
    auto sampler = make_cgroup_sampler("cgroup:" + spec_path, tree.root());
    std::string sane;
    {
      std::ifstream in(tree.path(file));
      sane.assign(std::istreambuf_iterator<char>(in), {});
    }
    tree.write(file, garbage);
    Sample bad = sampler->sample(1);
    EXPECT_FALSE(bad.ok);
    EXPECT_TRUE(bad.readings.empty());
    EXPECT_NE(bad.error.find(tree.path(file)), std::string::npos) << bad.error;
    EXPECT_EQ(bad.error.find('\n'), std::string::npos) << bad.error;
    tree.write(file, sane);
    Sample good = sampler->sample(2);
    EXPECT_TRUE(good.ok) << good.error;
    EXPECT_EQ(good.readings.size(), kAllReadings.size());
  }
}

TEST(CgroupSamplerTest, AFileThatCannotBeReadIsAGap) {
  TreeCopy tree(kV2Root);
  auto sampler = make_cgroup_sampler(std::string("cgroup:") + kPodA, tree.root());
  // A directory where a file should be: open succeeds, read fails (EISDIR), as root too.
  tree.remove(std::string(kPodA) + "/memory.current");
  fs::create_directory(tree.path(std::string(kPodA) + "/memory.current"));
  Sample sample = sampler->sample(1);
  EXPECT_FALSE(sample.ok);
  EXPECT_NE(sample.error.find("cannot read"), std::string::npos) << sample.error;
  EXPECT_NE(sample.error.find("memory.current"), std::string::npos) << sample.error;
}

}  // namespace
}  // namespace proofload::observe
