// Tests of duration, rate and size parsing: what users type, and the one-line errors they get.
#include "common/units.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "common/clock.h"
#include "common/usage_error_test_support.h"

namespace proofload {
namespace {

using testing::usage_error_of;

TEST(ParseDuration, ReadsUnitsAndCombinations) {
  EXPECT_EQ(parse_duration_ns("500ms"), 500 * kNsPerMs);
  EXPECT_EQ(parse_duration_ns("10s"), 10 * kNsPerS);
  EXPECT_EQ(parse_duration_ns("1m"), 60 * kNsPerS);
  EXPECT_EQ(parse_duration_ns("1h"), 3600 * kNsPerS);
  EXPECT_EQ(parse_duration_ns("1m30s"), 90 * kNsPerS);
  EXPECT_EQ(parse_duration_ns("1h2m3s4ms5us6ns"), 3723 * kNsPerS + 4 * kNsPerMs + 5 * kNsPerUs + 6);
  EXPECT_EQ(parse_duration_ns("250us"), 250 * kNsPerUs);
  EXPECT_EQ(parse_duration_ns("250\xC2\xB5s"), 250 * kNsPerUs);
  EXPECT_EQ(parse_duration_ns("7ns"), 7);
  EXPECT_EQ(parse_duration_ns("0s"), 0);
  EXPECT_EQ(parse_duration_ns(" 10s "), 10 * kNsPerS);
}

TEST(ParseDuration, BareNumberIsSeconds) {
  EXPECT_EQ(parse_duration_ns("10"), 10 * kNsPerS);
  EXPECT_EQ(parse_duration_ns("2.5"), 2'500'000'000);
  EXPECT_EQ(parse_duration_ns("0"), 0);
}

TEST(ParseDuration, FractionsAreExactDecimal) {
  EXPECT_EQ(parse_duration_ns("2.5s"), 2'500'000'000);
  // 0.1 and 0.3 have no exact binary form; a double-based parser would give ...999 here.
  EXPECT_EQ(parse_duration_ns("0.1s"), 100'000'000);
  EXPECT_EQ(parse_duration_ns("0.3s"), 300'000'000);
  EXPECT_EQ(parse_duration_ns("1.5h"), 5400 * kNsPerS);
  EXPECT_EQ(parse_duration_ns("1m0.5s"), 60'500'000'000);
  EXPECT_EQ(parse_duration_ns(".5s"), 500'000'000);
  EXPECT_EQ(parse_duration_ns("1.0000000004s"), kNsPerS);  // rounds to the nearest ns
  EXPECT_EQ(parse_duration_ns("1.0000000005s"), kNsPerS + 1);
  EXPECT_EQ(parse_duration_ns("0.1000000000000000000001s"), 100'000'000);
}

TEST(ParseDuration, LargestAndOverflow) {
  EXPECT_EQ(parse_duration_ns("9223372036854775807ns"), std::numeric_limits<int64_t>::max());
  EXPECT_NE(usage_error_of([] { parse_duration_ns("9223372036854775808ns"); }), "");
  EXPECT_NE(usage_error_of([] { parse_duration_ns("2562048h"); }), "");  // ~292 years
  EXPECT_NE(usage_error_of([] { parse_duration_ns("99999999999999999999999999s"); }), "");
  EXPECT_NE(usage_error_of([] { parse_duration_ns("2562047h60m"); }), "");
}

TEST(ParseDuration, RejectsBadInputWithOneClearLine) {
  for (const char* bad : {"",
                          "  ",
                          "-1s",
                          "-5",
                          "abc",
                          "10x",
                          "s",
                          "1.5.5s",
                          "1m30",
                          "10 s",
                          "30s1m",
                          "1s1s",
                          "1ms1us1\xC2\xB5s",
                          "1S",
                          "1M",
                          ".s",
                          "+1s",
                          "1e3s",
                          "nan",
                          "inf"}) {
    const std::string message = usage_error_of([&] { parse_duration_ns(bad); });
    EXPECT_NE(message, "") << "accepted \"" << bad << "\"";
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    std::string quoted = "\"";  // built by appending: GCC 12 misfires -Wrestrict on a + b + c
    quoted.append(bad).append("\"");
    EXPECT_NE(message.find(quoted), std::string::npos)
        << "the message should quote the input: " << message;
  }
  EXPECT_NE(usage_error_of([] { parse_duration_ns("-1s"); }).find("negative"), std::string::npos);
  EXPECT_NE(usage_error_of([] { parse_duration_ns("10x"); }).find("unknown unit \"x\""),
            std::string::npos);
}

TEST(FormatDuration, ShortestReadableForm) {
  EXPECT_EQ(format_duration(0), "0s");
  EXPECT_EQ(format_duration(90 * kNsPerS), "1m30s");
  EXPECT_EQ(format_duration(500 * kNsPerMs), "500ms");
  EXPECT_EQ(format_duration(2'500'000'000), "2.5s");
  EXPECT_EQ(format_duration(3600 * kNsPerS), "1h");
  EXPECT_EQ(format_duration(3600 * kNsPerS + 500 * kNsPerMs), "1h0.5s");
  EXPECT_EQ(format_duration(250 * kNsPerUs), "250us");
  EXPECT_EQ(format_duration(1'500), "1.5us");
  EXPECT_EQ(format_duration(1'000'001), "1.000001ms");
  EXPECT_EQ(format_duration(7), "7ns");
  EXPECT_EQ(format_duration(-1'500'000), "-1.5ms");
}

TEST(FormatDuration, ParsesBackExactly) {
  for (int64_t ns : {int64_t{1}, int64_t{999}, int64_t{1'000}, int64_t{123'456'789},
                     int64_t{59'999'999'999}, int64_t{60'000'000'000}, int64_t{3'599'000'000'001},
                     int64_t{86'400'000'000'000}, std::numeric_limits<int64_t>::max()}) {
    EXPECT_EQ(parse_duration_ns(format_duration(ns)), ns) << format_duration(ns);
  }
  EXPECT_EQ(format_duration(std::numeric_limits<int64_t>::min()).front(), '-');
}

TEST(ParseRate, NumbersAndSuffixes) {
  EXPECT_EQ(parse_rate_per_s("1000"), 1000);
  EXPECT_EQ(parse_rate_per_s("1k"), 1000);
  EXPECT_EQ(parse_rate_per_s("2.5k"), 2500);
  EXPECT_EQ(parse_rate_per_s("1M"), 1e6);
  EXPECT_EQ(parse_rate_per_s("500/s"), 500);
  EXPECT_EQ(parse_rate_per_s("2k/s"), 2000);
  EXPECT_EQ(parse_rate_per_s("0.5"), 0.5);
  EXPECT_EQ(parse_rate_per_s("0"), 0);
  EXPECT_EQ(parse_rate_per_s(" 100 "), 100);
  EXPECT_EQ(parse_rate_per_s("6000/m"), 100) << "per minute, as rate limits are often stated";
  EXPECT_EQ(parse_rate_per_s("3k/min"), 50);
  EXPECT_EQ(parse_rate_per_s("1e9"), 1e9);
}

TEST(ParseRate, RejectsBadInput) {
  for (const char* bad : {"", "-1", "-0.5k", "nan", "NaN", "inf", "-inf", "abc", "10x", "1kk", "k",
                          "1m", "0x10", "1e10", "1 000", "1e999"}) {
    const std::string message = usage_error_of([&] { parse_rate_per_s(bad); });
    EXPECT_NE(message, "") << "accepted \"" << bad << "\"";
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_NE(usage_error_of([] { parse_rate_per_s("-1"); }).find("negative"), std::string::npos);
}

TEST(ParseBytes, WholeNumbersWithAUnitUpToTheMost) {
  EXPECT_EQ(parse_bytes("512", 1 << 20), 512);
  EXPECT_EQ(parse_bytes("4KiB", 1 << 20), 4096);
  EXPECT_EQ(parse_bytes("2kB", 1 << 20), 2000);
  EXPECT_EQ(parse_bytes("1MiB", 1 << 20), 1 << 20);
  EXPECT_EQ(parse_bytes("2MiB", 1 << 20), std::nullopt);
  EXPECT_EQ(parse_bytes("4 KiB", 1 << 20), std::nullopt);
  EXPECT_EQ(parse_bytes("-1", 1 << 20), std::nullopt);
  EXPECT_EQ(parse_bytes("1.5KiB", 1 << 20), std::nullopt);
}

TEST(BytesText, StatesASizeInItsLargestWholeUnit) {
  EXPECT_EQ(bytes_text(int64_t{64} << 20), "64 MiB");
  EXPECT_EQ(bytes_text(64 << 10), "64 KiB");
  EXPECT_EQ(bytes_text(1000), "1000 bytes");
}

}  // namespace
}  // namespace proofload
