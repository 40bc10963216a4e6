// A sizing's summary.md: which shape leads, judged against the noise; a row per configuration.
#include "report/sizing_report.h"
#include "report/test_fixtures.h"

#include <gtest/gtest.h>

namespace proofload::report {
namespace {

using result::SizingConfigRecord;

SizingConfigRecord config(const std::string& name, std::optional<double> cores,
                          std::optional<double> best) {
  SizingConfigRecord c;
  c.name = name;
  c.directory = "configs/" + name;
  c.status = "complete";
  c.cores = cores;
  if (cores) c.cores_basis = "the name";
  c.best_sustained_rps = best;
  if (best) c.best_level = 8;
  if (best && cores) c.per_core_rps = *best / *cores;
  c.noise_floor = 0.05;
  return c;
}

result::SizingResult sizing() {
  result::SizingResult r;
  r.status = "complete";
  r.proofload_version = "1.2.3";
  r.command_line = "proofload sizing http://127.0.0.1:8080/ --configs a,b,c";
  r.source.target = "http://127.0.0.1:8080/";
  r.settings.loop = "closed";
  r.settings.levels = {2, 8};
  r.settings.hold_s = 2;
  r.settings.slo = "p95<=1s,errors<=1%";
  r.settings.apply = "./apply.sh";
  r.settings.restore = "./restore.sh";
  r.configs = {config("1x1/1Gi", 1, 1000), config("2x500m/1Gi", 1, 1030),
               config("1x500m/1Gi", 0.5, 400)};
  r.configs[2].throttled_share = 0.31;
  r.configs[2].memory_peak_bytes = 12.5 * 1024 * 1024;
  r.configs[2].knee_level = 8;
  return r;
}

TEST(SizingLead, ALeadInsideTheNoiseFloorIsNoFinding) {
  const result::SizingResult r = sizing();
  const SizingLead total = sizing_lead(r.configs, false);
  EXPECT_EQ(total.first, 1u);
  EXPECT_EQ(total.second, 0u);
  EXPECT_NEAR(*total.gain, 0.03, 1e-9);
  EXPECT_FALSE(total.beyond_noise);
  const SizingLead per_core = sizing_lead(r.configs, true);
  EXPECT_EQ(per_core.first, 1u);
  std::vector<SizingConfigRecord> clear = r.configs;
  clear[1].best_sustained_rps = 1200;
  EXPECT_TRUE(sizing_lead(clear, false).beyond_noise);
}

TEST(SizingReport, AnswersWhichShapeCarriesMostWithTheNoiseBesideIt) {
  const std::string md = render_sizing_summary(sizing());
  EXPECT_NE(md.find("# Sizing: which shape carries most?"), std::string::npos);
  EXPECT_NE(md.find("`2x500m/1Gi`: 1,030/s; next `1x1/1Gi`: 1,000/s, +3.0% (inside the 5.0% "
                    "noise floor: level, not a finding)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("One run per cell: differences under 5.0% are not findings"),
            std::string::npos);
  EXPECT_NE(md.find("| 1x500m/1Gi | 0.50 | 400 | – | 800 | – | 8 | – | 31.0% | 12.5 MiB | ok | "
                    "complete |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("throttled in up to 31.0% of CPU periods"), std::string::npos);
  EXPECT_NE(md.find("## What this does not show"), std::string::npos);
  EXPECT_NE(md.find("proofload sizing http://127.0.0.1:8080/"), std::string::npos);
  // Rendering is a function of the result alone; its bytes are the golden file's.
  EXPECT_EQ(md, render_sizing_summary(sizing()));
  testing_support::expect_matches_golden("sizing/summary.md", md);
}

TEST(SizingReport, SaysWhenOnlySomeInstancesWereObservedAndWhenTheHostWasSaturated) {
  result::SizingResult r = sizing();
  SizingConfigRecord& two = r.configs[1];
  two.instances = 2;
  two.best_p95_ms = 41.5;
  two.server_cores_max = 0.49;
  two.cpu_instances_observed = 1;
  two.host_saturated = true;
  r.configs[0].instances = 1;
  r.configs[0].server_cores_max = 0.98;
  r.configs[0].cpu_instances_observed = 1;
  const std::string md = render_sizing_summary(r);
  EXPECT_NE(md.find("| 2x500m/1Gi | 1.00 | 1,030 | 41.5 | 1,030 | – | none | 0.49 (1 of 2 "
                    "instances) | – | – | ok, host saturated | complete |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 1x1/1Gi | 1.00 | 1,000 | – | 1,000 | – | none | 0.98 | "),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- `2x500m/1Gi`: the CPU of only 1 of its 2 instances was observed"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| Was the generator or the host the limit? | No configuration flagged the "
                    "generator; but the host may have been, in `2x500m/1Gi`: its CPU was "
                    "saturated (90% or more of all its cores busy)"),
            std::string::npos)
      << md;
}

TEST(SizingReport, NamesFreeFormShapesWithoutPerCoreFigures) {
  result::SizingResult r = sizing();
  r.configs = {config("small", std::nullopt, 500)};
  const std::string md = render_sizing_summary(r);
  EXPECT_NE(md.find("Not known: no configuration with known cores met the SLO"), std::string::npos)
      << md;
  EXPECT_NE(md.find("per core not known"), std::string::npos);
}

}  // namespace
}  // namespace proofload::report
