#include "words/numbers.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace proofload::words {
namespace {

TEST(Numbers, ThousandsSeparators) {
  EXPECT_EQ(with_thousands(0), "0");
  EXPECT_EQ(with_thousands(999), "999");
  EXPECT_EQ(with_thousands(1000), "1,000");
  EXPECT_EQ(with_thousands(1234567), "1,234,567");
  EXPECT_EQ(with_thousands(-1234), "-1,234");
  EXPECT_EQ(with_thousands(INT64_MIN), "-9,223,372,036,854,775,808");
  EXPECT_EQ(fixed_with_thousands(1234.5678, 2), "1,234.57");
  EXPECT_EQ(fixed_with_thousands(-999.7, 0), "-1,000");
  EXPECT_EQ(fixed_with_thousands(12.0, 3), "12.000");
}

TEST(Numbers, ANonZeroValueIsNeverPrintedAsZeroNorZeroAsMinusZero) {
  EXPECT_EQ(fixed(1234.5, 1), "1,234.5");
  EXPECT_EQ(fixed(0.004, 2), "0.004");
  EXPECT_EQ(fixed(0.0000001, 2), "0.000000");  // past 6 decimals it is as small as is written
  EXPECT_EQ(fixed(-0.0, 2), "0.00");
  EXPECT_EQ(fixed(-0.001, 0), "-0.001");
  EXPECT_EQ(percent_text(0.0042), "0.42%");
  EXPECT_EQ(percent_text(0.000001), "0.0001%");
  EXPECT_EQ(percent_text(0.999999), "99.9999%");
  EXPECT_EQ(percent_text(1.0), "100.00%");
  EXPECT_EQ(percent_text(0.0), "0.00%");
}

TEST(Numbers, FiguresInTheirUnits) {
  EXPECT_EQ(rate_text(2066.4), "2,066/s");
  EXPECT_EQ(rate_text(99.84), "99.8/s");
  EXPECT_EQ(rate_text(0.04), "0.04/s");
  EXPECT_EQ(rate_number(150), "150");
  EXPECT_EQ(cores_text(1.934), "1.93");
  EXPECT_EQ(count_text(2994), "2,994");
  EXPECT_EQ(count_text(2.5), "2.5");
  EXPECT_EQ(seconds_text(30), "30 s");
  EXPECT_EQ(seconds_text(1.5), "1.5 s");
  EXPECT_EQ(seconds_text(0.123), "0.12 s");
  EXPECT_EQ(seconds_text(12.25), "12.2 s");
  EXPECT_EQ(seconds_text(60), "60 s");
  EXPECT_EQ(seconds_text(60.04), "60 s");
  EXPECT_EQ(seconds_text(0.25), "0.25 s");
  EXPECT_EQ(seconds_text(0.3), "0.3 s");
  EXPECT_EQ(seconds_text(0), "0 s");
  EXPECT_EQ(seconds_text(0.004), "0.004 s");
  EXPECT_EQ(seconds_text(0.000001), "0 s");
  EXPECT_EQ(seconds_text(-0.000001), "0 s");
  EXPECT_EQ(seconds_text(1234.5), "1,234.5 s");
  EXPECT_EQ(duration_text(90), "90 s");
  EXPECT_EQ(duration_text(150), "2.5 min");
  EXPECT_EQ(duration_text(7200), "2 h");
  EXPECT_EQ(duration_text(5400), "1.5 h");
  EXPECT_EQ(ms_text(0.25), "0.250 ms");
  EXPECT_EQ(ms_text(18.44), "18.4 ms");
  EXPECT_EQ(ms_text(250.4), "250 ms");
  EXPECT_EQ(ms_text(1140.2), "1.14 s");
  EXPECT_EQ(ms_text(2000), "2 s");
  EXPECT_EQ(ms_text(0), "0.000 ms");
  EXPECT_EQ(ms_decimals(0.25), 3);
  EXPECT_EQ(ms_decimals(18.4), 1);
}

TEST(Numbers, ARateToThePrecisionThatTellsItApart) {
  EXPECT_EQ(rate_to_precision(5000), "5,000");
  EXPECT_EQ(rate_to_precision(1'234'567.25), "1,234,567");
  EXPECT_EQ(rate_to_precision(148.4375), "148.4");
  EXPECT_EQ(rate_to_precision(1.5626), "1.563");
  EXPECT_EQ(rate_to_precision(0.5), "0.5");
  EXPECT_EQ(rate_to_precision(148.4375, 1e-9), "148.4375");
  EXPECT_EQ(rate_to_precision(-0.0), "0");
}

TEST(Numbers, WhatWasGivenIsWrittenAsItWasGiven) {
  EXPECT_EQ(level_text(512), "512");
  EXPECT_EQ(level_text(1000), "1,000");
  EXPECT_EQ(level_text(2.5), "2.5");
  EXPECT_EQ(level_text(1234.125), "1,234.125");
  EXPECT_EQ(given_text(100), "100");
  EXPECT_EQ(given_text(0.125), "0.125");
  EXPECT_EQ(given_text(2.50), "2.5");
  EXPECT_EQ(given_rate_text(2.5), "2.5/s");
  EXPECT_EQ(given_percent_text(0.25), "25%");
  EXPECT_EQ(given_percent_text(0.125), "12.5%");
}

TEST(Numbers, ListsAndWords) {
  EXPECT_EQ(list_text({}), "");
  EXPECT_EQ(list_text({"a"}), "a");
  EXPECT_EQ(list_text({"a", "b"}), "a and b");
  EXPECT_EQ(list_text({"a", "b", "c"}), "a, b and c");
  EXPECT_EQ(levels_text({8, 16, 32.5}), "8, 16 and 32.5");
  EXPECT_EQ(decimals_in("1,000.04"), 2);
  EXPECT_EQ(decimals_in("12"), 0);
  EXPECT_EQ(capitalized("none: the lowest"), "None: the lowest");
  EXPECT_EQ(capitalized(""), "");
}

}  // namespace
}  // namespace proofload::words
