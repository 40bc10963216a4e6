// Each named request of a ladder judged on its own, on rows whose answers are known by
// construction: its figures over repeats, its own steps and plateau against the ladder's noise
// floor, and what is left unjudged when a table did not say.
#include "analyze/route_analysis.h"

#include <gtest/gtest.h>

#include "analyze/ladder_analysis.h"
#include "result/ladder_analysis_json.h"
#include "words/ladder_words.h"

namespace proofload::analyze {
namespace {

LevelRoute route(const std::string& name, std::optional<double> goodput, double p95_ms,
                 int64_t requests) {
  LevelRoute r;
  r.name = name;
  r.goodput_rps = goodput;
  r.achieved_rps = goodput;
  r.p95_ms = p95_ms;
  r.requests = requests;
  r.error_rate = 0;
  return r;
}

// A level of a two-request mix: the mix's goodput is the sum of its requests'.
LevelRow mix_row(double level, double read_rps, double write_rps, int repeat = 1) {
  LevelRow r;
  r.level = level;
  r.repeat = repeat;
  r.achieved_rps = read_rps + write_rps;
  r.p95_ms = 10;
  r.error_rate = 0;
  r.routes = {route("read", read_rps, 5, 1000), route("write", write_rps, 20, 500)};
  return r;
}

const RouteAnalysis& named(const LadderAnalysis& a, const std::string& name) {
  for (const RouteAnalysis& r : a.routes) {
    if (r.name == name) return r;
  }
  throw std::runtime_error("no route " + name);
}

TEST(RouteAnalysis, ARequestHeldAtALimitIsFlatWhileTheMixStillGains) {
  // Writes held at 30/s from level 80; reads double at every step, so the mix gains +50%, +60%.
  const LadderAnalysis a = words::described_ladder(
      {mix_row(40, 20, 20), mix_row(80, 40, 30), mix_row(160, 80, 30.3)}, parse_slo("p95<1s"), {});
  EXPECT_FALSE(a.plateau_from);
  ASSERT_EQ(a.routes.size(), 2u);
  const RouteAnalysis& write = named(a, "write");
  ASSERT_EQ(write.levels.size(), 3u);
  EXPECT_EQ(write.plateau_from, 1u);  // level 80
  EXPECT_EQ(write.levels[2].gain_text, "+1.0%: flat, inside the 5.0% noise floor");
  EXPECT_EQ(write.levels[1].gain_text, "+50.0%: grows, beyond the 5.0% noise floor");
  EXPECT_TRUE(write.levels[0].gain_text.empty());
  EXPECT_FALSE(named(a, "read").plateau_from);
}

TEST(RouteAnalysis, RepeatsAreMeanedAndTheirRequestsSummed) {
  const LadderAnalysis a =
      words::described_ladder({mix_row(10, 100, 50, 1), mix_row(10, 110, 52, 2),
                               mix_row(20, 200, 100, 1), mix_row(20, 190, 98, 2)},
                              parse_slo("p95<1s"), {});
  const RouteAnalysis& read = named(a, "read");
  ASSERT_EQ(read.levels.size(), 2u);
  EXPECT_DOUBLE_EQ(*read.levels[0].goodput_rps, 105);
  EXPECT_EQ(read.levels[0].requests, 2000);
  EXPECT_DOUBLE_EQ(*read.levels[1].p95_ms, 5);
}

TEST(RouteAnalysis, WithoutGoodputARequestIsShownButNotJudged) {
  // A table that gave only each request's p95: no step, no plateau, and not "flat from nothing".
  std::vector<LevelRow> rows = {mix_row(10, 100, 50), mix_row(20, 200, 50)};
  for (LevelRow& r : rows) {
    for (LevelRoute& route : r.routes) route.goodput_rps.reset();
  }
  const LadderAnalysis a = words::described_ladder(rows, parse_slo("p95(write)<1s"), {});
  const RouteAnalysis& write = named(a, "write");
  EXPECT_FALSE(write.plateau_from);
  EXPECT_FALSE(write.levels[1].gain);
  EXPECT_TRUE(write.levels[1].gain_text.empty());
  // The SLO's scoped term is read from the request's own figures.
  EXPECT_TRUE(a.levels[1].meets_slo);
  EXPECT_EQ(a.levels[1].slo[0].observed, 20);
}

TEST(RouteAnalysis, RoutesSurviveTheAnalysisJson) {
  const LadderAnalysis a = words::described_ladder(
      {mix_row(40, 20, 20), mix_row(80, 40, 30), mix_row(160, 80, 30.3)}, parse_slo("p95<1s"), {});
  const LadderAnalysis back = result::analysis_from_json(result::analysis_to_json(a));
  ASSERT_EQ(back.routes.size(), 2u);
  EXPECT_EQ(back.routes[1].name, "write");
  EXPECT_EQ(back.routes[1].plateau_from, 1u);
  EXPECT_EQ(back.routes[1].levels[2].gain_text, a.routes[1].levels[2].gain_text);
  EXPECT_EQ(back.routes[0].levels[1].requests, 1000);
}

}  // namespace
}  // namespace proofload::analyze
