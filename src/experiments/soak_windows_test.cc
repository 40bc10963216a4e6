// Folding a run's 1 s records into soak windows, and the streamed files a killed soak leaves.
#include "experiments/soak_windows.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "common/clock.h"
#include "experiments/soak_files.h"

namespace proofload::experiments {
namespace {

measure::WindowStats second(int64_t index, int64_t successes, int64_t latency_us,
                            int64_t errors = 0) {
  measure::WindowStats w;
  w.index = index;
  w.start_ns = index * kNsPerS;
  w.duration_ns = kNsPerS;
  w.outcomes[static_cast<int>(measure::Outcome::kSuccess)] = successes;
  w.outcomes[static_cast<int>(measure::Outcome::kStatus429)] = errors;
  for (int64_t i = 0; i < successes + errors; ++i) w.latency_us.record(latency_us);
  return w;
}

TEST(SoakWindowFolder, FoldsSecondsIntoWindowsFromTheHoldsStart) {
  SoakWindowFolder folder(3 * kNsPerS, 2 * kNsPerS);  // 3 s windows after a 2 s ramp
  std::vector<analyze::SoakWindowRow> rows;
  for (int64_t s = 0; s < 8; ++s) {
    if (auto row = folder.add(second(s, 10, s == 4 ? 90'000 : 1'000, s == 6 ? 5 : 0)))
      rows.push_back(*row);
  }
  if (auto row = folder.finish()) rows.push_back(*row);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].index, -1);  // the ramp's two seconds
  EXPECT_TRUE(rows[0].ramp);
  EXPECT_DOUBLE_EQ(rows[0].start_s, -2);
  EXPECT_DOUBLE_EQ(rows[0].duration_s, 2);
  EXPECT_EQ(rows[1].index, 0);
  EXPECT_FALSE(rows[1].ramp);
  EXPECT_EQ(rows[1].requests, 30);
  EXPECT_DOUBLE_EQ(rows[1].throughput_rps, 10);
  ASSERT_TRUE(rows[1].slowest_ms);
  EXPECT_NEAR(*rows[1].slowest_ms, 90, 0.1);
  EXPECT_DOUBLE_EQ(rows[1].slowest_at_s, 2);  // second 4 is 2 s into the hold
  EXPECT_EQ(rows[2].index, 1);
  EXPECT_EQ(rows[2].requests, 35);  // seconds 5 to 7: 10 + (10 + 5) + 10
  EXPECT_EQ(rows[2].errors, 5);
  EXPECT_EQ(rows[2].status_429, 5);
  EXPECT_DOUBLE_EQ(rows[2].duration_s, 3);
}

// A request started in the hold's last second and answered after the schedule's end is in the
// run's drain window: the soak's last window counts it (as the run does), without more time.
TEST(SoakWindowFolder, WhatWasAnsweredAfterTheScheduleEndedCountsInTheLastWindow) {
  SoakWindowFolder folder(2 * kNsPerS, 0);
  std::vector<analyze::SoakWindowRow> rows;
  for (int64_t s = 0; s < 4; ++s) {
    if (auto row = folder.add(second(s, s == 3 ? 9 : 10, 1'000))) rows.push_back(*row);
  }
  measure::WindowStats drain = second(4, 1, 3'000);
  drain.duration_ns = 0;
  drain.drain = true;
  EXPECT_FALSE(folder.add(drain));
  if (auto row = folder.finish()) rows.push_back(*row);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].requests + rows[1].requests, 40);
  EXPECT_EQ(rows[1].requests, 20);
  EXPECT_DOUBLE_EQ(rows[1].duration_s, 2);
  EXPECT_DOUBLE_EQ(rows[1].throughput_rps, 10);
  ASSERT_TRUE(rows[1].slowest_ms);
  EXPECT_NEAR(*rows[1].slowest_ms, 3, 0.01);
}

TEST(SoakWindowFolder, ObserversGapsAreStatedInTheWindowTheyFellIn) {
  SoakWindowFolder folder(2 * kNsPerS, 0);
  ASSERT_FALSE(folder.add(second(0, 10, 1000)));
  ASSERT_FALSE(
      folder.add(second(1, 10, 1000), 1, "k8s:prod/app=x: kubectl get pods failed: exit 1"));
  const auto first = folder.add(second(2, 10, 1000), 2, "prom:http://127.0.0.1:9/metrics: down");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->observer_gaps, 1);
  EXPECT_EQ(first->observer_gap, "k8s:prod/app=x: kubectl get pods failed: exit 1");
  const auto second_window = folder.finish();
  ASSERT_TRUE(second_window);
  EXPECT_EQ(second_window->observer_gaps, 2);
  // In windows.csv the reason keeps its words; its commas become semicolons (only the last field
  // may hold commas).
  analyze::SoakWindowRow row = *first;
  row.observer_gap = "k8s:prod/app=x,y: failed, twice";
  row.reasons = {"errors 2% > 1%, really"};
  const auto back =
      parse_soak_windows_csv(soak_windows_csv_header() + "\n" + soak_windows_csv_line(row) + "\n");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].observer_gaps, 1);
  EXPECT_EQ(back[0].observer_gap, "k8s:prod/app=x;y: failed; twice");
  EXPECT_EQ(back[0].reasons, row.reasons);
}

TEST(SoakWindowFolder, NeverStartedRequestsAreErrorsOfTheSoak) {
  SoakWindowFolder folder(kNsPerS, 0);
  measure::WindowStats w = second(0, 8, 1000);
  w.outcomes[static_cast<int>(measure::Outcome::kNeverStarted)] = 2;
  ASSERT_FALSE(folder.add(w));
  const auto row = folder.finish();
  ASSERT_TRUE(row);
  EXPECT_EQ(row->requests, 10);
  EXPECT_EQ(row->errors, 2);
}

TEST(SoakFiles, WindowsReadBackAsWrittenAndATornLastLineIsSkipped) {
  analyze::SoakWindowRow w;
  w.index = 3;
  w.start_s = 180;
  w.duration_s = 60;
  w.requests = 3600;
  w.errors = 40;
  w.status_429 = 2;
  w.p50_ms = 1.5;
  w.p95_ms = 4.25;
  w.slowest_ms = 812;
  w.slowest_at_s = 201;
  w.throughput_rps = 59.5;
  w.canaries_right = 1;
  w.canaries_wrong = 1;
  w.bar_met = false;
  w.reasons = {"errors 1.11% > 1%", "1 of 2 canaries wrong, really"};
  w.ttft_p95_ms = 312.5;
  w.tokens_per_s = 1500;
  const std::string text = soak_windows_csv_header() + "\n" + soak_windows_csv_line(w) + "\n" +
                           soak_windows_csv_line(w).substr(0, 20);
  const auto rows = parse_soak_windows_csv(text);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].index, 3);
  EXPECT_EQ(rows[0].requests, 3600);
  EXPECT_FALSE(rows[0].p99_ms);
  EXPECT_DOUBLE_EQ(*rows[0].p95_ms, 4.25);
  EXPECT_EQ(rows[0].reasons, w.reasons);
  EXPECT_DOUBLE_EQ(*rows[0].ttft_p95_ms, 312.5);
  EXPECT_DOUBLE_EQ(*rows[0].tokens_per_s, 1500);
  EXPECT_FALSE(rows[0].stream_goodput);
  EXPECT_THROW(parse_soak_windows_csv(soak_windows_csv_header() + "\nnot,a,window\n"),
               std::runtime_error);
}

TEST(SoakFiles, MarksFromSeveralWritersAreReadOnceEach) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("pl-marks-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  append_mark(dir, "external", "deleted\tone pod\n", 1'000);
  size_t offset = 0;
  std::string text;
  auto read_all = [&] {
    std::ifstream in(dir / kMarksLog);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return read_marks(text, offset);
  };
  auto first = read_all();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].label, "deleted one pod ");
  EXPECT_EQ(first[0].wall_ns, 1'000);
  append_mark(dir, "scheduled", "rollback", 2'000);
  auto second_read = read_all();
  ASSERT_EQ(second_read.size(), 1u);  // only the new line
  EXPECT_EQ(second_read[0].source, "scheduled");
  EXPECT_TRUE(read_all().empty());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace proofload::experiments
