// Tests of the compare matrix file: what a user writes is what runs, and each mistake is one
// line with the place to fix it.
#include "experiments/compare_matrix.h"

#include <gtest/gtest.h>

#include "common/usage_error_test_support.h"

namespace proofload::experiments {
namespace {

CompareMatrix parse(const std::string& text) { return parse_compare_matrix(text, "m.yaml", "."); }

std::string error_of(const std::string& text) {
  return testing::usage_error_of([&] { parse(text); });
}

TEST(CompareMatrix, ReadsEveryPart) {
  const CompareMatrix m = parse(
      "target: http://127.0.0.1:8080/v4\n"
      "defaults: {headers: {Accept: application/json}}\n"
      "checks:\n"
      "  lookup: {path: /sic/code/62012}\n"
      "  search: {path: '/search?q=consulting', method: POST, body: x}\n"
      "conditions: [cold, warm]\n"
      "settings:\n"
      "  '0.5 CPU / 1 GiB': {apply: ./limit.sh 0.5, restore: ./unlimit.sh}\n"
      "  '1 CPU': {apply: ./limit.sh 1}\n"
      "metric: p95\n"
      "run: {rate: 100/s, duration: 30s, warmup: 2s}\n"
      "repeat: 5\n"
      "min_effect: 3%\n");
  ASSERT_EQ(m.checks.requests.size(), 2u);
  EXPECT_EQ(m.checks.requests[0].name, "lookup");
  EXPECT_EQ(m.checks.requests[0].path_template, "/sic/code/62012");
  EXPECT_EQ(m.checks.requests[1].method, "POST");
  EXPECT_EQ(m.checks.target, "http://127.0.0.1:8080/v4");
  ASSERT_EQ(m.checks.default_headers.size(), 1u);
  EXPECT_EQ(m.conditions, (std::vector<std::string>{"cold", "warm"}));
  ASSERT_EQ(m.settings.size(), 2u);
  EXPECT_EQ(m.settings[0].name, "0.5 CPU / 1 GiB");
  EXPECT_EQ(m.settings[0].apply, "./limit.sh 0.5");
  EXPECT_EQ(m.settings[0].restore, "./unlimit.sh");
  EXPECT_FALSE(m.settings[1].restore);
  EXPECT_EQ(m.metric, analyze::CompareMetric::kP95);
  EXPECT_EQ(m.rate_per_s, 100);
  EXPECT_EQ(m.duration_ns, int64_t{30} * 1'000'000'000);
  EXPECT_EQ(m.warmup_ns, int64_t{2} * 1'000'000'000);
  EXPECT_EQ(m.repeat, 5);
  EXPECT_DOUBLE_EQ(m.min_effect, 0.03);
}

TEST(CompareMatrix, DefaultsAreStated) {
  const CompareMatrix m = parse("checks:\n  lookup: {path: /}\n");
  EXPECT_TRUE(m.conditions.empty());
  EXPECT_TRUE(m.settings.empty());
  EXPECT_EQ(m.metric, analyze::CompareMetric::kP50);
  EXPECT_EQ(m.connections, 10);
  EXPECT_FALSE(m.rate_per_s);
  EXPECT_EQ(m.repeat, 3);
  EXPECT_DOUBLE_EQ(m.min_effect, 0.05);
}

TEST(CompareMatrix, MistakesAreOneLineWithTheirPlace) {
  EXPECT_EQ(error_of("checks:\n  lookup: {path: /}\nrepeats: 3\n"),
            "m.yaml:3:1: unknown key 'repeats' in the compare matrix; did you mean 'repeat'? "
            "allowed: target, protocol, defaults, data, checks, conditions, settings, metric, "
            "run, repeat, min_effect");
  EXPECT_EQ(error_of("conditions: [cold]\n"), "m.yaml:1:1: the compare matrix needs 'checks'");
  EXPECT_EQ(error_of("checks:\n  lookup: {path: /}\nconditions: [hot]\n"),
            "m.yaml:3:14: unknown condition 'hot'; allowed: cold, warm");
  EXPECT_EQ(error_of("checks:\n  lookup: {path: /}\nconditions: [cold, cold]\n"),
            "m.yaml:3:20: condition 'cold' given twice");
  EXPECT_EQ(error_of("checks:\n  lookup: {path: /}\nmetric: p90\n"),
            "m.yaml:3:9: 'metric' in the compare matrix: unknown metric 'p90'; did you mean "
            "'p50'? allowed: p50, p95, p99, throughput, cpu_per_request");
  EXPECT_EQ(error_of("checks:\n  lookup: {path: /}\nrun: {connections: 2, rate: 10}\n"),
            "m.yaml:3:23: 'rate' in 'run': give connections (closed loop) or rate (open loop), "
            "not both");
  EXPECT_EQ(error_of("checks:\n  lookup: {path: /}\nsettings:\n  small: {restore: x}\n"),
            "m.yaml:4:10: setting 'small' needs 'apply'");
  EXPECT_EQ(error_of("checks:\n  lookup: {path: /}\nrepeat: 0\n"),
            "m.yaml:3:9: 'repeat' in the compare matrix: expected an integer from 1 to 1000, "
            "got '0'");
  // A check is written, and fails, as a scenario's request does.
  EXPECT_EQ(error_of("checks:\n  lookup: {path: /, methd: GET}\n").substr(0, 41),
            "m.yaml:2:21: unknown key 'methd' in reque");
}

TEST(CompareMatrix, TheShippedExampleReads) {
  const CompareMatrix m = load_compare_matrix(PL_EXAMPLES_DIR "/compare/compare.yaml");
  EXPECT_EQ(m.checks.requests.size(), 3u);
  EXPECT_EQ(m.conditions, (std::vector<std::string>{"cold", "warm"}));
}

}  // namespace
}  // namespace proofload::experiments
