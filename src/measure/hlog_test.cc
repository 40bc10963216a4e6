// Interval log: the lines HdrHistogram tools expect, write/read round trip, malformed input.
#include "measure/hlog.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>

namespace proofload::measure {
namespace {

// Runs `write` against an in-memory FILE* and returns what it wrote.
template <typename Fn>
std::string capture(Fn write) {
  char* buf = nullptr;
  size_t size = 0;
  std::FILE* f = open_memstream(&buf, &size);
  if (f == nullptr) throw std::runtime_error("open_memstream failed");
  write(f);
  std::fclose(f);
  std::string out(buf, size);
  std::free(buf);
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string error_of(const std::string& log) {
  std::istringstream in(log);
  try {
    read_hlog(in);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(Base64, KnownVectors) {
  const std::pair<std::string, std::string> cases[] = {{"", ""},
                                                       {"f", "Zg=="},
                                                       {"fo", "Zm8="},
                                                       {"foo", "Zm9v"},
                                                       {"foob", "Zm9vYg=="},
                                                       {"fooba", "Zm9vYmE="},
                                                       {"foobar", "Zm9vYmFy"},
                                                       {"\xff\xfe\xfd", "//79"}};
  for (const auto& [plain, encoded] : cases) {
    const auto* p = reinterpret_cast<const uint8_t*>(plain.data());
    EXPECT_EQ(base64_encode(p, plain.size()), encoded);
    EXPECT_EQ(base64_decode(encoded), std::vector<uint8_t>(p, p + plain.size()));
  }
}

TEST(Base64, RejectsMalformedText) {
  for (const char* bad : {"Zg=", "Zg=a", "Z===", "Zm9v!A==", "=Zm9", "Zg==Zg==", "Zm 9"}) {
    EXPECT_THROW(base64_decode(bad), std::runtime_error) << bad;
  }
}

TEST(HlogWriter, WritesTheHeaderJavaToolsExpect) {
  const std::string out =
      capture([](std::FILE* f) { HlogWriter(f).write_header(1'700'000'000.25); });
  const auto lines = lines_of(out);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "#[Histogram log format version 1.3]");
  EXPECT_EQ(lines[1],
            "#[StartTime: 1700000000.250 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]");
  EXPECT_EQ(
      lines[2],
      "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"");
}

TEST(HlogWriter, IntervalLineHasStartLengthMaxInMsAndHistogram) {
  HdrHistogram h;
  h.record(1500);
  h.record(25'000);  // max() is the bucket's highest equivalent: 25'007 us
  const std::string out =
      capture([&](std::FILE* f) { HlogWriter(f).write_interval(1.5, 1.0, h, "latency"); });
  ASSERT_TRUE(out.starts_with("Tag=latency,1.500,1.000,25.007,HISTF"));
  EXPECT_TRUE(out.ends_with("\n"));
}

TEST(HlogWriter, RejectsTagsThatWouldBreakTheLine) {
  HdrHistogram h;
  std::FILE* f = std::fopen("/dev/null", "w");
  ASSERT_NE(f, nullptr);
  HlogWriter w(f);
  EXPECT_THROW(w.write_interval(0, 1, h, "a,b"), std::invalid_argument);
  EXPECT_THROW(w.write_interval(0, 1, h, "a b"), std::invalid_argument);
  EXPECT_NO_THROW(w.write_interval(0, 1, h, "GET_/api"));
  std::fclose(f);
}

TEST(HlogWriter, ReportsWriteFailures) {
  HdrHistogram h;
  std::FILE* f = std::fopen("/dev/full", "w");
  if (f == nullptr) GTEST_SKIP() << "/dev/full is not available";
  HlogWriter w(f);
  EXPECT_TRUE(w.ok());
  w.write_interval(0, 1, h);
  EXPECT_FALSE(w.ok());
  std::fclose(f);
}

TEST(Hlog, WriteReadRoundTrip) {
  HdrHistogram a, b, empty;
  for (int i = 1; i <= 1000; ++i) a.record(i * 97);
  b.record_n(3'000'000, 5);
  b.record(12);
  const std::string log = capture([&](std::FILE* f) {
    HlogWriter w(f);
    w.write_header(1'700'000'000.0);
    w.write_interval(0.0, 1.0, a);
    w.write_interval(1.0, 1.0, b, "service");
    w.write_interval(2.0, 0.5, empty);
  });
  std::istringstream in(log);
  const std::vector<HlogInterval> got = read_hlog(in);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].start_s, 0.0);
  EXPECT_EQ(got[0].length_s, 1.0);
  EXPECT_EQ(got[0].tag, "");
  EXPECT_TRUE(got[0].histogram.same_counts(a));
  EXPECT_DOUBLE_EQ(got[0].max_ms, static_cast<double>(a.max()) / 1000.0);
  EXPECT_EQ(got[1].start_s, 1.0);
  EXPECT_EQ(got[1].tag, "service");
  EXPECT_TRUE(got[1].histogram.same_counts(b));
  EXPECT_EQ(got[1].histogram.value_at_percentile(99), b.value_at_percentile(99));
  EXPECT_DOUBLE_EQ(got[1].max_ms, static_cast<double>(b.max()) / 1000.0);
  EXPECT_EQ(got[2].length_s, 0.5);
  EXPECT_EQ(got[2].histogram.total_count(), 0);
}

TEST(Hlog, ReadsCommentsBlankLinesAndCrLf) {
  HdrHistogram h;
  h.record(42);
  std::string line = capture([&](std::FILE* f) { HlogWriter(f).write_interval(3, 1, h); });
  line.insert(line.size() - 1, "\r");
  std::istringstream in("#[BaseTime: 0.000 (seconds since epoch)]\n\n" + line);
  const auto got = read_hlog(in);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].start_s, 3.0);
  EXPECT_EQ(got[0].histogram.total_count(), 1);
}

TEST(Hlog, ErrorsNameTheLine) {
  HdrHistogram h;
  h.record(42);
  const std::string good = capture([&](std::FILE* f) {
    HlogWriter w(f);
    w.write_header(0);
    w.write_interval(0, 1, h);
  });
  EXPECT_EQ(error_of(good), "");
  EXPECT_NE(error_of(good + "1.0,1.0,0.042\n").find("hlog line 5: expected 4 fields"),
            std::string::npos);
  EXPECT_NE(error_of(good + "x,1.0,0.042,HISCFA==\n").find("hlog line 5: bad start"),
            std::string::npos);
  EXPECT_NE(error_of(good + "1.0,1.0,0.042,HISCFA=\n").find("hlog line 5: base64"),
            std::string::npos);
  EXPECT_NE(error_of(good + "1.0,1.0,0.042,HISCFA==\n").find("hlog line 5: HdrHistogram decode"),
            std::string::npos);
  EXPECT_NE(error_of(good + "Tag=,1.0,1.0,0.042,HISCFA==\n").find("hlog line 5"),
            std::string::npos);
}

}  // namespace
}  // namespace proofload::measure
