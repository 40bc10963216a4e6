// See soak_analysis.h.
#include "analyze/soak_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "common/text.h"
#include "common/units.h"
#include "common/usage_error.h"

namespace proofload::analyze {
namespace {

constexpr const char* kBarForm =
    "expected parts like errors<=1%, 429s<=5%, p95<2s, p99<=500ms, canaries, ttft_p95<500ms, "
    "itl_p99<100ms or stream_goodput>=90%, separated by commas";

[[noreturn]] void bad_part(std::string_view part, std::string_view why) {
  throw UsageError(fmt::format("--bar part '{}': {}; {}", part, why, kBarForm));
}

// "1%" or "0.5%": a share 0..1.
double share_of(std::string_view part, std::string_view text) {
  text = trim(text);
  if (text.empty() || text.back() != '%') bad_part(part, "a share ends in %");
  std::string number(text.substr(0, text.size() - 1));
  size_t used = 0;
  double value = -1;
  try {
    value = std::stod(number, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != number.size() || !std::isfinite(value) || value < 0 || value > 100) {
    bad_part(part, "the share must be 0% to 100%");
  }
  return value / 100;
}

// Splits "errors<=1%" into name, inclusive, value.
struct Comparison {
  std::string_view name;
  bool inclusive = false;
  std::string_view value;
};
Comparison split_comparison(std::string_view part) {
  const size_t at = part.find('<');
  if (at == std::string_view::npos) bad_part(part, "expected < or <=");
  Comparison c;
  c.name = trim(part.substr(0, at));
  c.inclusive = at + 1 < part.size() && part[at + 1] == '=';
  c.value = trim(part.substr(at + (c.inclusive ? 2 : 1)));
  return c;
}

std::vector<double> p95s_between(std::span<const SoakWindowRow> rows, double from_s, double to_s) {
  std::vector<double> out;
  for (const SoakWindowRow& row : rows) {
    if (!row.ramp && row.p95_ms && row.start_s >= from_s && row.start_s < to_s)
      out.push_back(*row.p95_ms);
  }
  return out;
}

BarMiss bound_miss(BarPart part, std::optional<double> observed, double limit, bool inclusive) {
  BarMiss miss;
  miss.part = part;
  miss.observed = observed;
  miss.limit = limit;
  miss.inclusive = inclusive;
  return miss;
}

// The bar's stream parts; a window in which no stream ended has nothing to meet them with.
void judge_streams(const SoakBar& bar, SoakWindowRow& row) {
  for (const SoakBar::StreamBound& b : bar.stream_latency) {
    const bool ttft = b.figure == "ttft_p95";
    const std::optional<double>& value = ttft ? row.ttft_p95_ms : row.itl_p99_ms;
    const BarMiss miss =
        bound_miss(ttft ? BarPart::kTtftP95 : BarPart::kItlP99, value, b.limit_ms, b.inclusive);
    if (!value) {
      if (row.requests > 0) row.misses.push_back(miss);
      continue;
    }
    if (b.inclusive ? *value > b.limit_ms : *value >= b.limit_ms) row.misses.push_back(miss);
  }
  if (!bar.min_stream_goodput) return;
  const BarMiss miss = bound_miss(BarPart::kStreamGoodput, row.stream_goodput,
                                  *bar.min_stream_goodput, bar.stream_goodput_inclusive);
  if (!row.stream_goodput) {
    if (row.requests > 0) row.misses.push_back(miss);
    return;
  }
  const double share = *row.stream_goodput;
  if (bar.stream_goodput_inclusive ? share < *bar.min_stream_goodput
                                   : share <= *bar.min_stream_goodput) {
    row.misses.push_back(miss);
  }
}

}  // namespace

SoakBar parse_soak_bar(std::string_view text) {
  SoakBar bar;
  bar.text = std::string(trim(text));
  if (bar.text.empty()) throw UsageError(std::string("--bar is empty; ") + kBarForm);
  size_t start = 0;
  while (start <= bar.text.size()) {
    const size_t comma = bar.text.find(',', start);
    const std::string_view part = trim(std::string_view(bar.text).substr(
        start, comma == std::string::npos ? std::string::npos : comma - start));
    if (part.empty()) throw UsageError("--bar has an empty part in '" + bar.text + "'");
    if (part == "canaries") {
      bar.canaries = true;
    } else if (part.starts_with("stream_goodput")) {
      // A lower bound, the one part that is: the share of streams that met --goodput.
      const std::string_view rest = trim(part.substr(std::string_view("stream_goodput").size()));
      if (!rest.starts_with('>')) bad_part(part, "stream_goodput takes >= or >");
      bar.stream_goodput_inclusive = rest.size() > 1 && rest[1] == '=';
      bar.min_stream_goodput = share_of(part, rest.substr(bar.stream_goodput_inclusive ? 2 : 1));
    } else {
      const Comparison c = split_comparison(part);
      if (c.name == "errors") {
        bar.max_error_share = share_of(part, c.value);
        bar.errors_inclusive = c.inclusive;
      } else if (c.name == "429s") {
        if (!c.inclusive) bad_part(part, "429s takes <=");
        bar.max_429_share = share_of(part, c.value);
      } else if (c.name == "p50" || c.name == "p95" || c.name == "p99") {
        SoakBar::Percentile p;
        p.percentile = std::stoi(std::string(c.name.substr(1)));
        const int64_t ns = parse_duration_ns(c.value);
        if (ns <= 0) bad_part(part, "the limit must be above 0");
        p.limit_ms = static_cast<double>(ns) / 1e6;
        p.inclusive = c.inclusive;
        bar.latency.push_back(p);
      } else if (c.name == "ttft_p95" || c.name == "itl_p99") {
        const int64_t ns = parse_duration_ns(c.value);
        if (ns <= 0) bad_part(part, "the limit must be above 0");
        bar.stream_latency.push_back(
            {std::string(c.name), static_cast<double>(ns) / 1e6, c.inclusive});
      } else {
        bad_part(part, "unknown measure '" + std::string(c.name) + "'");
      }
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return bar;
}

void judge_window(const SoakBar& bar, SoakWindowRow& row) {
  row.misses.clear();
  if (row.requests == 0) {
    row.misses.push_back(BarMiss{});  // BarPart::kNoRequest
  } else {
    const double requests = static_cast<double>(row.requests);
    if (bar.max_error_share) {
      const double share = static_cast<double>(row.errors) / requests;
      const bool ok =
          bar.errors_inclusive ? share <= *bar.max_error_share : share < *bar.max_error_share;
      if (!ok) {
        row.misses.push_back(
            bound_miss(BarPart::kErrors, share, *bar.max_error_share, bar.errors_inclusive));
      }
    }
    if (bar.max_429_share) {
      const double share = static_cast<double>(row.status_429) / requests;
      if (share > *bar.max_429_share) {
        row.misses.push_back(bound_miss(BarPart::k429s, share, *bar.max_429_share, true));
      }
    }
  }
  for (const SoakBar::Percentile& p : bar.latency) {
    const std::optional<double>& value = p.percentile == 50   ? row.p50_ms
                                         : p.percentile == 99 ? row.p99_ms
                                                              : row.p95_ms;
    BarMiss miss = bound_miss(BarPart::kPercentile, value, p.limit_ms, p.inclusive);
    miss.percentile = p.percentile;
    if (!value) {
      if (row.requests > 0) row.misses.push_back(miss);
      continue;
    }
    const bool ok = p.inclusive ? *value <= p.limit_ms : *value < p.limit_ms;
    if (!ok) row.misses.push_back(miss);
  }
  judge_streams(bar, row);
  if (bar.canaries && row.canaries_wrong > 0) {
    BarMiss miss;
    miss.part = BarPart::kCanaries;
    miss.wrong = row.canaries_wrong;
    miss.checked = row.canaries_wrong + row.canaries_right;
    row.misses.push_back(miss);
  }
  row.bar_met = row.misses.empty();
}

std::string_view drift_fails_text(DriftFails fails) {
  return fails == DriftFails::kAny ? "any" : "rise";
}

Drift analyze_drift(std::span<const SoakWindowRow> rows, const DriftRule& rule) {
  Drift drift;
  double hold_s = 0;
  int with_p95 = 0;
  for (const SoakWindowRow& row : rows) {
    if (row.ramp) continue;
    hold_s = std::max(hold_s, row.start_s + row.duration_s);
    if (row.p95_ms) ++with_p95;
  }
  drift.windows_with_p95 = with_p95;
  const double quarter_s = hold_s / 4;
  const std::vector<double> first = p95s_between(rows, 0, quarter_s);
  const std::vector<double> last = p95s_between(rows, hold_s - quarter_s, hold_s + 1);
  drift.first_quarter_p95_ms = median_of(first);
  drift.last_quarter_p95_ms = median_of(last);

  if (rule.stated_noise_ms) {
    drift.noise_ms = *rule.stated_noise_ms;
    drift.noise_source = "stated";
  } else if (first.size() >= 2) {
    // The window-to-window spread: the median change of p95 from one window to the next over the
    // hold. A slow drift moves each window little, so this measures the jitter, not the drift.
    std::vector<double> changes;
    const SoakWindowRow* previous = nullptr;
    for (const SoakWindowRow& row : rows) {
      if (row.ramp || !row.p95_ms) continue;
      if (previous != nullptr) changes.push_back(std::abs(*row.p95_ms - *previous->p95_ms));
      previous = &row;
    }
    drift.spread_ms = median_of(changes).value_or(0);
    drift.relative_floor_ms = rule.floor_share * drift.first_quarter_p95_ms.value_or(0);
    drift.absolute_floor_ms = rule.floor_ms;
    drift.noise_ms = std::max({*drift.spread_ms, *drift.relative_floor_ms, rule.floor_ms});
    drift.noise_source = "measured";
    drift.relative_floor_share = rule.floor_share;
    drift.noise_largest = drift.noise_ms == *drift.spread_ms ? DriftNoisePart::kSpread
                          : drift.noise_ms == *drift.relative_floor_ms
                              ? DriftNoisePart::kRelativeFloor
                              : DriftNoisePart::kAbsoluteFloor;
  }

  const double block = rule.block_s > 0 ? rule.block_s : quarter_s;
  if (block > 0 && hold_s > 0) {
    for (double start = 0; start < hold_s - 1e-9; start += block) {
      DriftBlock b;
      b.start_s = start;
      b.end_s = std::min(start + block, hold_s);
      b.median_p95_ms = median_of(p95s_between(rows, b.start_s, b.end_s));
      drift.blocks.push_back(b);
      if (drift.blocks.size() >= 10'000) break;  // a block far shorter than the windows
    }
    const std::optional<double> base =
        drift.blocks.empty() ? std::nullopt : drift.blocks.front().median_p95_ms;
    for (DriftBlock& b : drift.blocks) {
      if (base && b.median_p95_ms) {
        b.change_ms = *b.median_p95_ms - *base;
        b.outside_noise = std::abs(*b.change_ms) > drift.noise_ms;
      }
    }
  }

  if (with_p95 < kMinDriftWindows || first.empty() || last.empty() || drift.noise_source.empty()) {
    drift.verdict = "not judged";
    return drift;
  }
  const double change = *drift.last_quarter_p95_ms - *drift.first_quarter_p95_ms;
  const bool outside = std::abs(change) > drift.noise_ms;
  drift.verdict = outside ? "drift" : "no drift";
  drift.direction = change >= 0 ? "rose" : "fell";
  drift.fails = outside && (change >= 0 || rule.fails == DriftFails::kAny);
  return drift;
}

Slowest slowest_of(std::span<const SoakWindowRow> rows) {
  Slowest slowest;
  for (const SoakWindowRow& row : rows) {
    if (row.ramp || !row.slowest_ms) continue;
    if (!slowest.ms || *row.slowest_ms > *slowest.ms) {
      slowest.ms = row.slowest_ms;
      slowest.at_s = row.slowest_at_s;
    }
  }
  return slowest;
}

MarkVerdict judge_mark(std::span<const SoakWindowRow> rows, const Mark& mark, double window_s) {
  MarkVerdict v;
  v.mark = mark;
  std::vector<double> before;
  const SoakWindowRow* first_missed = nullptr;
  double throughput_sum = 0;
  for (const SoakWindowRow& row : rows) {
    const double end_s = row.start_s + row.duration_s;
    if (!row.ramp && row.p95_ms && end_s <= mark.at_s) before.push_back(*row.p95_ms);
    if (end_s <= mark.at_s - window_s || row.start_s >= mark.at_s + window_s) continue;
    ++v.windows;
    v.requests += row.requests;
    v.errors += row.errors;
    v.status_429 += row.status_429;
    v.canaries_wrong += row.canaries_wrong;
    throughput_sum += row.throughput_rps;
    if (row.p95_ms && (!v.worst_p95_ms || *row.p95_ms > *v.worst_p95_ms))
      v.worst_p95_ms = row.p95_ms;
    if (!row.bar_met && first_missed == nullptr) first_missed = &row;
  }
  v.baseline_p95_ms = median_of(before);
  if (v.windows == 0) {
    v.verdict = "not judged";
    return v;
  }
  v.throughput_rps = throughput_sum / static_cast<double>(v.windows);
  if (first_missed != nullptr) {
    int64_t missed = 0;
    for (const SoakWindowRow& row : rows) {
      const double end_s = row.start_s + row.duration_s;
      if (end_s > mark.at_s - window_s && row.start_s < mark.at_s + window_s && !row.bar_met)
        ++missed;
    }
    v.verdict = "FAIL";
    v.windows_missed = missed;
    v.first_missed_offset_s = first_missed->start_s - mark.at_s;
    v.first_missed = first_missed->misses;
  } else {
    v.verdict = "PASS";
  }
  return v;
}

int64_t windows_missed(std::span<const SoakWindowRow> rows) {
  return std::count_if(rows.begin(), rows.end(),
                       [](const SoakWindowRow& row) { return !row.ramp && !row.bar_met; });
}

}  // namespace proofload::analyze
