// A probe's summary.md (see probe_report.h); its per-second CSVs are probe_csv.cc's.
#include "report/probe_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>

#include "report/markdown_text.h"
#include "report/segment_section.h"
#include "result/probe_expectation.h"
#include "words/numbers.h"
#include "words/probe_words.h"

namespace proofload::report {
namespace {

using namespace markdown;  // tables and code (markdown_text.h)
using namespace words;     // numbers (words/numbers.h), r (words/probe_words.h)
using analyze::ProbeSourceFigures;
using result::ProbeResult;

constexpr const char* kTitle = "# Probe: does each address get its own allowance?\n\n";

std::vector<const ProbeSourceFigures*> answered(const ProbeResult& r) {
  std::vector<const ProbeSourceFigures*> out;
  for (const ProbeSourceFigures& f : r.analysis.sources) {
    if (!f.failed) out.push_back(&f);
  }
  return out;
}

std::vector<const ProbeSourceFigures*> failed(const ProbeResult& r) {
  std::vector<const ProbeSourceFigures*> out;
  for (const ProbeSourceFigures& f : r.analysis.sources) {
    if (f.failed) out.push_back(&f);
  }
  return out;
}

std::vector<std::string> addresses(const std::vector<const ProbeSourceFigures*>& sources) {
  std::vector<std::string> out;
  for (const ProbeSourceFigures* f : sources) out.push_back(f->address);
  return out;
}

bool any_lower_bound(const ProbeResult& r) {
  return std::any_of(
      r.analysis.sources.begin(), r.analysis.sources.end(),
      [](const ProbeSourceFigures& f) { return !f.failed && f.burst_is_lower_bound; });
}

// A rate a user gave, as given: "100/s" (not "100.0/s"); "33.3/s" for 2000/m.
std::string given_rate(double rate) { return fixed(rate, rate == std::round(rate) ? 0 : 1) + "/s"; }

// The rate --expect stated per source; nullopt without one (or one this version cannot read).
std::optional<double> expected_rate(const ProbeResult& r) {
  if (!r.settings.expect) return std::nullopt;
  try {
    return result::parse_probe_expectation(*r.settings.expect, r.settings.tolerance).rate_per_s;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The seconds the sustained rate counts, in words: "the 50 s from 10 s to 60 s".
std::string counted_words(const ProbeResult& r) {
  for (const ProbeSourceFigures* f : answered(r)) {
    if (!f->sustained) continue;
    return fmt::format("the {} from {} on",
                       seconds_text(static_cast<double>(f->sustained->seconds)),
                       seconds_text(r.settings.settle_s));
  }
  return "no whole second after " + seconds_text(r.settings.settle_s);
}

std::string burst_cell(const ProbeSourceFigures& f) {
  if (!f.burst_before_first_429) return "no 429";
  return count_text(static_cast<double>(*f.burst_before_first_429)) +
         (f.burst_is_lower_bound ? "*" : "");
}

std::string totals_burst_cell(const ProbeSourceFigures& f) {
  return f.burst_from_totals ? count_text(std::round(*f.burst_from_totals))
                             : std::string(kNotMeasured);
}

std::string sustained_cell(const ProbeSourceFigures& f) {
  if (!f.sustained) return std::string(kNotMeasured);
  // A second's count is whole: its range reads as counts, the mean as a rate.
  return fmt::format("{} ({}–{})", rate_number(f.sustained->mean), count_text(f.sustained->min),
                     count_text(f.sustained->max));
}

std::string expect_cell(const ProbeSourceFigures& f) {
  if (f.failed) return "failed";
  if (!f.expect_met) return std::string(kNotMeasured);
  return *f.expect_met ? "met" : "missed";
}

std::string r_cell(const std::optional<double>& r) {
  return r ? correlation_text(*r) : std::string(kNotMeasured);
}

// "together 100/s, against 2 × 100/s = 200/s expected".
std::string sum_words(const ProbeResult& r) {
  std::string out = rate_text(r.analysis.sustained_sum);
  const std::optional<double> rate = expected_rate(r);
  if (rate && r.analysis.expected_sum) {
    out += fmt::format(", against {} × {} = {} expected", answered(r).size(), given_rate(*rate),
                       given_rate(*r.analysis.expected_sum));
  }
  return out;
}

void title_and_scope(std::string& out, const ProbeResult& r) {
  const result::ProbeSettings& s = r.settings;
  out += kTitle;
  out += fmt::format(
      "Target {} ({}{}).", r.source.target.empty() ? "not recorded" : inline_code(r.source.target),
      inline_code(s.method), r.source.protocol.empty() ? "" : ", " + r.source.protocol);
  if (!r.source.scenario_file.empty()) {
    out += " Scenario " + inline_code(r.source.scenario_file) +
           (s.scenario_request ? ", request " + inline_code(*s.scenario_request) : "") + ".";
  }
  out += fmt::format(
      " {} source{} ({}), {} connection{} each, {}, for {}", s.sources.size(),
      s.sources.size() == 1 ? "" : "s", list_text(s.sources),
      count_text(static_cast<double>(s.connections_per_source)),
      s.connections_per_source == 1 ? "" : "s",
      s.rate_per_source ? rate_text(*s.rate_per_source) + " per source" : std::string("flat out"),
      seconds_text(s.duration_s));
  if (r.measured_s > 0 && r.measured_s + 0.5 < s.duration_s) {
    out += " (the load ran " + seconds_text(r.measured_s) + ")";
  }
  out += "; the sustained rate is counted from " + seconds_text(s.settle_s) + " on.\n";
  out += s.expect ? fmt::format("Expected per source: {}, within {}.\n", inline_code(*s.expect),
                                percent_text(s.tolerance, 0))
                  : fmt::format(
                        "No allowance was stated (`--expect`): the sources are compared "
                        "with each other, within {} of their median.\n",
                        percent_text(s.tolerance, 0));
  out += fmt::format("Started {}, proofload {}.",
                     r.started_at.empty() ? "at a time not recorded" : r.started_at,
                     r.proofload_version);
  if (r.status != "complete") {
    out += fmt::format(" Ended {}: {}.", r.status,
                       r.end_reason.empty() ? "no reason recorded" : r.end_reason);
  }
  out += "\n\n";
  if (r.rebuilt) {
    out +=
        "This report was rebuilt from the per-second CSVs the probe streamed (sources/*.csv): "
        "the probe ended without writing its result, so the second in progress when it ended "
        "is missing and no rate-limit headers are known.\n\n";
  }
}

// Why a per-source answer has no source to give it.
std::string no_source_words(const ProbeResult& r) {
  return r.analysis.sources.empty() ? "not measured: the probe ended before its analysis"
                                    : "not measured: no source answered";
}

std::string burst_answer(const ProbeResult& r) {
  std::vector<std::string> each, bounded;
  int64_t low = -1, high = -1;
  for (const ProbeSourceFigures* f : answered(r)) {
    each.push_back(f->address + ": " + burst_cell(*f));
    if (f->burst_is_lower_bound) bounded.push_back(totals_burst_cell(*f) + " (" + f->address + ")");
    if (!f->burst_before_first_429) continue;
    const int64_t b = *f->burst_before_first_429;
    low = low < 0 ? b : std::min(low, b);
    high = std::max(high, b);
  }
  if (each.empty()) return no_source_words(r);
  if (low < 0) return "not measured: no 429 came";
  std::string out = count_text(static_cast<double>(low));
  if (high != low) out += " to " + count_text(static_cast<double>(high));
  out += " before the first 429 (" + list_text(each) + ")";
  if (!bounded.empty()) {
    out += fmt::format("; * {}: the totals give {}",
                       bounded.size() == 1 ? "a lower bound" : "lower bounds", list_text(bounded));
  }
  return out;
}

std::string sustained_answer(const ProbeResult& r) {
  std::vector<std::string> each;
  for (const ProbeSourceFigures* f : answered(r)) {
    each.push_back(f->address + ": " +
                   (f->sustained ? rate_text(f->sustained->mean) : std::string("not measured")));
  }
  if (each.empty()) return no_source_words(r);
  return list_text(each) + "; together " + sum_words(r);
}

std::string variants_answer(const ProbeResult& r) {
  if (r.variants.empty()) {
    return r.settings.variants.empty() ? "not tested (no --variant)"
                                       : "not tested: the probe ended before its variants ran";
  }
  std::vector<std::string> each;
  for (const analyze::ProbeVariantVerdict& v : r.variants) {
    each.push_back(inline_code(v.run.header) + ": " + v.verdict);
  }
  return list_text(each);
}

std::string expect_answer(const ProbeResult& r) {
  const std::vector<const ProbeSourceFigures*> judged = answered(r);
  if (judged.empty()) return no_source_words(r);
  std::vector<std::string> missed;
  for (const ProbeSourceFigures* f : judged) {
    if (f->expect_met != true) missed.push_back(f->address);
  }
  std::string out = fmt::format("{} of {} met {}", judged.size() - missed.size(), judged.size(),
                                inline_code(*r.settings.expect));
  if (!missed.empty()) out += "; not " + list_text(missed);
  if (const auto gone = failed(r); !gone.empty()) {
    out += "; " + list_text(addresses(gone)) + " failed, not judged";
  }
  return out;
}

void short_version(std::string& out, const ProbeResult& r) {
  out += "## The short version\n\n| Question | Answer | Evidence |\n| --- | --- | --- |\n";
  const std::string verdict = r.analysis.verdict.empty()
                                  ? "not judged: the probe ended before its analysis"
                                  : capitalized(r.analysis.verdict) + ": " + r.analysis.reason;
  out += table_row({"Does each address get its own allowance?", table_cell(verdict),
                    "per-second let through of each source over " + counted_words(r)});
  out += table_row({"What burst does each get?", table_cell(burst_answer(r)),
                    "let through before the first 429; the Sources table has the burst from the "
                    "totals"});
  out += table_row({"What does each sustain?", table_cell(sustained_answer(r)),
                    "mean let through per second over " + counted_words(r)});
  out += table_row({"Does a header lift the limit?", table_cell(variants_answer(r)),
                    r.variants.empty() ? "–" : "the Header variants section"});
  if (r.settings.expect) {
    out += table_row({"Did each source meet --expect?", table_cell(expect_answer(r)),
                      "sustained within " + percent_text(r.settings.tolerance, 0) +
                          " of the rate; burst from the totals within that and a second of the "
                          "rate"});
  }
  out += "\n";
}

void sources_section(std::string& out, const ProbeResult& r) {
  out += "## Sources\n\n";
  if (r.analysis.sources.empty()) {
    out += "No source was analysed: the probe ended before its analysis.\n\n";
    return;
  }
  out += fmt::format(
      "Counts are requests over the whole probe; sustained is let through per "
      "second over {}.\n\n",
      counted_words(r));
  out +=
      "| source | let through | 429 | other | total | burst before first 429 | burst from totals "
      "| sustained /s mean (min–max) | expect |\n"
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
  for (const ProbeSourceFigures& f : r.analysis.sources) {
    const std::string dash(kNotMeasured);
    out += table_row(
        {f.failed ? f.address + " (failed)" : f.address,
         count_text(static_cast<double>(f.let_through)), count_text(static_cast<double>(f.limited)),
         count_text(static_cast<double>(f.other)), count_text(static_cast<double>(f.total)),
         f.failed ? dash : burst_cell(f), f.failed ? dash : totals_burst_cell(f),
         f.failed ? dash : sustained_cell(f), expect_cell(f)});
  }
  out += "\n";
  for (const ProbeSourceFigures& f : r.analysis.sources) {
    if (f.failed) {
      out += fmt::format(
          "{} failed: {}. It is named here and left out of the correlations and "
          "the verdict.\n\n",
          f.address, table_cell(f.failure));
    } else if (f.burst_is_lower_bound) {
      const std::string first = count_text(static_cast<double>(*f.burst_before_first_429));
      out += fmt::format(
          "\\* {}'s first 429 came after {} let through, while its totals give {}: "
          "the allowance looks split over several instances, each refusing on its "
          "own share, so {} is a lower bound of its burst.\n\n",
          f.address, first, totals_burst_cell(f), first);
    }
  }
  if (r.settings.expect) {
    for (const ProbeSourceFigures* f : answered(r)) {
      out += fmt::format("- {} {}: {}.\n", f->address, expect_cell(*f), f->expect_reason);
    }
    out += "\n";
  }
}

void between_sources(std::string& out, const ProbeResult& r) {
  out += "## Between sources\n\n";
  if (r.analysis.correlations.empty()) {
    out += "Fewer than two sources answered: no pair to correlate.\n\n";
  } else {
    out += fmt::format(
        "r is the correlation (Pearson) of two sources' let through per second over {}: near −1, "
        "what one gains the other loses (they share: as many allowances as their total is times "
        "the expected rate); near 0, each has its own; "
        "– when a source's count did not vary.\n\n| a | b | r | meaning |\n| --- | --- | ---: | "
        "--- |\n",
        counted_words(r));
    for (const analyze::ProbeCorrelation& c : r.analysis.correlations) {
      out += table_row({c.a, c.b, r_cell(c.r), c.meaning});
    }
    out += "\n";
  }
  if (!answered(r).empty()) {
    out += "The sustained rates of the sources that answered add up to " + sum_words(r) + ".\n\n";
  }
  if (const std::optional<double> rate = expected_rate(r);
      rate && r.analysis.allowances_implied && !r.analysis.shared_by.empty()) {
    // What the sharing sources got, in allowances of --expect's rate: two pods of 100/s behind
    // one address read 2.00 here, where "one allowance" would halve them.
    const long allowances = std::max(1L, std::lround(*r.analysis.allowances_implied));
    out += fmt::format("{} share {} between them: their sustained rates add up to {} × {}.\n\n",
                       list_text(r.analysis.shared_by),
                       allowances == 1 ? std::string("one allowance")
                                       : fmt::format("{} allowances", allowances),
                       fixed(*r.analysis.allowances_implied, 2), given_rate(*rate));
  }
}

void headers_section(std::string& out, const ProbeResult& r) {
  out += "## Rate-limit headers\n\n";
  if (r.rebuilt) {
    out += "Not known: the per-second CSVs this report was rebuilt from do not keep headers.\n\n";
    return;
  }
  bool any = false;
  for (const ProbeSourceFigures& f : r.analysis.sources) any |= !f.headers.empty();
  if (!any) {
    out += "None seen: no source received Retry-After, RateLimit-* or X-RateLimit-* headers.\n\n";
    return;
  }
  out += "| source | header | first | last |\n| --- | --- | --- | --- |\n";
  for (const ProbeSourceFigures& f : r.analysis.sources) {
    for (const analyze::SeenHeader& h : f.headers) {
      out += table_row({f.address, inline_code(h.name), table_cell(h.first), table_cell(h.last)});
    }
  }
  out += "\n";
}

void variants_section(std::string& out, const ProbeResult& r) {
  if (r.variants.empty() && r.settings.variants.empty()) return;
  out += "## Header variants\n\n";
  if (r.variants.empty()) {
    out += "Asked for (" + list_text(r.settings.variants) +
           ") but not run: the probe ended before them.\n\n";
    return;
  }
  out += "Each variant repeated the probe from one source with one header added.\n\n";
  out +=
      "| header | source | duration | let through | 429 | other | verdict |\n"
      "| --- | --- | ---: | ---: | ---: | ---: | --- |\n";
  for (const analyze::ProbeVariantVerdict& v : r.variants) {
    out += table_row({inline_code(v.run.header), v.run.address, seconds_text(v.run.duration_s),
                      count_text(static_cast<double>(v.run.let_through)),
                      count_text(static_cast<double>(v.run.limited)),
                      count_text(static_cast<double>(v.run.other)), v.verdict});
  }
  out += "\n";
  for (const analyze::ProbeVariantVerdict& v : r.variants) {
    out += fmt::format("- With {} from {} for {}: {}: {}.\n", inline_code(v.run.header),
                       v.run.address, seconds_text(v.run.duration_s), v.verdict, v.reason);
  }
  if (r.variants.size() < r.settings.variants.size()) {
    out += fmt::format("- {} of {} variants did not run: the probe ended first.\n",
                       r.settings.variants.size() - r.variants.size(), r.settings.variants.size());
  }
  out += "\n";
}

void findings(std::string& out, const ProbeResult& r) {
  out += "## Findings\n\n";
  if (!r.analysis.verdict.empty()) {
    out += fmt::format(
        "{}: {}. The counts are measured; how the limit is keyed is inferred from "
        "how they move together, not read from the server's configuration.\n\n",
        capitalized(r.analysis.verdict), r.analysis.reason);
  }
  std::vector<std::string> bursts;
  for (const ProbeSourceFigures* f : answered(r)) {
    if (!f->burst_before_first_429 || !f->burst_from_totals) continue;
    bursts.push_back(fmt::format("{} {} ({} from the totals)", f->address, burst_cell(*f),
                                 totals_burst_cell(*f)));
  }
  if (!bursts.empty()) {
    out += "Let through before the first 429: " + list_text(bursts) + ".";
    out += any_lower_bound(r) ? " Those marked * are lower bounds: the first 429 came well before "
                                "the totals' burst was spent, as when instances each keep a "
                                "share of the allowance.\n\n"
                              : "\n\n";
  }
  if (r.settings.expect && !answered(r).empty()) {
    out += capitalized(expect_answer(r)) + ".\n\n";
  }
  for (const analyze::ProbeVariantVerdict& v : r.variants) {
    if (v.limited == false) {
      out += fmt::format("With {}, {}.\n\n", inline_code(v.run.header), v.reason);
    }
  }
  for (const ProbeSourceFigures* f : answered(r)) {
    if (f->other == 0) continue;
    out += fmt::format(
        "{} had {} of {} outcomes that were neither 2xx nor 429 (other statuses, "
        "connection failures, timeouts): counted, but not part of the allowance.\n\n",
        f->address, count_text(static_cast<double>(f->other)),
        count_text(static_cast<double>(f->total)));
  }
  if (const auto gone = failed(r); !gone.empty()) {
    out += fmt::format("{} failed; the verdict is from the {} that answered.\n\n",
                       list_text(addresses(gone)), answered(r).size());
  }
}

void not_shown(std::string& out, const ProbeResult& r) {
  out += "## What this does not show\n\n";
  std::vector<std::string> lines = {
      "Loopback sources are addresses, not machines: a proxy in front that sees one address (or "
      "keys the limit on a forwarded header) is not tested by this."};
  lines.push_back(r.settings.rate_per_source
                      ? fmt::format("Each source was capped at {}: an allowance above that would "
                                    "show no 429 at all.",
                                    rate_text(*r.settings.rate_per_source))
                      : "Flat out measures the allowance, not the service's latency under it: "
                        "that is a ladder's question, at rates under the allowance.");
  for (const ProbeSourceFigures* f : failed(r)) {
    lines.push_back(
        fmt::format("{} failed ({}): it is named, not averaged in; nothing here says "
                    "what allowance it would have had.",
                    f->address, f->failure));
  }
  std::vector<std::string> bounded;
  for (const ProbeSourceFigures* f : answered(r)) {
    if (f->burst_is_lower_bound) bounded.push_back(f->address);
  }
  if (!bounded.empty()) {
    lines.push_back("With instances suspected (" + list_text(bounded) +
                    "), the burst before the first 429 is a lower bound: each instance's share "
                    "is not measured apart.");
  }
  if (r.analysis.verdict == analyze::kUnclear && r.analysis.reason.starts_with("no 429")) {
    lines.push_back(
        "No 429 came: nothing here says where the limit is, only that it is above "
        "what was sent.");
  }
  if (r.rebuilt) {
    lines.push_back(
        "This report was rebuilt from the per-second CSVs: it has no rate-limit "
        "headers, and the second in progress at the end is missing.");
  }
  for (const std::string& line : lines) out += "- " + line + "\n";
  out += "\n";
}

}  // namespace

std::string render_probe_summary(const ProbeResult& r) {
  std::string out;
  title_and_scope(out, r);
  out += segments_paragraph(r.segment, r.merged);
  short_version(out, r);
  sources_section(out, r);
  between_sources(out, r);
  headers_section(out, r);
  variants_section(out, r);
  findings(out, r);
  not_shown(out, r);
  out += "## Reproduce\n\n";
  out += command_block(r.command_line);
  out += "Re-render this report from the recorded data: `proofload report DIR`.\n";
  return out;
}

}  // namespace proofload::report
