// A sizing's result.json: every field written reads back the same; required keys are required.
#include "result/sizing_result.h"

#include <gtest/gtest.h>

namespace proofload::result {
namespace {

SizingResult sizing_sample() {
  SizingResult r;
  r.status = "interrupted";
  r.end_reason = "interrupted by a signal in configuration 2x500m/1Gi";
  r.proofload_version = "1.2.3";
  r.command_line = "proofload sizing http://127.0.0.1:8080/ --configs 1x1/1Gi,2x500m/1Gi";
  r.started_at = "2026-12-02T10:00:00.000Z";
  r.source.target = "http://127.0.0.1:8080/";
  r.run_directory = "configs";
  r.settings.apply = "./apply.sh";
  r.settings.restore = "./restore.sh";
  r.settings.loop = "closed";
  r.settings.levels = {2, 8};
  r.settings.hold_s = 2;
  r.settings.slo = "p95<=1s,errors<=1%";
  r.settings.observe = {"cgroup:/sys/fs/cgroup/cpu/${PROOFLOAD_CONFIG_SLUG}"};
  SizingConfigRecord a;
  a.name = "1x1/1Gi";
  a.directory = "configs/01-1x1-1Gi";
  a.status = "complete";
  a.instances = 1;
  a.cpu_per_instance = 1;
  a.memory_per_instance_bytes = int64_t{1} << 30;
  a.cores = 1;
  a.cores_basis = "the name";
  a.targets = {"http://127.0.0.1:8080/"};
  a.best_sustained_rps = 1234.5;
  a.best_level = 8;
  a.per_core_rps = 1234.5;
  a.peak_rps = 1300;
  a.knee_level = 8;
  a.throttled_share = 0.25;
  a.server_cores_max = 0.98;
  a.memory_peak_bytes = 5.0e6;
  a.generator_busy = true;
  a.noise_floor = 0.05;
  a.noise_floor_source = "default";
  SizingConfigRecord b;
  b.name = "free form";
  b.directory = "configs/02-free-form";
  r.configs = {a, b};
  return r;
}

TEST(SizingResult, RoundTripsEveryField) {
  const SizingResult r = sizing_sample();
  const nlohmann::json json = sizing_to_json(r);
  EXPECT_EQ(json["schema"], kSizingSchema);
  EXPECT_EQ(json["kind"], "sizing");
  const nlohmann::json& c = json["sizing"]["configs"][0];
  for (const char* key : {"name", "cores", "best_sustained_rps", "per_core_rps", "peak_rps",
                          "knee_level", "throttled_share", "memory_peak_bytes", "generator_busy"}) {
    EXPECT_TRUE(c.contains(key)) << key;
  }
  EXPECT_TRUE(json["sizing"]["configs"][1]["cores"].is_null());
  const SizingResult back = sizing_from_json(json);
  EXPECT_EQ(sizing_to_json(back), json);
  EXPECT_EQ(back.configs[0].instances, 1);
  EXPECT_EQ(back.configs[0].throttled_share, 0.25);
  EXPECT_FALSE(back.configs[1].best_sustained_rps);
  EXPECT_EQ(back.settings.apply, "./apply.sh");
  EXPECT_FALSE(back.settings.ready_until);
}

// A file that does not say how long the ready wait was is read with the command's default (it
// once read as 60 s where the command waited 120 s).
TEST(SizingResult, AReadyTimeoutNotRecordedIsTheCommandsDefault) {
  nlohmann::json json = sizing_to_json(sizing_sample());
  json["settings"].erase("ready_timeout_s");
  EXPECT_EQ(sizing_from_json(json).settings.ready_timeout_s, 120);
  EXPECT_EQ(SizingSettings{}.ready_timeout_s, 120);
}

TEST(SizingResult, RequiresTheSchemaAndEachConfigsName) {
  nlohmann::json json = sizing_to_json(sizing_sample());
  json["sizing"]["configs"][0].erase("name");
  EXPECT_THROW(sizing_from_json(json), std::runtime_error);
  json = sizing_to_json(sizing_sample());
  json["schema"] = "proofload.ladder/v1";
  EXPECT_THROW(sizing_from_json(json), std::runtime_error);
  json = sizing_to_json(sizing_sample());
  json["sizing"]["configs"][0]["throttled_share"] = "a lot";
  EXPECT_THROW(sizing_from_json(json), std::runtime_error);
}

}  // namespace
}  // namespace proofload::result
