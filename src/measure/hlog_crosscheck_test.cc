// Cross-check with a real HdrHistogram implementation: writes an interval log with known data,
// has hdr-histogram-js (tests/hlog_check/check.js) read it, and compares what it sees with our
// own answers. Skipped (never passed) when node or the npm package is not installed.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "measure/hlog.h"

namespace proofload::measure {
namespace {

namespace fs = std::filesystem;

struct Logged {
  std::string tag;
  double start_s;
  double length_s;
  HdrHistogram histogram;
};

std::vector<Logged> known_intervals() {
  std::vector<Logged> out;
  std::mt19937_64 rng(1234);
  {
    HdrHistogram h;
    std::uniform_int_distribution<int64_t> dist(100, 50'000);
    for (int i = 0; i < 10'000; ++i) h.record(dist(rng));
    out.push_back({"", 0.0, 1.0, h});
  }
  {
    HdrHistogram h;
    std::lognormal_distribution<double> dist(std::log(3000.0), 1.2);
    for (int i = 0; i < 50'000; ++i) h.record(static_cast<int64_t>(dist(rng)));
    h.record(3'600'000'000);  // a 1 h outlier at the top of the range
    out.push_back({"latency", 1.0, 1.0, h});
  }
  {
    HdrHistogram h;
    h.record_n(777, 3);
    h.record_n(1'000'000, 1'000'000'000);  // counts past 32 bits
    out.push_back({"service", 2.0, 0.5, h});
  }
  out.push_back({"", 2.5, 1.0, HdrHistogram()});
  return out;
}

// Runs a command and returns its stdout; exit status in *status.
std::string run(const std::string& command, int* status) {
  std::string out;
  std::FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) {
    *status = -1;
    return out;
  }
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int rc = pclose(p);
  *status = (rc != -1 && WIFEXITED(rc)) ? WEXITSTATUS(rc) : -1;
  return out;
}

TEST(HlogCrossCheck, HdrHistogramJsReadsOurLogAsWeDo) {
  const std::string node = PROOFLOAD_NODE;
  const fs::path check_dir = PROOFLOAD_HLOG_CHECK_DIR;
  if (node.empty() || access(node.c_str(), X_OK) != 0) {
    GTEST_SKIP() << "node is not installed (cmake found: '" << node << "')";
  }
  if (!fs::exists(check_dir / "node_modules" / "hdr-histogram-js" / "package.json")) {
    GTEST_SKIP() << "hdr-histogram-js is not installed: run `npm ci` in " << check_dir;
  }

  const std::vector<Logged> logged = known_intervals();
  char path_template[] = "/tmp/proofload_hlog_XXXXXX";
  const int fd = mkstemp(path_template);
  ASSERT_GE(fd, 0);
  const std::string path = path_template;
  std::FILE* f = fdopen(fd, "w");
  ASSERT_NE(f, nullptr);
  {
    HlogWriter writer(f);
    writer.write_header(1'700'000'000.0);
    for (const Logged& l : logged) writer.write_interval(l.start_s, l.length_s, l.histogram, l.tag);
    EXPECT_TRUE(writer.ok());
  }
  std::fclose(f);

  int status = 0;
  const std::string out =
      run("'" + node + "' '" + (check_dir / "check.js").string() + "' '" + path + "'", &status);
  fs::remove(path);
  ASSERT_EQ(status, 0) << "check.js failed; stdout: " << out;
  const nlohmann::json got = nlohmann::json::parse(out);
  ASSERT_EQ(got.size(), logged.size()) << out;

  for (size_t i = 0; i < logged.size(); ++i) {
    SCOPED_TRACE("interval " + std::to_string(i));
    const HdrHistogram& h = logged[i].histogram;
    const nlohmann::json& j = got[i];
    EXPECT_EQ(j["tag"].get<std::string>(), logged[i].tag);
    // Relative timestamps are placed after the log's StartTime, as Java's reader does.
    EXPECT_DOUBLE_EQ(j["start_ms"].get<double>(), (1'700'000'000.0 + logged[i].start_s) * 1000);
    EXPECT_DOUBLE_EQ(j["end_ms"].get<double>() - j["start_ms"].get<double>(),
                     logged[i].length_s * 1000);
    EXPECT_EQ(j["lowest"].get<int64_t>(), h.lowest_discernible());
    EXPECT_EQ(j["highest"].get<int64_t>(), h.highest_trackable());
    EXPECT_EQ(j["figures"].get<int>(), h.significant_figures());
    EXPECT_EQ(j["total"].get<int64_t>(), h.total_count());
    EXPECT_EQ(j["p50"].get<int64_t>(), h.value_at_percentile(50));
    EXPECT_EQ(j["p90"].get<int64_t>(), h.value_at_percentile(90));
    EXPECT_EQ(j["p99"].get<int64_t>(), h.value_at_percentile(99));
    EXPECT_EQ(j["p999"].get<int64_t>(), h.value_at_percentile(99.9));
    EXPECT_EQ(j["max"].get<int64_t>(), h.max());
    EXPECT_EQ(j["min"].get<int64_t>(), h.min());
    if (h.total_count() > 0) {
      // hdr-histogram-js's mean uses bucket midpoints; ours is exact: they agree to the
      // histogram's precision.
      EXPECT_NEAR(j["mean"].get<double>(), h.mean(), h.mean() * 1e-3);
    }
  }
}

}  // namespace
}  // namespace proofload::measure
