// --expect as a user writes it (and result.json's settings.expect records it): rates as units.h
// reads them, a burst, and each bad part named with the expected form.
#include "result/probe_expectation.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/usage_error.h"

namespace proofload::result {
namespace {

using analyze::ProbeExpectation;

TEST(ProbeExpectation, ReadsRatesAsUnitsDoAndABurst) {
  ProbeExpectation e = parse_probe_expectation("100/s,burst=600", 0.1);
  EXPECT_EQ(e.rate_per_s, 100);
  EXPECT_EQ(e.burst, 600);
  EXPECT_EQ(e.text, "100/s,burst=600");
  EXPECT_EQ(e.tolerance, 0.1);
  e = parse_probe_expectation(" 1.5k/s ", 0.2);
  EXPECT_EQ(e.rate_per_s, 1500);
  EXPECT_FALSE(e.burst);
  EXPECT_EQ(e.text, "1.5k/s");
  EXPECT_EQ(parse_probe_expectation("6000/m, burst=0", 0.1).rate_per_s, 100);
  EXPECT_EQ(parse_probe_expectation("6000/m, burst=0", 0.1).burst, 0);
}

TEST(ProbeExpectation, BadPartsAreNamedWithTheExpectedForm) {
  const std::string form = " (expected RATE[,burst=N], e.g. 100/s,burst=600)";
  const std::vector<std::pair<const char*, std::string>> cases = {
      {"100/s,burst=x", "--expect: \"burst=x\" is not a whole number of requests" + form},
      {"100/s,burst=-5", "--expect: \"burst=-5\" is not a whole number of requests" + form},
      {"fast", "--expect: \"fast\" is not a rate like 100/s or 6000/m" + form},
      {"0/s", "--expect: the rate \"0/s\" is not above 0" + form},
      {"100/s,bucket=5", "--expect: \"bucket=5\" is not burst=N" + form},
      {"100/s,burst=1,burst=2", "--expect: \"burst=2\": the burst is given twice" + form},
      {"100/s,", "--expect: \"100/s,\" has an empty part" + form},
      {"  ", "--expect: empty" + form},
  };
  for (const auto& [text, message] : cases) {
    try {
      parse_probe_expectation(text, 0.1);
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const UsageError& e) {
      EXPECT_EQ(e.what(), message);
    }
  }
  EXPECT_THROW(parse_probe_expectation("100/s", -0.1), UsageError);
}

}  // namespace
}  // namespace proofload::result
