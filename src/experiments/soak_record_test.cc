// A soak's record: rebuilt from the files a killed soak streamed, judged the same way a finished
// one is, and its result.json read back as written.
#include "experiments/soak_record.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "report/atomic_file.h"

namespace proofload::experiments {
namespace {

namespace fs = std::filesystem;

result::SoakResult plan_of_a_soak() {
  result::SoakResult r;
  r.status = "running";
  r.command_line = "proofload soak http://127.0.0.1:1/ --rate 10 --hold 20s --window 1s";
  r.source.target = "http://127.0.0.1:1/";
  r.hold_start_unix_ns = 1'000'000'000'000;
  r.settings.loop = "open";
  r.settings.rate_rps = 10;
  r.settings.hold_s = 20;
  r.settings.window_s = 1;
  r.settings.bar = "errors<=1%,p95<2s,canaries";
  r.settings.mark_window_s = 2;
  r.settings.canary_every_s = 1;
  r.settings.canaries = {"health"};
  r.settings.marks = {{3, "rollback", "kubectl rollout undo deploy/app"}};
  return r;
}

analyze::SoakWindowRow row(int64_t index, int64_t errors) {
  analyze::SoakWindowRow w;
  w.index = index;
  w.start_s = static_cast<double>(index);
  w.duration_s = 1;
  w.requests = 10;
  w.errors = errors;
  w.p50_ms = 2;
  w.p95_ms = 5;
  w.p99_ms = 6;
  w.slowest_ms = index == 9 ? 700 : 7;
  w.slowest_at_s = w.start_s;
  w.throughput_rps = 10;
  return w;
}

class SoakRecord : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pl-soak-record-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(SoakRecord, AKilledSoaksFilesRebuildItsReport) {
  const result::SoakResult plan = plan_of_a_soak();
  report::write_file_atomically(dir_ / kSoakPlanJson, result::soak_to_json(plan).dump(2));
  std::string windows = soak_windows_csv_header() + "\n";
  for (int64_t i = 0; i < 16; ++i) windows += soak_windows_csv_line(row(i, i == 12 ? 5 : 0)) + "\n";
  windows += "16,hold,16.0";  // the line the kill tore
  report::write_file_atomically(dir_ / kSoakWindowsCsv, windows);
  std::string canaries = canaries_csv_header() + "\n";
  for (int i = 0; i < 16; ++i) {
    // 5 was wrong, and wrong again on its retry; 7 was right on its retry.
    CanaryResult c{"health", 0, i != 5, i == 5 || i == 7, i == 5 ? "status 500" : ""};
    canaries += canaries_csv_line(c, i + 0.2) + "\n";
  }
  report::write_file_atomically(dir_ / kCanariesCsv, canaries);
  append_mark(dir_, "scheduled", "rollback", plan.hold_start_unix_ns + 3'000'000'000);
  append_mark(dir_, "external", "deleted one pod", plan.hold_start_unix_ns + 12'500'000'000);

  const result::SoakResult r = read_or_rebuild_soak(dir_);
  EXPECT_TRUE(r.rebuilt);
  EXPECT_EQ(r.status, "interrupted");
  ASSERT_EQ(r.windows.size(), 16u);
  EXPECT_EQ(r.windows_missed, 2);  // window 5's wrong canary, window 12's errors
  EXPECT_FALSE(r.windows[5].bar_met);
  EXPECT_EQ(r.windows[5].canaries_wrong, 1);
  EXPECT_EQ(r.canaries.total, 16);
  EXPECT_EQ(r.canaries.right, 15);
  EXPECT_EQ(r.canaries.retried, 2);
  EXPECT_EQ(r.canaries.retried_right, 1);
  ASSERT_EQ(r.marks.size(), 2u);
  EXPECT_EQ(r.marks[0].mark.label, "rollback");
  EXPECT_EQ(r.marks[0].mark.command, "kubectl rollout undo deploy/app");
  EXPECT_DOUBLE_EQ(r.marks[0].mark.at_s, 3);
  // +3 s with 2 s either side: windows 1 to 4, all met (window 5's wrong canary is outside).
  EXPECT_EQ(r.marks[0].verdict, "PASS") << r.marks[0].reason;
  EXPECT_EQ(r.marks[1].verdict, "FAIL");  // +12.5 s: window 12's errors
  EXPECT_EQ(r.slowest.ms, 700);
  EXPECT_DOUBLE_EQ(r.slowest.at_s, 9);

  write_soak_directory(dir_, r);
  std::ifstream summary(dir_ / "summary.md");
  const std::string text{std::istreambuf_iterator<char>(summary), std::istreambuf_iterator<char>()};
  EXPECT_NE(text.find("rebuilt from the files the soak streamed"), std::string::npos);
  EXPECT_NE(text.find("2 of 16 windows missed the bar"), std::string::npos) << text;
  // What the retries came to, each in its own number.
  EXPECT_NE(text.find("15 of 16 canaries right; 1 was right only on its retry, 1 was wrong again "
                      "on its retry"),
            std::string::npos)
      << text;
  // Rendered again from the result.json just written: the same bytes.
  const result::SoakResult again = read_or_rebuild_soak(dir_);
  EXPECT_FALSE(again.rebuilt == false && again.status == "running");
  write_soak_directory(dir_, again);
  std::ifstream summary2(dir_ / "summary.md");
  const std::string text2{std::istreambuf_iterator<char>(summary2),
                          std::istreambuf_iterator<char>()};
  EXPECT_EQ(text, text2);
}

TEST_F(SoakRecord, ResultJsonReadsBackAsWritten) {
  result::SoakResult r = plan_of_a_soak();
  std::vector<analyze::SoakWindowRow> rows;
  for (int64_t i = -2; i < 10; ++i) {
    analyze::SoakWindowRow w = row(i, 0);
    w.ramp = i < 0;
    rows.push_back(w);
  }
  complete_soak(r, rows, CanaryTally(r.settings.window_s), {});
  const result::SoakResult back = result::soak_from_json(result::soak_to_json(r));
  EXPECT_EQ(result::soak_to_json(back), result::soak_to_json(r));
  EXPECT_EQ(back.ramp.size(), 2u);
  EXPECT_EQ(back.windows.size(), 10u);
  EXPECT_EQ(back.drift.verdict, "no drift");
  const nlohmann::json json = result::soak_to_json(r);
  for (const char* key :
       {"index", "start_s", "requests", "errors", "status_429", "p50_ms", "p95_ms", "p99_ms",
        "slowest_ms", "throughput_rps", "canaries_right", "canaries_wrong", "bar_met", "reasons"}) {
    EXPECT_TRUE(json["soak"]["windows"][0].contains(key)) << key;
  }
  for (const char* key : {"windows_missed", "canaries", "drift", "slowest", "marks"}) {
    EXPECT_TRUE(json["soak"].contains(key)) << key;
  }
  EXPECT_THROW(result::soak_from_json(nlohmann::json{
                   {"schema", "proofload.soak/v1"}, {"kind", "ladder"}, {"status", "complete"}}),
               std::runtime_error);
}

// v2 renamed settings.noise_floor (a ladder's word for throughput noise) to drift_floor_share; a
// soak recorded as v1 reads back with its share, and the registry still knows its directory.
TEST_F(SoakRecord, AVersionOneFileReadsItsDriftFloorShareFromNoiseFloor) {
  result::SoakResult r = plan_of_a_soak();
  r.settings.drift_floor_share = 0.12;
  nlohmann::json json = result::soak_to_json(r);
  EXPECT_EQ(json["schema"], "proofload.soak/v2");
  EXPECT_EQ(json["settings"]["drift_floor_share"], 0.12);
  EXPECT_FALSE(json["settings"].contains("noise_floor"));
  json["schema"] = "proofload.soak/v1";
  json["settings"].erase("drift_floor_share");
  json["settings"]["noise_floor"] = 0.2;
  EXPECT_EQ(result::soak_from_json(json).settings.drift_floor_share, 0.2);
  json["schema"] = "proofload.soak/v3";
  EXPECT_THROW(result::soak_from_json(json), std::runtime_error);
}

}  // namespace
}  // namespace proofload::experiments
