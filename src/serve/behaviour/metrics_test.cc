// Metrics: the exposition is valid Prometheus text 0.0.4 (checked line by line by a small
// parser below), counters add up across shards and threads, label escaping round-trips, and
// the process metrics agree with the kernel's own clocks.
#include "serve/behaviour/metrics.h"

#include <gtest/gtest.h>
#include <time.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <thread>
#include <vector>

namespace proofload::serve {
namespace {

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;  // unescaped
  double value = 0;
};

struct Exposition {
  std::vector<Sample> samples;
  std::map<std::string, std::string> types;

  // The value of the one sample with this name and these labels; NaN when absent.
  double value(const std::string& name,
               const std::map<std::string, std::string>& labels = {}) const {
    for (const Sample& s : samples) {
      if (s.name == name && s.labels == labels) return s.value;
    }
    return std::nan("");
  }
};

bool is_name(std::string_view name, bool allow_colon) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
              (allow_colon && c == ':') || (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

// Parses the text format 0.0.4 as a scraper would, failing the test on any deviation:
// comment lines, metric and label names, quoted values with only \\ \" \n escapes, numeric
// values, TYPE before samples, one TYPE/HELP per family, families contiguous, no duplicates.
void parse_into(const std::string& text, Exposition& result) {
  EXPECT_TRUE(!text.empty() && text.back() == '\n') << "must end with a newline";
  std::set<std::string> helped;
  std::set<std::string> finished_families;
  std::set<std::string> series;
  std::string current_family;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    SCOPED_TRACE(line);
    if (line.rfind("# ", 0) == 0) {
      std::string rest = line.substr(2);
      std::string keyword = rest.substr(0, rest.find(' '));
      if (keyword != "HELP" && keyword != "TYPE") continue;  // a free comment
      size_t name_begin = keyword.size() + 1;
      size_t name_end = rest.find(' ', name_begin);
      ASSERT_NE(name_end, std::string::npos);
      std::string name = rest.substr(name_begin, name_end - name_begin);
      EXPECT_TRUE(is_name(name, true));
      std::string argument = rest.substr(name_end + 1);
      if (keyword == "HELP") {
        EXPECT_TRUE(helped.insert(name).second) << "second HELP";
        EXPECT_FALSE(argument.empty());
      } else {
        EXPECT_TRUE(argument == "counter" || argument == "gauge" || argument == "histogram" ||
                    argument == "summary" || argument == "untyped");
        EXPECT_TRUE(result.types.emplace(name, argument).second) << "second TYPE";
        EXPECT_EQ(finished_families.count(name), 0u) << "TYPE after its samples";
      }
      continue;
    }
    ASSERT_FALSE(line.empty()) << "blank line";
    Sample sample;
    size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
    sample.name = line.substr(0, i);
    EXPECT_TRUE(is_name(sample.name, true)) << sample.name;
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (i < line.size() && line[i] != '}') {
        size_t eq = line.find('=', i);
        ASSERT_NE(eq, std::string::npos);
        std::string label = line.substr(i, eq - i);
        EXPECT_TRUE(is_name(label, false)) << label;
        ASSERT_EQ(line[eq + 1], '"');
        std::string value;
        for (i = eq + 2; i < line.size() && line[i] != '"'; ++i) {
          if (line[i] == '\\') {
            ASSERT_LT(i + 1, line.size());
            char e = line[++i];
            ASSERT_TRUE(e == '\\' || e == '"' || e == 'n') << "bad escape \\" << e;
            value += e == 'n' ? '\n' : e;
          } else {
            value += line[i];
          }
        }
        ASSERT_LT(i, line.size()) << "unterminated label value";
        ++i;  // closing quote
        EXPECT_TRUE(sample.labels.emplace(label, value).second) << "label twice";
        if (line[i] == ',') ++i;
      }
      ASSERT_LT(i, line.size());
      ++i;  // '}'
    }
    ASSERT_LT(i, line.size());
    ASSERT_EQ(line[i], ' ');
    std::string number = line.substr(i + 1);
    char* parsed_end = nullptr;
    sample.value = std::strtod(number.c_str(), &parsed_end);
    EXPECT_TRUE(!number.empty() && *parsed_end == '\0') << "value '" << number << "'";
    // Families: every sample is typed, and a family's samples come together.
    EXPECT_EQ(result.types.count(sample.name), 1u) << "sample without TYPE";
    if (sample.name != current_family) {
      EXPECT_EQ(finished_families.count(sample.name), 0u) << "family split";
      if (!current_family.empty()) finished_families.insert(current_family);
      current_family = sample.name;
    }
    if (result.types[sample.name] == "counter") {
      EXPECT_GE(sample.value, 0);
    }
    std::string key = sample.name;
    for (const auto& [k, v] : sample.labels) key += "|" + k + "=" + v;
    EXPECT_TRUE(series.insert(key).second) << "duplicate series";
    result.samples.push_back(std::move(sample));
  }
}

Exposition parse(const std::string& text) {
  Exposition result;
  parse_into(text, result);
  return result;
}

TEST(MetricsTest, ExpositionParsesAndCountersAddUpAcrossShards) {
  const int extra[] = {418};
  Metrics metrics({"lookup", "search", "idle"}, 3, extra);
  for (int i = 0; i < 7; ++i) metrics.count_request(i % 3, 0, 200);
  for (int i = 0; i < 5; ++i) metrics.count_request(i % 3, 0, 429);
  metrics.count_request(2, 1, 503);
  metrics.count_request(1, 1, 418);
  metrics.count_request(0, 1, 299);  // not a listed status
  metrics.count_request(0, 1, 599);
  metrics.count_request(7, 1, 200);  // a shard index past the end wraps, not crashes
  metrics.add_in_flight(0, 1);
  metrics.add_in_flight(1, 1);
  metrics.add_in_flight(1, -1);
  metrics.add_accepted(10);
  metrics.add_committed(7);
  metrics.add_dropped(1);
  metrics.set_backlog_source([] { return int64_t{2}; });

  std::string text = metrics.render_prometheus();
  Exposition e = parse(text);
  EXPECT_EQ(e.types["proofload_requests_total"], "counter");
  EXPECT_EQ(e.value("proofload_requests_total", {{"route", "lookup"}, {"status", "200"}}), 7);
  EXPECT_EQ(e.value("proofload_requests_total", {{"route", "lookup"}, {"status", "429"}}), 5);
  EXPECT_EQ(e.value("proofload_requests_total", {{"route", "search"}, {"status", "503"}}), 1);
  EXPECT_EQ(e.value("proofload_requests_total", {{"route", "search"}, {"status", "418"}}), 1);
  EXPECT_EQ(e.value("proofload_requests_total", {{"route", "search"}, {"status", "other"}}), 2);
  EXPECT_EQ(e.value("proofload_requests_total", {{"route", "search"}, {"status", "200"}}), 1);
  double total = 0;
  for (const Sample& s : e.samples) {
    if (s.name == "proofload_requests_total") {
      EXPECT_NE(s.labels.at("route"), "idle");  // no series before a first request
      total += s.value;
    }
  }
  EXPECT_EQ(total, 17);
  EXPECT_EQ(metrics.requests(0, 200), 7u);
  EXPECT_EQ(metrics.requests(1, 299), 2u);
  EXPECT_EQ(e.value("proofload_in_flight_requests"), 1);
  EXPECT_EQ(e.types["proofload_in_flight_requests"], "gauge");
  EXPECT_EQ(e.value("proofload_writes_accepted_total"), 10);
  EXPECT_EQ(e.value("proofload_writes_committed_total"), 7);
  EXPECT_EQ(e.value("proofload_writes_dropped_total"), 1);
  EXPECT_EQ(e.value("proofload_commit_backlog"), 2);
  EXPECT_EQ(e.types["process_cpu_seconds_total"], "counter");
  EXPECT_EQ(e.types["process_resident_memory_bytes"], "gauge");
}

TEST(MetricsTest, NoBacklogLineWithoutASource) {
  Metrics metrics({"a"});
  Exposition e = parse(metrics.render_prometheus());
  EXPECT_EQ(e.types.count("proofload_commit_backlog"), 0u);
  EXPECT_EQ(e.value("proofload_writes_accepted_total"), 0);
}

TEST(MetricsTest, LabelValuesAreEscapedAndRoundTrip) {
  EXPECT_EQ(escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  const std::string odd = "we\\ird \"name\"\nline two";
  Metrics metrics({odd});
  metrics.count_request(0, 0, 200);
  std::string text = metrics.render_prometheus();
  EXPECT_NE(text.find("route=\"we\\\\ird \\\"name\\\"\\nline two\""), std::string::npos) << text;
  Exposition e = parse(text);
  EXPECT_EQ(e.value("proofload_requests_total", {{"route", odd}, {"status", "200"}}), 1);
}

TEST(MetricsTest, ConcurrentCountsAreAllKept) {
  Metrics metrics({"r0", "r1"}, 4);
  constexpr int kPerThread = 200'000;
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 4; ++t) {
    threads.emplace_back([&metrics, t] {
      for (int i = 0; i < kPerThread; ++i) {
        metrics.add_in_flight(t, 1);
        metrics.count_request(t, i % 2, 200);
        metrics.count_request(0, 1, 503);  // a shared shard too: atomic, just slower
        metrics.add_in_flight(t, -1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(metrics.requests(0, 200), 4u * kPerThread / 2);
  EXPECT_EQ(metrics.requests(1, 200), 4u * kPerThread / 2);
  EXPECT_EQ(metrics.requests(1, 503), 4u * kPerThread);
  EXPECT_EQ(metrics.in_flight(), 0);
}

double process_cpu_s() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

TEST(MetricsTest, ProcessCpuAndMemoryFollowTheKernel) {
  // Burn CPU until the process has used 0.15 s, so the /proc figure (in clock ticks of
  // 10 ms, rounded down) is well above its resolution.
  volatile uint64_t x = 1;
  while (process_cpu_s() < 0.15) x = x * 3 + 1;
  double before_s = process_cpu_s();
  ProcessStats stats = read_process_stats();
  double after_s = process_cpu_s();
  ASSERT_TRUE(stats.ok);
  EXPECT_GE(stats.cpu_seconds, 0.1);
  EXPECT_GE(stats.cpu_seconds, before_s - 0.05);  // ticks round down; allow a few
  EXPECT_LE(stats.cpu_seconds, after_s + 0.01);

  // 64 MiB touched shows up in the resident size.
  constexpr size_t kBytes = 64 << 20;
  std::vector<char> block(kBytes);
  std::memset(block.data(), 1, kBytes);
  ProcessStats grown = read_process_stats();
  EXPECT_GE(grown.resident_bytes - stats.resident_bytes, static_cast<int64_t>(kBytes * 9 / 10));
  EXPECT_EQ(block[kBytes - 1], 1);

  Metrics metrics({"a"});
  Exposition e = parse(metrics.render_prometheus());
  EXPECT_GE(e.value("process_cpu_seconds_total"), 0.1);
  EXPECT_GE(e.value("process_resident_memory_bytes"), static_cast<double>(kBytes));
}

}  // namespace
}  // namespace proofload::serve
