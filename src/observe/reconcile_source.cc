// The sources of `--reconcile` (see reconcile_source.h): the `prom:` observer's sampler for an
// endpoint, so that scraping and its errors are one implementation, and run_bounded for a
// command. The metric is checked by the exposition parser itself, so `--reconcile` accepts a
// series written exactly as an endpoint writes it.
#include "observe/reconcile_source.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <thread>

#include "common/clock.h"
#include "common/usage_error.h"
#include "observe/bounded_command.h"
#include "observe/prom_sampler.h"
#include "observe/prom_text.h"

namespace proofload::observe {
namespace {

constexpr std::string_view kPromPrefix = "prom:";
constexpr size_t kMaxCommandOutputBytes = size_t{1} << 20;  // a count is a line, not a file

std::string usage_example() {
  return "prom:http://127.0.0.1:8080/metrics#requests_total{route=\"/x\"}, or a command that "
         "prints the count";
}

SeriesSelector parse_selector(std::string_view spec, std::string_view metric) {
  auto fail = [&](const std::string& why) -> SeriesSelector {
    throw UsageError("--reconcile '" + std::string(spec) + "': " + why);
  };
  if (metric.empty()) {
    return fail("no metric after '#' (write " + usage_example() + ")");
  }
  // One sample line of the metric, read by the exposition parser: what it accepts as a series is
  // what an endpoint may write.
  const PromParseResult parsed = parse_prom_text(std::string(metric) + " 0\n");
  if (parsed.bad_lines > 0 || parsed.series.size() != 1) {
    std::string why = parsed.first_bad;
    if (why.starts_with("line 1: ")) why = why.substr(8);
    return fail("'" + std::string(metric) + "' is not a metric name with optional labels, like " +
                "requests_total{route=\"/x\"}" + (why.empty() ? "" : " (" + why + ")"));
  }
  std::optional<SeriesSelector> selector = split_series_key(parsed.series[0].key);
  if (!selector) return fail("'" + std::string(metric) + "' is not a metric name");
  return *selector;
}

bool continues_word(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.';
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The printable first line of a command's output, shortened, for an error.
std::string output_excerpt(std::string_view out) {
  std::string line(out.substr(0, out.find('\n')));
  if (line.size() > 80) line = line.substr(0, 80) + "...";
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return line;
}

}  // namespace

std::string SeriesSelector::text() const {
  if (labels.empty()) return name;
  std::string out = name + "{";
  for (size_t i = 0; i < labels.size(); ++i) {
    out += (i == 0 ? "" : ",") + labels[i].first + "=\"" + labels[i].second + "\"";
  }
  return out + "}";
}

std::optional<SeriesSelector> split_series_key(std::string_view key) {
  SeriesSelector out;
  const size_t brace = key.find('{');
  out.name = std::string(key.substr(0, brace));
  if (out.name.empty()) return std::nullopt;
  if (brace == std::string_view::npos) return out;
  size_t i = brace + 1;
  while (i < key.size() && key[i] != '}') {
    const size_t equals = key.find('=', i);
    if (equals == std::string_view::npos || equals + 1 >= key.size() || key[equals + 1] != '"') {
      return std::nullopt;
    }
    std::string label(key.substr(i, equals - i));
    size_t j = equals + 2;
    std::string value;  // kept escaped, as both sides of a comparison are
    while (j < key.size() && key[j] != '"') {
      if (key[j] == '\\' && j + 1 < key.size()) value += key[j++];
      value += key[j++];
    }
    if (j >= key.size()) return std::nullopt;
    out.labels.emplace_back(std::move(label), std::move(value));
    i = j + 1;
    if (i < key.size() && key[i] == ',') ++i;
  }
  if (i >= key.size()) return std::nullopt;  // no closing brace
  return out;
}

double sum_matching(const std::vector<Reading>& readings, const SeriesSelector& selector,
                    size_t& matched) {
  matched = 0;
  double sum = 0;
  for (const Reading& reading : readings) {
    if (!reading.name.starts_with(selector.name)) continue;  // the cheap test first
    const std::optional<SeriesSelector> series = split_series_key(reading.name);
    if (!series || series->name != selector.name) continue;
    bool all = true;
    for (const auto& [label, value] : selector.labels) {
      std::string_view has;  // a label that is absent is empty, as Prometheus matches it
      for (const auto& [name, its_value] : series->labels) {
        if (name == label) has = its_value;
      }
      all = all && has == value;
    }
    if (!all) continue;
    ++matched;
    sum += reading.value;
  }
  return sum;
}

std::optional<double> first_number(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (i > 0 && continues_word(text[i - 1])) continue;
    size_t start = i;
    bool negative = false;
    if (text[start] == '-' || text[start] == '+') {
      negative = text[start] == '-';
      ++start;
    }
    const bool digit_next = start < text.size() && is_digit(text[start]);
    const bool point_digit =
        start + 1 < text.size() && text[start] == '.' && is_digit(text[start + 1]);
    if (!digit_next && !point_digit) continue;
    double value = 0;
    const auto [end, error] = std::from_chars(text.data() + start, text.data() + text.size(), value,
                                              std::chars_format::general);
    if (error != std::errc() || !std::isfinite(value)) continue;
    (void)end;
    return negative ? -value : value;
  }
  return std::nullopt;
}

ReconcileSpec parse_reconcile_spec(std::string_view text) {
  ReconcileSpec spec;
  spec.text = std::string(text);
  if (text.find_first_not_of(" \t") == std::string_view::npos) {
    throw UsageError("--reconcile needs a source: " + usage_example());
  }
  if (!text.starts_with(kPromPrefix)) {
    spec.command = std::string(text);
    return spec;
  }
  spec.prometheus = true;
  const size_t hash = text.find('#');
  if (hash == std::string_view::npos) {
    throw UsageError("--reconcile '" + std::string(text) +
                     "' names no metric: add '#' and the metric after the URL, like " +
                     usage_example());
  }
  spec.endpoint = std::string(text.substr(0, hash));
  if (spec.endpoint.size() == kPromPrefix.size()) {
    throw UsageError("--reconcile '" + std::string(text) + "' has no URL before '#' (write " +
                     usage_example() + ")");
  }
  spec.selector = parse_selector(text, text.substr(hash + 1));
  return spec;
}

ReconcileCounter::ReconcileCounter(ReconcileSpec spec, const net::TlsOptions& trust,
                                   int64_t timeout_ns)
    : spec_(std::move(spec)), timeout_ns_(timeout_ns) {
  if (!spec_.prometheus) return;
  try {
    scraper_ = make_prom_sampler(spec_.endpoint, timeout_ns_, trust);
  } catch (const UsageError& error) {
    std::string why = error.what();
    // The sampler speaks of an observer; here it is the reconcile's endpoint.
    if (why.starts_with("observer '")) why = why.substr(why.find("': ") + 3);
    throw UsageError("--reconcile '" + spec_.text + "': " + why);
  }
}

ReconcileCounter::~ReconcileCounter() = default;
ReconcileCounter::ReconcileCounter(ReconcileCounter&&) noexcept = default;
ReconcileCounter& ReconcileCounter::operator=(ReconcileCounter&&) noexcept = default;

CounterRead ReconcileCounter::read(bool require_series) {
  try {
    return spec_.prometheus ? read_prometheus(require_series) : read_command();
  } catch (const std::exception& e) {  // allocation only; a read never throws otherwise
    return {std::nullopt, e.what()};
  }
}

CounterRead ReconcileCounter::read_settled(double expected, int64_t settle_ns) {
  const int64_t deadline_ns = monotonic_ns() + settle_ns;
  for (;;) {
    CounterRead last = read(true);
    if ((last.value && *last.value == expected) || monotonic_ns() >= deadline_ns) return last;
    const int64_t pause_ns = std::min(kSettleStepNs, deadline_ns - monotonic_ns());
    if (pause_ns > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(pause_ns));
  }
}

CounterRead ReconcileCounter::read_prometheus(bool require_series) {
  const Sample sample = scraper_->sample(0);
  const std::string where = spec_.endpoint.substr(kPromPrefix.size());
  if (!sample.ok) return {std::nullopt, where + ": " + sample.error};
  size_t matched = 0;
  const double sum = sum_matching(sample.readings, spec_.selector, matched);
  if (matched == 0 && require_series) {
    return {std::nullopt, "no series " + spec_.selector.text() + " at " + where + " (of " +
                              std::to_string(sample.readings.size()) + " series)"};
  }
  return {sum, ""};
}

CounterRead ReconcileCounter::read_command() {
  CommandLimits limits;
  limits.timeout_ns = timeout_ns_;
  limits.max_stdout_bytes = kMaxCommandOutputBytes;
  const CommandOutcome outcome = run_bounded({"/bin/sh", "-c", spec_.command}, limits);
  if (!outcome.succeeded()) return {std::nullopt, "the command failed: " + outcome.failure()};
  const std::optional<double> number = first_number(outcome.out);
  if (!number) {
    return {std::nullopt,
            outcome.out.find_first_not_of(" \t\r\n") == std::string::npos
                ? std::string("the command printed nothing")
                : "the command printed no number ('" + output_excerpt(outcome.out) + "')"};
  }
  return {*number, ""};
}

}  // namespace proofload::observe
