// See soak_words.h.
#include "words/soak_words.h"

#include <fmt/format.h>

#include <cmath>

#include "words/numbers.h"

namespace proofload::words {
namespace {

using analyze::BarPart;

std::string joined(const std::vector<std::string>& reasons) {
  std::string out;
  for (const std::string& reason : reasons) out += (out.empty() ? "" : "; ") + reason;
  return out;
}

// An upper bound broken: "<=" is broken by ">", "<" by ">=".
const char* above(bool inclusive) { return inclusive ? ">" : ">="; }

}  // namespace

std::string bar_miss_text(const analyze::BarMiss& m) {
  switch (m.part) {
    case BarPart::kNoRequest:
      return "no request ended";
    case BarPart::kErrors:
      return fmt::format("errors {} {} {}", percent_text(m.observed.value_or(0)),
                         above(m.inclusive), given_percent_text(m.limit));
    case BarPart::k429s:
      return fmt::format("429s {} > {}", percent_text(m.observed.value_or(0)),
                         given_percent_text(m.limit));
    case BarPart::kPercentile:
      if (!m.observed) return fmt::format("p{} not measured (no response)", m.percentile);
      return fmt::format("p{} {} {} {}", m.percentile, ms_text(*m.observed), above(m.inclusive),
                         ms_text(m.limit));
    case BarPart::kTtftP95:
    case BarPart::kItlP99: {
      const char* figure = m.part == BarPart::kTtftP95 ? "ttft_p95" : "itl_p99";
      if (!m.observed) return fmt::format("{} not measured (no stream ended)", figure);
      return fmt::format("{} {} {} {}", figure, ms_text(*m.observed), above(m.inclusive),
                         ms_text(m.limit));
    }
    case BarPart::kStreamGoodput:
      if (!m.observed) return "stream_goodput not measured (no stream ended)";
      return fmt::format("stream_goodput {} {} {}", percent_text(*m.observed),
                         m.inclusive ? "<" : "<=", given_percent_text(m.limit));
    case BarPart::kCanaries:
      return fmt::format("{} of {} canaries wrong", m.wrong, m.checked);
  }
  return "";
}

void describe_window(analyze::SoakWindowRow& row) {
  row.reasons.clear();
  for (const analyze::BarMiss& miss : row.misses) row.reasons.push_back(bar_miss_text(miss));
}

void judge_and_describe_window(const analyze::SoakBar& bar, analyze::SoakWindowRow& row) {
  analyze::judge_window(bar, row);
  describe_window(row);
}

void describe_drift(analyze::Drift& d) {
  if (d.noise_source == "stated") {
    d.noise_text = fmt::format("stated: {}", ms_text(d.noise_ms));
  } else if (d.noise_source == "measured") {
    const char* largest =
        d.noise_largest == analyze::DriftNoisePart::kSpread          ? "the window-to-window spread"
        : d.noise_largest == analyze::DriftNoisePart::kRelativeFloor ? "the relative floor"
                                                                     : "the absolute floor";
    d.noise_text = fmt::format(
        "measured: {}, the largest of the window-to-window spread (the median change of p95 from "
        "one window to the next) {}, the relative floor ({} of the first quarter's p95) {} and "
        "the absolute floor {}",
        largest, ms_text(d.spread_ms.value_or(0)),
        given_percent_text(d.relative_floor_share.value_or(0)),
        ms_text(d.relative_floor_ms.value_or(0)), ms_text(d.absolute_floor_ms.value_or(0)));
  } else {
    d.noise_text.clear();
  }
  if (d.verdict == "not judged" || !d.first_quarter_p95_ms || !d.last_quarter_p95_ms) {
    d.reason = fmt::format("{} windows of the hold have a p95; drift needs at least {}",
                           d.windows_with_p95, analyze::kMinDriftWindows);
    return;
  }
  const double change = *d.last_quarter_p95_ms - *d.first_quarter_p95_ms;
  const bool outside = d.verdict == "drift";
  d.reason = fmt::format("p95 {} {} ({} -> {}), {} the noise of {}", d.direction,
                         ms_text(std::abs(change)), ms_text(*d.first_quarter_p95_ms),
                         ms_text(*d.last_quarter_p95_ms), outside ? "beyond" : "within",
                         ms_text(d.noise_ms));
  if (outside && !d.fails) {
    d.reason += ": a fall is reported, not failed (--drift-fails any fails it)";
  }
}

analyze::Drift described_drift(std::span<const analyze::SoakWindowRow> rows,
                               const analyze::DriftRule& rule) {
  analyze::Drift d = analyze::analyze_drift(rows, rule);
  describe_drift(d);
  return d;
}

void describe_mark(analyze::MarkVerdict& v) {
  if (v.verdict == "FAIL") {
    std::vector<std::string> reasons;
    for (const analyze::BarMiss& miss : v.first_missed) reasons.push_back(bar_miss_text(miss));
    v.reason = fmt::format("{} of {} windows around it missed the bar; the first, at {:+g} s: {}",
                           v.windows_missed, v.windows, v.first_missed_offset_s, joined(reasons));
  } else if (v.verdict == "PASS") {
    v.reason = fmt::format(
        "all {} windows around it met the bar; worst p95 {}{}", v.windows,
        v.worst_p95_ms ? ms_text(*v.worst_p95_ms) : "not measured",
        v.baseline_p95_ms ? fmt::format(" against a baseline of {}", ms_text(*v.baseline_p95_ms))
                          : "");
  } else {
    v.reason = "no window around it (the soak ended before)";
  }
}

analyze::MarkVerdict described_mark(std::span<const analyze::SoakWindowRow> rows,
                                    const analyze::Mark& mark, double window_s) {
  analyze::MarkVerdict v = analyze::judge_mark(rows, mark, window_s);
  describe_mark(v);
  return v;
}

}  // namespace proofload::words
