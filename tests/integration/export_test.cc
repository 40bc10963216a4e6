// `proofload export`: a real run's windows as OpenMetrics, which promtool backfills into a
// Prometheus TSDB with every sample; the directory's table as CSV; bad directories and formats
// refused with one line and exit 2. Every load goes to 127.0.0.1 and ends by itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "process.h"

namespace proofload::testing {
namespace {

size_t samples_in(const std::string& openmetrics) {
  std::istringstream lines(openmetrics);
  size_t samples = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] != '#') ++samples;
  }
  return samples;
}

TEST(Export, ARunsWindowsBackfillIntoPrometheusAndItsTableIsItsCsv) {
  ServeProcess server({"--exit-after", "60s"});
  const std::string dir = make_temp_dir("export");
  const std::string out = dir + "/run";
  const Completed run = run_to_completion({proofload_binary(), "run", server.url(), "--rate", "200",
                                           "-d", "2s", "--warmup", "1s", "-q", "--out", out});
  ASSERT_EQ(run.exit_code, 0) << run.err;

  const Completed om =
      run_to_completion({proofload_binary(), "export", out, "--format", "openmetrics"});
  ASSERT_EQ(om.exit_code, 0) << om.err;
  EXPECT_TRUE(om.out.ends_with("# EOF\n"));
  const size_t windows = nlohmann::json::parse(read_file(out + "/result.json"))["windows"].size();
  EXPECT_NE(om.out.find("proofload_requests_total{outcome=\"success\"}"), std::string::npos);
  // -o writes the same bytes to a file.
  ASSERT_EQ(run_to_completion({proofload_binary(), "export", out, "--format", "openmetrics", "-o",
                               dir + "/run.om"})
                .exit_code,
            0);
  EXPECT_EQ(read_file(dir + "/run.om"), om.out);

  if (!std::filesystem::exists("/usr/bin/promtool")) {
    GTEST_SKIP() << "no /usr/bin/promtool (Debian's prometheus package; scripts/bootstrap "
                    "installs it)";
  }
  const Completed backfill = run_to_completion({"/usr/bin/promtool", "tsdb", "create-blocks-from",
                                                "openmetrics", dir + "/run.om", dir + "/tsdb"});
  ASSERT_EQ(backfill.exit_code, 0) << backfill.out << backfill.err;
  const Completed list = run_to_completion({"/usr/bin/promtool", "tsdb", "list", dir + "/tsdb"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  // BLOCK ULID, MIN TIME, MAX TIME, DURATION, NUM SAMPLES, ...: every sample went in.
  std::istringstream rows(list.out);
  std::string header, ulid, min_time, max_time, duration;
  size_t stored = 0;
  std::getline(rows, header);
  rows >> ulid >> min_time >> max_time >> duration >> stored;
  EXPECT_EQ(stored, samples_in(om.out)) << list.out;
  EXPECT_GE(stored, windows * 4) << "each window has at least four series";

  const Completed csv = run_to_completion({proofload_binary(), "export", out, "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out, read_file(out + "/windows.csv"));
}

TEST(Export, WhatCannotBeExportedIsOneLineAndExitTwo) {
  const std::string dir = make_temp_dir("export-bad");
  const Completed missing =
      run_to_completion({proofload_binary(), "export", dir, "--format", "openmetrics"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot read " + dir + "/result.json"), std::string::npos)
      << missing.err;
  write_file(dir + "/result.json", R"({"schema": "proofload.ladder/v1", "rows": []})");
  const Completed ladder =
      run_to_completion({proofload_binary(), "export", dir, "--format", "openmetrics"});
  EXPECT_EQ(ladder.exit_code, 2);
  EXPECT_NE(ladder.err.find("a ladder's levels are runs of their own"), std::string::npos)
      << ladder.err;
  const Completed format =
      run_to_completion({proofload_binary(), "export", dir, "--format", "prom-remote-write-json"});
  EXPECT_EQ(format.exit_code, 2);
  EXPECT_EQ(std::count(format.err.begin(), format.err.end(), '\n'), 1) << format.err;
}

}  // namespace
}  // namespace proofload::testing
