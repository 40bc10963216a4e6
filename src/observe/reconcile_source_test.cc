// `--reconcile`'s sources: the spec's parse and its one-line errors, series matched by name and
// labels and summed, the first number of a command's output, and reads that fail (a command that
// exits 1, prints nothing or no number, or hangs; an endpoint where nothing listens).
#include "observe/reconcile_source.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>

#include "common/clock.h"
#include "common/usage_error.h"

namespace proofload::observe {
namespace {

std::string usage_error_of(std::string_view spec) {
  try {
    parse_reconcile_spec(spec);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ReconcileSpec, PromEndpointAndMetricWithLabels) {
  const ReconcileSpec spec = parse_reconcile_spec(
      "prom:http://127.0.0.1:9/metrics#proofload_requests_total{route=\"ok\", status=\"200\"}");
  EXPECT_TRUE(spec.prometheus);
  EXPECT_EQ(spec.endpoint, "prom:http://127.0.0.1:9/metrics");
  EXPECT_EQ(spec.selector.name, "proofload_requests_total");
  ASSERT_EQ(spec.selector.labels.size(), 2u);
  EXPECT_EQ(spec.selector.labels[1], (std::pair<std::string, std::string>{"status", "200"}));
  EXPECT_EQ(spec.selector.text(), "proofload_requests_total{route=\"ok\",status=\"200\"}");
}

TEST(ReconcileSpec, AnythingElseIsACommand) {
  const ReconcileSpec spec = parse_reconcile_spec("psql -tAc 'select count(*) from rows'");
  EXPECT_FALSE(spec.prometheus);
  EXPECT_EQ(spec.command, "psql -tAc 'select count(*) from rows'");
}

TEST(ReconcileSpec, BadSpecsAreOneLineErrors) {
  EXPECT_EQ(usage_error_of("prom:http://127.0.0.1:9/metrics"),
            "--reconcile 'prom:http://127.0.0.1:9/metrics' names no metric: add '#' and the "
            "metric after the URL, like prom:http://127.0.0.1:8080/metrics#requests_total{route="
            "\"/x\"}, or a command that prints the count");
  EXPECT_NE(usage_error_of("prom:http://127.0.0.1:9/metrics#").find("no metric after '#'"),
            std::string::npos);
  EXPECT_NE(usage_error_of("prom:#rows").find("has no URL before '#'"), std::string::npos);
  EXPECT_NE(usage_error_of("prom:http://h/m#rows{route=/x}").find("is not a metric name"),
            std::string::npos);
  EXPECT_NE(usage_error_of("prom:http://h/m#2rows").find("is not a metric name"),
            std::string::npos);
  EXPECT_NE(usage_error_of("  ").find("--reconcile needs a source"), std::string::npos);
  for (std::string_view spec : {"prom:http://127.0.0.1:9/metrics", "prom:http://h/m#rows{"}) {
    const std::string error = usage_error_of(spec);
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
}

TEST(ReconcileSpec, ABadUrlIsRefusedWhenTheCounterIsMade) {
  try {
    ReconcileCounter counter(parse_reconcile_spec("prom:ftp://127.0.0.1/metrics#rows"));
    FAIL() << "accepted an ftp URL";
  } catch (const UsageError& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with("--reconcile 'prom:ftp://127.0.0.1/metrics#rows"))
        << e.what();
  }
}

TEST(ReconcileSeries, SplitsAKeyAsTheParserWritesIt) {
  const auto key = split_series_key(R"(m{a="x\"y",b="2"})");
  ASSERT_TRUE(key);
  EXPECT_EQ(key->name, "m");
  ASSERT_EQ(key->labels.size(), 2u);
  EXPECT_EQ(key->labels[0].second, R"(x\"y)");
  EXPECT_EQ(split_series_key("plain")->labels.size(), 0u);
  EXPECT_FALSE(split_series_key(R"(m{a="x")"));
}

TEST(ReconcileSeries, SumsEverySeriesCarryingTheLabelsGiven) {
  const std::vector<Reading> readings = {
      {R"(req_total{route="a",status="200"})", MetricKind::kCounter, 10},
      {R"(req_total{route="a",status="500"})", MetricKind::kCounter, 3},
      {R"(req_total{route="b",status="200"})", MetricKind::kCounter, 100},
      {R"(req_total_other{route="a"})", MetricKind::kCounter, 1000},
      {"req_total", MetricKind::kCounter, 7}};
  size_t matched = 0;
  SeriesSelector route_a = *split_series_key(R"(req_total{route="a"})");
  EXPECT_EQ(sum_matching(readings, route_a, matched), 13);
  EXPECT_EQ(matched, 2u);
  SeriesSelector ok_a = *split_series_key(R"(req_total{route="a",status="200"})");
  EXPECT_EQ(sum_matching(readings, ok_a, matched), 10);
  SeriesSelector all = *split_series_key("req_total");
  EXPECT_EQ(sum_matching(readings, all, matched), 120);
  EXPECT_EQ(matched, 4u);
  SeriesSelector none = *split_series_key(R"(req_total{route="c"})");
  EXPECT_EQ(sum_matching(readings, none, matched), 0);
  EXPECT_EQ(matched, 0u);
}

TEST(ReconcileCommand, TheFirstNumberOfTheOutput) {
  EXPECT_EQ(first_number("90620\n"), 90620);
  EXPECT_EQ(first_number("rows: 90620 (v2 schema)"), 90620);
  EXPECT_EQ(first_number("table_v2 count=-3"), -3);
  EXPECT_EQ(first_number("1.5e3 rows"), 1500);
  EXPECT_EQ(first_number(" .5"), 0.5);
  EXPECT_EQ(first_number("v2 rows"), std::nullopt);
  EXPECT_EQ(first_number(""), std::nullopt);
}

TEST(ReconcileCommand, ReadsTheCountAndSaysWhyNot) {
  ReconcileCounter counter(parse_reconcile_spec("echo 'rows 41'; echo 99"));
  const CounterRead read = counter.read(true);
  EXPECT_EQ(read.value, 41);
  EXPECT_EQ(read.error, "");

  ReconcileCounter failing(parse_reconcile_spec("echo broken >&2; exit 3"));
  const CounterRead failed = failing.read(true);
  EXPECT_FALSE(failed.value);
  EXPECT_EQ(failed.error, "the command failed: exit 3: broken");

  ReconcileCounter silent(parse_reconcile_spec("true"));
  EXPECT_EQ(silent.read(true).error, "the command printed nothing");
  ReconcileCounter wordy(parse_reconcile_spec("echo no rows yet"));
  EXPECT_EQ(wordy.read(true).error, "the command printed no number ('no rows yet')");
}

TEST(ReconcileCommand, AHangingCommandIsCutAtTheTimeout) {
  ReconcileCounter slow(parse_reconcile_spec("sleep 30; echo 1"), {}, 200 * kNsPerMs);
  const int64_t start = monotonic_ns();
  const CounterRead read = slow.read(true);
  EXPECT_LT(monotonic_ns() - start, 5 * kNsPerS);
  EXPECT_FALSE(read.value);
  EXPECT_NE(read.error.find("timed out after 200 ms"), std::string::npos) << read.error;
}

TEST(ReconcileCommand, AfterTheRunItReadsAgainUntilTheCountArrives) {
  // A count that grows by one on each read, as a writer that commits in batches would.
  const std::string file = ::testing::TempDir() + "reconcile_count";
  ASSERT_EQ(std::system(("echo 0 > " + file).c_str()), 0);
  ReconcileCounter growing(
      parse_reconcile_spec("n=$(cat " + file + "); echo $((n + 1)) > " + file + "; echo $n"));
  const CounterRead reached = growing.read_settled(3, 10 * kNsPerS);
  EXPECT_EQ(reached.value, 3);
  // One that never gets there is read until the settle time passes, and the last read returned.
  const int64_t start = monotonic_ns();
  const CounterRead short_of = growing.read_settled(-1, 300 * kNsPerMs);
  EXPECT_GE(monotonic_ns() - start, 300 * kNsPerMs);
  ASSERT_TRUE(short_of.value);
  EXPECT_GT(*short_of.value, 4);
}

TEST(ReconcilePrometheus, AnEndpointWhereNothingListensIsAnError) {
  // A port bound and released: nothing listens there.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  const std::string url = "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port)) + "/m";
  ReconcileCounter counter(parse_reconcile_spec("prom:" + url + "#rows"));
  const CounterRead read = counter.read(false);
  EXPECT_FALSE(read.value);
  EXPECT_TRUE(read.error.starts_with(url + ": connect to 127.0.0.1:")) << read.error;
}

}  // namespace
}  // namespace proofload::observe
