// The Prometheus text parser on fixtures: node-exporter-like output with histograms and
// summaries, escapes and layout, every malformed kind, the limits, and arbitrary bytes.
#include "observe/prom_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace proofload::observe {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(PROOFLOAD_PROM_TESTDATA) + "/" + name, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << name;
  return text.str();
}

const PromSeries* find(const PromParseResult& result, const std::string& key) {
  for (const PromSeries& series : result.series) {
    if (series.key == key) return &series;
  }
  return nullptr;
}

TEST(PromText, NodeExporterOutputGivesEverySeriesWithItsFamilyAndKind) {
  PromParseResult result = parse_prom_text(fixture("node_exporter.prom"));
  EXPECT_EQ(result.bad_lines, 0u) << result.first_bad;
  EXPECT_EQ(result.truncated, "");
  ASSERT_EQ(result.series.size(), 38u);
  EXPECT_EQ(result.valid_samples, 38u);

  struct Expected {
    const char* key;
    const char* family;
    MetricKind kind;
    double value;
  };
  const Expected expected[] = {
      // A summary: quantiles are gauges, _sum and _count counters of the same family.
      {"go_gc_duration_seconds{quantile=\"0.5\"}", "go_gc_duration_seconds", MetricKind::kGauge,
       4.0351e-05},
      {"go_gc_duration_seconds_sum", "go_gc_duration_seconds", MetricKind::kCounter, 0.001287463},
      {"go_gc_duration_seconds_count", "go_gc_duration_seconds", MetricKind::kCounter, 23},
      // A histogram: buckets, _sum and _count are counters of the family.
      {"http_request_duration_seconds_bucket{handler=\"/metrics\",le=\"0.01\"}",
       "http_request_duration_seconds", MetricKind::kCounter, 15},
      {"http_request_duration_seconds_bucket{handler=\"/metrics\",le=\"+Inf\"}",
       "http_request_duration_seconds", MetricKind::kCounter, 17},
      {"http_request_duration_seconds_sum{handler=\"/metrics\"}", "http_request_duration_seconds",
       MetricKind::kCounter, 0.0734},
      {"http_request_duration_seconds_count{handler=\"/metrics\"}", "http_request_duration_seconds",
       MetricKind::kCounter, 17},
      {"node_cpu_seconds_total{cpu=\"1\",mode=\"user\"}", "node_cpu_seconds_total",
       MetricKind::kCounter, 5600.5},
      {"node_boot_time_seconds", "node_boot_time_seconds", MetricKind::kGauge, 1.700412345e+09},
      {"node_filesystem_avail_bytes{device=\"/dev/sda1\",fstype=\"ext4\",mountpoint=\"/\"}",
       "node_filesystem_avail_bytes", MetricKind::kGauge, 4.294967296e+10},
      {"go_info{version=\"go1.19.8\"}", "go_info", MetricKind::kGauge, 1},
      // Untyped, declared or not, reads as a gauge.
      {"node_textfile_custom_value{source=\"cron\"}", "node_textfile_custom_value",
       MetricKind::kGauge, -3.5},
      {"node_textfile_plain", "node_textfile_plain", MetricKind::kGauge, 42},
      {"promhttp_metric_handler_requests_total{code=\"503\"}",
       "promhttp_metric_handler_requests_total", MetricKind::kCounter, 0},
  };
  for (const Expected& e : expected) {
    const PromSeries* series = find(result, e.key);
    ASSERT_NE(series, nullptr) << e.key;
    EXPECT_EQ(series->family, e.family) << e.key;
    EXPECT_EQ(series->kind, e.kind) << e.key;
    EXPECT_DOUBLE_EQ(series->value, e.value) << e.key;
  }
  const PromSeries* temperature =
      find(result, "node_hwmon_temp_celsius{chip=\"platform_coretemp_0\",sensor=\"temp1\"}");
  ASSERT_NE(temperature, nullptr);
  EXPECT_TRUE(std::isnan(temperature->value));
  EXPECT_EQ(find(result, "node_textfile_plain")->timestamp_ms, 1700412345000);
  EXPECT_FALSE(find(result, "node_load1")->timestamp_ms.has_value());
  // The order exposed is kept.
  EXPECT_EQ(result.series.front().key, "go_gc_duration_seconds{quantile=\"0\"}");
  EXPECT_EQ(result.series.back().key, "promhttp_metric_handler_requests_total{code=\"503\"}");
}

TEST(PromText, KeysKeepEscapesAndLabelOrderAndReadAsTheExpositionDoes) {
  PromParseResult result = parse_prom_text(fixture("escapes.prom"));
  EXPECT_EQ(result.bad_lines, 0u) << result.first_bad;
  std::map<std::string, double> values;
  for (const PromSeries& series : result.series) values[series.key] = series.value;
  const std::map<std::string, double> expected = {
      {R"(escaped_info{path="C:\\Temp\\new",quote="say \"hi\"",lines="one\ntwo"})", 1},
      {R"(escaped_info{text="a,b=c}{d",empty=""})", 2},
      {"escaped_info{unicode=\"naïve 日本\"}", 3},
      {R"(spaced_total{zone="b",az="1"})", 7},  // blanks dropped, order kept
      {"empty_set", 8},                         // `{}` is no labels
      {R"(ordered{z="1",a="2"})", 9},
      {"help_escapes", 10},
  };
  EXPECT_EQ(values, expected);
  EXPECT_EQ(find(result, R"(spaced_total{zone="b",az="1"})")->timestamp_ms, 1700000000000);
  EXPECT_EQ(find(result, "help_escapes")->kind, MetricKind::kCounter);
}

TEST(PromText, CrlfLineEndsParseAsLf) {
  std::string lf = fixture("node_exporter.prom");
  std::string crlf;
  for (char c : lf) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  PromParseResult a = parse_prom_text(lf);
  PromParseResult b = parse_prom_text(crlf);
  EXPECT_EQ(b.bad_lines, 0u) << b.first_bad;
  ASSERT_EQ(a.series.size(), b.series.size());
  for (size_t i = 0; i < a.series.size(); ++i) {
    EXPECT_EQ(a.series[i].key, b.series[i].key);
    EXPECT_EQ(a.series[i].kind, b.series[i].kind);
    if (!std::isnan(a.series[i].value)) {
      EXPECT_EQ(a.series[i].value, b.series[i].value);
    }
  }
}

TEST(PromText, ValuesInEveryForm) {
  PromParseResult result = parse_prom_text(
      "a NaN\nb +Inf\nc -Inf\nd 1e3\ne -1.5E-3\nf +7\ng 0x10\nh Inf\ni 1 -5\nj .5\nk 1e999\n"
      "l +-1\nm 1 +0\n");
  std::map<std::string, double> values;
  for (const PromSeries& series : result.series) values[series.key] = series.value;
  EXPECT_TRUE(std::isnan(values.at("a")));
  EXPECT_EQ(values.at("b"), INFINITY);
  EXPECT_EQ(values.at("c"), -INFINITY);
  EXPECT_EQ(values.at("d"), 1000);
  EXPECT_EQ(values.at("e"), -0.0015);
  EXPECT_EQ(values.at("f"), 7);
  EXPECT_EQ(values.at("h"), INFINITY);
  EXPECT_EQ(values.at("i"), 1);
  EXPECT_EQ(find(result, "i")->timestamp_ms, -5);
  EXPECT_EQ(values.at("j"), 0.5);
  EXPECT_EQ(find(result, "m")->timestamp_ms, 0);
  // Hexadecimal, out of range and a doubled sign are refused.
  EXPECT_EQ(values.count("g") + values.count("k") + values.count("l"), 0u);
  EXPECT_EQ(result.bad_lines, 3u);
}

TEST(PromText, BlankLinesAndOtherCommentsAreIgnored) {
  PromParseResult result =
      parse_prom_text("\n   \n\t\n# a comment\n#HELP x not a HELP line\n# EOF\n#\nx 1\n\n");
  EXPECT_EQ(result.bad_lines, 0u) << result.first_bad;
  ASSERT_EQ(result.series.size(), 1u);
  EXPECT_EQ(result.series[0].key, "x");
  EXPECT_EQ(parse_prom_text("").series.size(), 0u);
  EXPECT_EQ(parse_prom_text("x 1").series.size(), 1u);  // no final line feed
}

TEST(PromText, EveryMalformedLineIsCountedAndSkippedAndTheRestKept) {
  PromParseResult result = parse_prom_text(fixture("malformed.prom"));
  ASSERT_EQ(result.series.size(), 3u);
  EXPECT_EQ(result.series[0].key, "good_total");
  EXPECT_EQ(result.series[0].value, 1);
  EXPECT_EQ(result.series[0].kind, MetricKind::kCounter);  // the second TYPE line was refused
  EXPECT_EQ(result.series[1].key, "late_total");
  EXPECT_EQ(result.series[1].kind, MetricKind::kGauge);  // its TYPE came after it: refused
  EXPECT_EQ(result.series[2].key, "good_gauge");
  EXPECT_EQ(result.bad_lines, 30u);
  EXPECT_EQ(result.first_bad, "line 4: invalid metric name");
}

// One malformed line each, alone: what the first_bad line says.
struct MalformedCase {
  const char* text;
  const char* why;
};

class PromTextMalformed : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(PromTextMalformed, IsOneBadLineWithItsReason) {
  PromParseResult result = parse_prom_text(GetParam().text);
  EXPECT_EQ(result.series.size(), 0u);
  EXPECT_EQ(result.bad_lines, 1u);
  EXPECT_NE(result.first_bad.find(GetParam().why), std::string::npos)
      << "got: " << result.first_bad;
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, PromTextMalformed,
    ::testing::Values(
        MalformedCase{"1x 1\n", "line 1: invalid metric name"},
        MalformedCase{"x-y 1\n", "invalid character in a metric name"},
        MalformedCase{"x\n", "without a value"}, MalformedCase{"x{a=\"b\"}\n", "without a value"},
        MalformedCase{"x 12abc\n", "not a number"},
        MalformedCase{"x 1 1.5\n", "timestamp that is not an integer"},
        MalformedCase{"x 1 2 3\n", "text after the timestamp"},
        MalformedCase{"x{a=\"b\" 1\n", "expected ',' or '}'"},
        MalformedCase{"x{a=\"b} 1\n", "unterminated label value"},
        MalformedCase{"x{a=\"b\\", "unterminated label value"},
        MalformedCase{"x{a=\"b\",\n", "unterminated label set"},
        MalformedCase{"x{a=b} 1\n", "double quotes"},
        MalformedCase{"x{a \"b\"} 1\n", "expected '='"},
        MalformedCase{"x{-a=\"b\"} 1\n", "invalid label name"},
        MalformedCase{"x{a=\"\\t\"} 1\n", "invalid escape in a label value"},
        MalformedCase{"x{a=\"1\",a=\"2\"} 1\n", "a label given twice"},
        MalformedCase{"x{a=\"\xc3\x28\"} 1\n", "not valid UTF-8"},
        MalformedCase{"x{a=\"\xed\xa0\x80\"} 1\n", "not valid UTF-8"},  // a surrogate
        MalformedCase{"# HELP\n", "HELP without a valid metric name"},
        MalformedCase{"# TYPE 1x gauge\n", "TYPE without a valid metric name"},
        MalformedCase{"# TYPE x\n", "TYPE without a type"},
        MalformedCase{"# TYPE x meter\n", "unknown TYPE"},
        MalformedCase{"# TYPE x gauge extra\n", "text after the type"},
        MalformedCase{"# HELP x bad \\t escape\n", "invalid escape in a HELP text"},
        MalformedCase{"# HELP x one\n# HELP x two\n", "a second HELP line"},
        MalformedCase{"# TYPE x gauge\n# TYPE x counter\n", "a second TYPE line"},
        MalformedCase{"# TYPE h histogram\nh 1\n", "must be its _bucket, _sum or _count"},
        MalformedCase{"# TYPE h histogram\nh_bucket 1\n", "without an le label"},
        MalformedCase{"# TYPE h histogram\nh_bucket{le=\"x\"} 1\n", "an le label that is not"},
        MalformedCase{"# TYPE s summary\ns 1\n", "without a quantile label"},
        MalformedCase{"# TYPE s summary\ns{quantile=\"\"} 1\n", "a quantile label that is not"}));

TEST(PromText, ASecondCopyOfASeriesIsMalformedAndTheFirstKept) {
  PromParseResult result = parse_prom_text("x{a=\"1\"} 1\nx{a=\"1\"} 2\nx{a=\"2\"} 3\n");
  ASSERT_EQ(result.series.size(), 2u);
  EXPECT_EQ(result.series[0].value, 1);
  EXPECT_EQ(result.bad_lines, 1u);
  EXPECT_EQ(result.first_bad, "line 2: a series given twice");
}

TEST(PromText, PrefixesKeepWholeFamiliesAndStillCheckTheRest) {
  PromParseOptions options;
  options.family_prefixes = {"http_request_duration", "node_load"};
  PromParseResult result = parse_prom_text(fixture("node_exporter.prom"), options);
  EXPECT_EQ(result.valid_samples, 38u);
  ASSERT_EQ(result.series.size(), 7u);  // the histogram's 6 series and node_load1
  for (const PromSeries& series : result.series) {
    EXPECT_TRUE(series.family == "http_request_duration_seconds" || series.family == "node_load1")
        << series.key;
  }
  options.family_prefixes = {"nothing_here"};
  result = parse_prom_text(fixture("node_exporter.prom") + "bad line\n", options);
  EXPECT_EQ(result.series.size(), 0u);
  EXPECT_EQ(result.valid_samples, 38u);
  EXPECT_EQ(result.bad_lines, 1u);
}

TEST(PromText, StopsAtTheByteBoundOnAWholeLineAndSaysSo) {
  PromParseOptions options;
  options.max_bytes = 10;
  PromParseResult result = parse_prom_text("a 1\nbb 2\ncccc 3\n", options);  // 10th byte: 'c'
  ASSERT_EQ(result.series.size(), 2u);
  EXPECT_EQ(result.series[1].key, "bb");
  EXPECT_EQ(result.bad_lines, 0u);  // the cut line is not read, so not malformed
  EXPECT_EQ(result.truncated, "input over 10 bytes, read up to its last whole line");
  EXPECT_EQ(parse_prom_text("a 1\nbb 2\n", options).truncated, "");  // at the bound: whole
}

TEST(PromText, DefaultBoundsAre16MiBAnd100000Series) {
  PromParseOptions defaults;
  EXPECT_EQ(defaults.max_bytes, size_t{16} << 20);
  std::string text;
  for (int i = 0; i <= 100'000; ++i) text += "s{i=\"" + std::to_string(i) + "\"} 1\n";
  PromParseResult result = parse_prom_text(text);
  EXPECT_EQ(result.series.size(), 100'000u);
  EXPECT_EQ(result.series.back().key, "s{i=\"99999\"}");
  EXPECT_EQ(result.truncated, "stopped at 100000 series");

  std::string big(17u << 20, '#');  // one 17 MiB comment line, then a series past the bound
  big += "\nafter 1\n";
  result = parse_prom_text(big);
  EXPECT_EQ(result.series.size(), 0u);
  EXPECT_EQ(result.truncated, "input over 16 MiB, read up to its last whole line");
}

TEST(PromText, ASeriesKeyOverTheLimitIsSkippedAndCountedNotCalledMalformed) {
  PromParseOptions options;
  options.max_key_bytes = 16;
  PromParseResult result = parse_prom_text(
      "a{v=\"short\"} 1\nb{v=\"much longer than sixteen\"} 2\n"
      "a_very_long_metric_name_indeed 3\nc{v=\"x\",w=\"yyyyyyyyyyyyy\"} 4\n",
      options);
  ASSERT_EQ(result.series.size(), 1u);
  EXPECT_EQ(result.series[0].key, "a{v=\"short\"}");
  EXPECT_EQ(result.long_series, 3u);
  EXPECT_EQ(result.bad_lines, 0u);
  // A family ?match= leaves out is not counted: it was not asked for.
  options.family_prefixes = {"a"};
  EXPECT_EQ(parse_prom_text("b{v=\"much longer than sixteen\"} 2\n", options).long_series, 0u);
  EXPECT_EQ(PromParseOptions{}.max_key_bytes, kPromSeriesKeyLimitBytes);
}

TEST(PromText, AdmitLeavesSeriesOutAndCountsThem) {
  PromParseOptions options;
  std::vector<std::string> asked;
  options.admit = [&](std::string_view key) {
    asked.emplace_back(key);
    return key != "b";
  };
  PromParseResult result = parse_prom_text("a 1\nb 2\nc 3\n", options);
  ASSERT_EQ(result.series.size(), 2u);
  EXPECT_EQ(result.series[1].key, "c");
  EXPECT_EQ(result.not_admitted, 1u);
  EXPECT_EQ(asked, (std::vector<std::string>{"a", "b", "c"}));
}

// A label set of thousands is checked for a label given twice (in n log n: each name compared
// with every one before it took seconds on 20,000; bench/observe_bench.cc measures it).
TEST(PromText, ALabelSetOfThousandsIsCheckedForRepeats) {
  PromParseOptions options;
  options.max_key_bytes = size_t{1} << 30;
  std::string line = "x{";
  for (int i = 0; i < 20'000; ++i) line += "l" + std::to_string(i) + "=\"\",";
  line += "} 1\n";
  std::string text;
  for (int i = 0; i < 20; ++i) text += line;
  PromParseResult result = parse_prom_text(text, options);
  EXPECT_EQ(result.series.size(), 1u);
  EXPECT_EQ(result.bad_lines, 19u);  // the same series again
  EXPECT_EQ(parse_prom_text("x{a=\"1\",b=\"2\",a=\"3\"} 1\n").first_bad,
            "line 1: a label given twice");
}

// Arbitrary bytes and mutations of real output: never a crash (the sanitizers watch), and every
// line is either a series, a malformed line or something ignored.
TEST(PromText, ArbitraryBytesNeverCrash) {
  const std::string base = fixture("node_exporter.prom") + fixture("escapes.prom");
  std::mt19937 rng(12345);
  const char kBytes[] = "{}\"\\=, \t\n\r#abc019.+-eE\xff\xc3";
  for (int round = 0; round < 2000; ++round) {
    std::string text = base;
    int edits = 1 + static_cast<int>(rng() % 20);
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % text.size();
      char byte = (rng() % 2) ? kBytes[rng() % (sizeof kBytes - 1)] : static_cast<char>(rng());
      switch (rng() % 3) {
        case 0:
          text[at] = byte;
          break;
        case 1:
          text.insert(text.begin() + static_cast<long>(at), byte);
          break;
        default:
          text.erase(at, 1 + rng() % 8);
          break;
      }
      if (text.empty()) text = "x";
    }
    PromParseResult result = parse_prom_text(text);
    size_t lines = 1;
    for (char c : text) lines += c == '\n';
    ASSERT_LE(result.series.size() + result.bad_lines, lines) << text;
    for (const PromSeries& series : result.series) {
      ASSERT_EQ(series.key.compare(0, series.family.size(), series.family), 0) << series.key;
    }
  }
}

}  // namespace
}  // namespace proofload::observe
