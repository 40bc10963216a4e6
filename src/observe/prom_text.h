// A parser of the Prometheus text exposition format 0.0.4 (what /metrics endpoints, node
// exporters and cAdvisor serve): HELP and TYPE lines, samples with labels and escapes, the
// series of histograms and summaries attributed to their family. A malformed line is counted
// and skipped, never thrown: an endpoint is input from outside. Stateless; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "observe/prom_limits.h"
#include "observe/sampler.h"

namespace proofload::observe {

// A metric name is [a-zA-Z_:][a-zA-Z0-9_:]*: its first character, and the rest.
constexpr bool is_metric_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
constexpr bool is_metric_name_char(char c) {
  return is_metric_name_start(c) || (c >= '0' && c <= '9');
}

// One sample line of the exposition.
struct PromSeries {
  // The metric family: `http_request_duration_seconds` for its `_bucket`, `_sum` and `_count`
  // series when a TYPE line declares it a histogram (or summary); else the sample's own name.
  std::string family;
  // The series as a stable key: `name{a="b",c="d"}`, labels in the order received, values
  // escaped again (\\, \", \n) so that the key reads as the exposition does; just `name`
  // without labels. Two scrapes of one endpoint give the same key to the same series.
  std::string key;
  // counter: a counter family, and a histogram's _bucket/_sum/_count and a summary's
  // _sum/_count; gauge: gauges, untyped families, families without a TYPE line, and a
  // summary's quantiles.
  MetricKind kind = MetricKind::kGauge;
  double value = 0;                     // NaN and +-Inf as exposed
  std::optional<int64_t> timestamp_ms;  // the optional timestamp (ms since the Unix epoch)
};

struct PromParseOptions {
  // Input past this is not read (cut at the last whole line). The sampler skips a larger body
  // before it gets here; the cut is for any other caller.
  size_t max_bytes = kPromBodySizeLimitBytes;
  size_t max_series = 100'000;   // series kept; parsing stops at this many
  // Keep only series whose family name starts with one of these; empty keeps all. Lines of
  // other families are still checked (and counted when malformed).
  std::vector<std::string> family_prefixes;
  // A series whose key (`name{a="b"}` as exposed) passes this many bytes is skipped, read no
  // further, and counted in long_series: a label value of any length costs one pass, no copy.
  size_t max_key_bytes = kPromSeriesKeyLimitBytes;
  // Asked for each well-formed series the prefixes keep, before it is kept: false leaves it out,
  // counted in not_admitted (the sampler's cap on distinct series over a run). Empty: keep all.
  std::function<bool(std::string_view key)> admit;
};

struct PromParseResult {
  std::vector<PromSeries> series;  // in the order exposed, each key once
  size_t valid_samples = 0;        // well-formed sample lines, kept or filtered out
  size_t bad_lines = 0;            // malformed lines, skipped
  std::string first_bad;           // "line 12: <why>" for the first of them; "" if none
  size_t long_series = 0;          // series skipped for a key over max_key_bytes
  size_t not_admitted = 0;         // series `admit` refused
  // Parsing stopped at a limit: "input over 16 MiB read up to its last whole line" or
  // "stopped at 100000 series"; "" when the whole input was read.
  std::string truncated;
};

// Parses an exposition. Malformed lines (bad names, labels, escapes, values or timestamps;
// HELP/TYPE lines without a name, unknown types, a second TYPE for a family; a histogram
// _bucket without `le`, a summary sample without `quantile`; a series seen twice) are counted
// and skipped; every other line still counts. Blank lines and other comments are ignored; line
// ends may be LF or CRLF.
PromParseResult parse_prom_text(std::string_view text, const PromParseOptions& options = {});

}  // namespace proofload::observe
