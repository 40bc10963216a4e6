// See soak_report.h.
#include "report/soak_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/markdown_text.h"
#include "report/segment_section.h"
#include "words/numbers.h"

namespace proofload::report {
namespace {

using namespace markdown;  // tables and code (markdown_text.h)
using namespace words;     // numbers (words/numbers.h)
using analyze::SoakWindowRow;

std::string ms(const std::optional<double>& value) {
  return value ? fixed(*value, ms_decimals(*value)) + " ms" : std::string(kNotMeasured);
}

std::string ms_cell(const std::optional<double>& value) {
  return value ? fixed(*value, ms_decimals(*value)) : std::string(kNotMeasured);
}

// "+1 h 02 min 05 s" style offsets from the hold's start, short for short soaks.
std::string offset_text(double s) {
  const char* sign = s < 0 ? "−" : "+";
  double a = std::abs(s);
  if (a < 120) return fmt::format("{}{:g} s", sign, std::round(a * 10) / 10);
  const auto total = static_cast<int64_t>(std::round(a));
  if (total < 3600) return fmt::format("{}{} min {:02} s", sign, total / 60, total % 60);
  return fmt::format("{}{} h {:02} min", sign, total / 3600, total % 3600 / 60);
}

std::string reasons_text(const SoakWindowRow& w) {
  std::string out;
  for (const std::string& r : w.reasons) out += (out.empty() ? "" : "; ") + r;
  return out;
}

std::string window_row(const SoakWindowRow& w, bool show_gaps, bool show_streams) {
  std::vector<std::string> cells = {
      std::to_string(w.index),
      offset_text(w.start_s),
      count_text(w.requests),
      w.requests > 0 ? percent_text(static_cast<double>(w.errors) / w.requests)
                     : std::string(kNotMeasured),
      count_text(w.status_429),
      ms_cell(w.p50_ms),
      ms_cell(w.p95_ms),
      ms_cell(w.p99_ms),
      ms_cell(w.slowest_ms),
      rate_number(w.throughput_rps),
      w.canaries_right + w.canaries_wrong > 0
          ? fmt::format("{} of {}", w.canaries_right, w.canaries_right + w.canaries_wrong)
          : std::string(kNotMeasured),
      w.bar_met ? "met" : table_cell("missed: " + reasons_text(w))};
  if (show_gaps) cells.insert(cells.end() - 1, count_text(w.observer_gaps));
  if (show_streams) {
    cells.insert(cells.end() - 1,
                 {ms_cell(w.ttft_p95_ms), ms_cell(w.itl_p99_ms),
                  w.tokens_per_s ? rate_number(*w.tokens_per_s) : std::string(kNotMeasured),
                  w.stream_goodput ? percent_text(*w.stream_goodput)
                                   : std::string(kNotMeasured)});
  }
  return table_row(cells);
}

bool any_streams(const result::SoakResult& r) {
  return std::any_of(r.windows.begin(), r.windows.end(),
                     [](const SoakWindowRow& w) { return w.ttft_p95_ms || w.tokens_per_s; });
}

bool any_observer_gaps(const result::SoakResult& r) {
  return std::any_of(r.windows.begin(), r.windows.end(),
                     [](const SoakWindowRow& w) { return w.observer_gaps > 0; });
}

// The windows worth showing: all of a short soak; else those that missed the bar, those around
// marks, and the first and last.
std::vector<const SoakWindowRow*> shown_windows(const result::SoakResult& r, bool& folded) {
  std::vector<const SoakWindowRow*> out;
  folded = r.windows.size() > kSoakWindowsShownInFull;
  for (size_t i = 0; i < r.windows.size(); ++i) {
    const SoakWindowRow& w = r.windows[i];
    bool show = !folded || i == 0 || i + 1 == r.windows.size() || !w.bar_met || w.observer_gaps > 0;
    for (const analyze::MarkVerdict& m : r.marks) {
      show |= w.start_s + w.duration_s > m.mark.at_s - r.settings.mark_window_s &&
              w.start_s < m.mark.at_s + r.settings.mark_window_s;
    }
    if (show) out.push_back(&w);
  }
  return out;
}

void title_and_scope(std::string& out, const result::SoakResult& r) {
  const result::SoakSettings& s = r.settings;
  out += fmt::format("# Soak: {}\n\n", r.source.target.empty() ? "target not recorded"
                                                               : inline_code(r.source.target));
  const std::string load =
      s.loop == "closed"
          ? fmt::format("{} connections (closed loop)", count_text(s.connections.value_or(0)))
          : fmt::format("{} (open loop)", rate_text(s.rate_rps.value_or(0)));
  out += fmt::format("{} held for {} in windows of {}{}; each window judged against the bar {}.",
                     capitalized(load), duration_text(s.hold_s), duration_text(s.window_s),
                     s.ramp_s > 0 ? fmt::format(", after a ramp of {} in {} steps (not judged "
                                                "for drift)",
                                                duration_text(s.ramp_s), s.ramp_steps)
                                  : "",
                     inline_code(s.bar));
  if (!r.source.scenario_file.empty())
    out += fmt::format(" Scenario {}.", inline_code(r.source.scenario_file));
  out +=
      fmt::format("\nStarted {}, ended {} ({}: {}). proofload {}.\n\n",
                  r.started_at.empty() ? "not recorded" : r.started_at,
                  r.finished_at.empty() ? "not recorded" : r.finished_at, r.status,
                  r.end_reason.empty() ? "no reason recorded" : r.end_reason, r.proofload_version);
  if (r.rebuilt) {
    out +=
        "This report was rebuilt from the files the soak streamed (windows.csv, canaries.csv, "
        "marks.log): the soak ended without writing its result, so the window in progress "
        "when it ended is missing.\n\n";
  }
}

// What the retries came to: "none needed a retry", "1 was right only on its retry, 2 were wrong
// again on their retry" (a retry is asked once, after a wrong answer).
std::string retries_text(const result::CanaryTotals& c) {
  if (c.retried == 0) return "none needed a retry";
  const auto part = [](int64_t n, std::string_view what) {
    return fmt::format("{} {} {} on {} retry", count_text(n), n == 1 ? "was" : "were", what,
                       n == 1 ? "its" : "their");
  };
  if (!c.retried_right) {
    return fmt::format("{} needed {} retry", count_text(c.retried), c.retried == 1 ? "its" : "their");
  }
  std::vector<std::string> parts;
  if (*c.retried_right > 0) parts.push_back(part(*c.retried_right, "right only"));
  if (c.retried > *c.retried_right) parts.push_back(part(c.retried - *c.retried_right, "wrong again"));
  return parts.size() == 1 ? parts[0] : parts[0] + ", " + parts[1];
}

void short_version(std::string& out, const result::SoakResult& r) {
  const result::SoakSummary& s = r.summary;
  out += "## The short version\n\n| Question | Answer | Evidence |\n| --- | --- | --- |\n";
  const auto share = [&](int64_t n) {
    return s.requests > 0 ? percent_text(static_cast<double>(n) / s.requests)
                          : std::string(kNotMeasured);
  };
  out += table_row({"Did it stay up?",
                    fmt::format("{} requests, {} errors ({}), {} of them 429 ({})",
                                count_text(s.requests), count_text(s.errors), share(s.errors),
                                count_text(s.status_429), share(s.status_429)),
                    fmt::format("{} windows of the hold", count_text(r.windows.size()))});
  out += table_row({"Did every window meet the bar?",
                    fmt::format("{} of {} windows missed the bar {}", count_text(r.windows_missed),
                                count_text(r.windows.size()), inline_code(r.settings.bar)),
                    "the windows table"});
  out += table_row({"Were the answers right?",
                    r.canaries.total > 0
                        ? fmt::format("{} of {} canaries right; {}", count_text(r.canaries.right),
                                      count_text(r.canaries.total), retries_text(r.canaries))
                        : "not measured: no canaries ran",
                    r.canaries.total > 0 ? "canaries.csv" : "a scenario file's `canaries:`"});
  out +=
      table_row({"How fast, window by window?",
                 fmt::format("p95 median {} (range {} to {}); p50 median {}", ms(s.p95_median_ms),
                             ms(s.p95_min_ms), ms(s.p95_max_ms), ms(s.p50_median_ms)),
                 "window p95s"});
  out += table_row({"Did it drift?", capitalized(r.drift.verdict) + ": " + r.drift.reason,
                    "first quarter against last quarter of the hold"});
  out += table_row({"The slowest request",
                    r.slowest.ms
                        ? fmt::format("{} at {}", ms(r.slowest.ms), offset_text(r.slowest.at_s))
                        : std::string("not measured"),
                    "windows.csv"});
  out +=
      table_row({"Throughput held",
                 s.throughput_median_rps ? fmt::format("median {}, lowest window {}",
                                                       rate_text(*s.throughput_median_rps),
                                                       rate_text(s.throughput_min_rps.value_or(0)))
                                         : std::string("not measured"),
                 "responses per second of each window"});
  const auto passed = std::count_if(r.marks.begin(), r.marks.end(),
                                    [](const auto& m) { return m.verdict == "PASS"; });
  out +=
      table_row({"Marks",
                 r.marks.empty() ? "none" : fmt::format("{} of {} passed", passed, r.marks.size()),
                 "the marks section"}) +
      "\n";
}

void windows_table(std::string& out, const result::SoakResult& r) {
  out += "## Windows\n\n";
  if (r.windows.empty()) {
    out += "No window of the hold finished.\n\n";
    return;
  }
  bool folded = false;
  const std::vector<const SoakWindowRow*> shown = shown_windows(r, folded);
  if (folded) {
    out += fmt::format(
        "{} of {} windows: those that missed the bar, those around marks, those "
        "with observers' gaps, the first and the last. windows.csv has every "
        "window.\n\n",
        shown.size(), r.windows.size());
  }
  // Observers' gaps get a column when there were any: the server side is missing there.
  const bool gaps = any_observer_gaps(r);
  // A soak of streams: its streams' first token, inter-token gaps, tokens and goodput.
  const bool streams = any_streams(r);
  out += fmt::format(
      "| window | from | requests | errors | 429 | p50 ms | p95 ms | p99 ms | slowest ms | "
      "rate/s | canaries right |{}{} bar |\n"
      "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |{}{} --- |\n",
      gaps ? " observer gaps |" : "",
      streams ? " first token p95 ms | inter-token p99 ms | tokens/s | stream goodput |" : "",
      gaps ? " ---: |" : "", streams ? " ---: | ---: | ---: | ---: |" : "");
  for (const SoakWindowRow* w : shown) out += window_row(*w, gaps, streams);
  out += "\n";
}

// The shortest of the blocks drift was judged on; infinity when there are none.
double shortest_block_s(const analyze::Drift& d) {
  double shortest = HUGE_VAL;
  for (const analyze::DriftBlock& b : d.blocks) shortest = std::min(shortest, b.end_s - b.start_s);
  return shortest;
}

void drift_section(std::string& out, const result::SoakResult& r) {
  const analyze::Drift& d = r.drift;
  out += "## Drift\n\n";
  out += fmt::format(
      "{}: {}. Median p95 of the first quarter of the hold {}, of the last "
      "quarter {}. Noise: {}.\n\n",
      capitalized(d.verdict), d.reason, ms(d.first_quarter_p95_ms), ms(d.last_quarter_p95_ms),
      d.noise_text.empty() ? "not measured" : d.noise_text);
  if (d.blocks.size() > 1) {
    out +=
        "| block | median p95 ms | change from the first | outside the noise |\n"
        "| --- | ---: | ---: | --- |\n";
    for (const analyze::DriftBlock& b : d.blocks) {
      out += table_row(
          {offset_text(b.start_s) + " to " + offset_text(b.end_s), ms_cell(b.median_p95_ms),
           b.change_ms ? fmt::format("{:+.1f} ms", *b.change_ms) : std::string(kNotMeasured),
           b.outside_noise ? "yes" : "no"});
    }
    out += "\n";
  }
}

void marks_section(std::string& out, const result::SoakResult& r) {
  out += "## Marks\n\n";
  if (r.marks.empty()) {
    out += "No marks: none was scheduled (`--mark-at`) or sent (`proofload mark DIR label`).\n\n";
    return;
  }
  out += fmt::format("Each mark is judged from the windows {} either side of it.\n\n",
                     duration_text(r.settings.mark_window_s));
  out +=
      "| mark | at | source | baseline p95 ms | worst p95 ms | errors | 429 | canaries wrong "
      "| rate/s | verdict |\n| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- "
      "|\n";
  for (const analyze::MarkVerdict& m : r.marks) {
    out +=
        table_row({table_cell(m.mark.label), offset_text(m.mark.at_s),
                   m.mark.source + (m.mark.command ? " (hook: " + m.mark.hook_outcome + ")" : ""),
                   ms_cell(m.baseline_p95_ms), ms_cell(m.worst_p95_ms), count_text(m.errors),
                   count_text(m.status_429), count_text(m.canaries_wrong),
                   rate_number(m.throughput_rps), m.verdict});
  }
  out += "\n";
  for (const analyze::MarkVerdict& m : r.marks) {
    out += fmt::format("- {} {}: {}.\n", m.verdict, table_cell(m.mark.label), m.reason);
  }
  out += "\n";
}

void server_section(std::string& out, const result::SoakResult& soak,
                    const std::optional<result::RunRecord>& run,
                    std::vector<std::string>& not_shown) {
  out += "## The server side\n\n";
  if (!run || !run->observed_recorded) {
    out += "Not recorded: the run's own result (run/result.json) was not finished.\n\n";
    not_shown.push_back(
        "The observers' figures were not recorded: the run did not finish its "
        "result; run/windows.csv holds what they saw second by second.");
    return;
  }
  bool any = false;
  for (const result::SourceRecord& source : run->sources) {
    if (source.is_generator()) continue;
    any = true;
    out +=
        fmt::format("- {} ({}): {} samples, {} gaps{}",
                    inline_code(source.source.empty() ? source.label : source.source), source.label,
                    count_text(source.samples.value_or(0)), count_text(source.gaps.value_or(0)),
                    source.error.empty() ? "" : "; last failure: " + source.error);
    std::string figures;
    for (const auto& [name, value] : source.figures) {
      figures += fmt::format("{}{} {}", figures.empty() ? "" : ", ", name, fixed(value, 2));
    }
    out += figures.empty() ? ".\n" : ". " + figures + ".\n";
    if (source.gaps.value_or(0) > 0) {
      not_shown.push_back(
          fmt::format("{} had {} gaps in {} samples: the server side is "
                      "missing there.",
                      source.source.empty() ? source.label : source.source,
                      count_text(*source.gaps), count_text(source.samples.value_or(0))));
    }
  }
  if (!soak.server.empty()) {
    out += "\n| source | memory | first | last | peak |\n| --- | --- | ---: | ---: | ---: |\n";
    const auto mib = [](double bytes) { return fixed(bytes / (1024.0 * 1024.0), 1) + " MiB"; };
    for (const result::ServerMemory& m : soak.server) {
      out += table_row({inline_code(m.source), inline_code(m.figure), mib(m.first_bytes),
                        mib(m.last_bytes), mib(m.peak_bytes)});
    }
  }
  if (any) {
    out +=
        "\nEvery observer's figures are stamped with the generator's clock when sampled (none of "
        "these sources gives timestamps of its own), so they line up with the windows without "
        "an offset.\n";
  }
  if (!any) {
    out +=
        "No server observer was attached (`--observe pid:N`, `cgroup:PATH`, `prom:URL`, "
        "`k8s:NAMESPACE/SELECTOR`).\n";
    not_shown.push_back(
        "No server observer was attached: nothing here says how the server's "
        "memory, restarts or CPU moved over the soak.");
  }
  out += "\n";
}

}  // namespace

std::string render_soak_summary(const result::SoakResult& r,
                                const std::optional<result::RunRecord>& run) {
  std::string out;
  title_and_scope(out, r);
  out += segments_paragraph(r.segment, r.merged);
  short_version(out, r);
  windows_table(out, r);
  drift_section(out, r);
  marks_section(out, r);
  std::vector<std::string> not_shown;
  server_section(out, r, run, not_shown);

  out += "## What this does not show\n\n";
  if (r.settings.loop != "closed") {
    not_shown.insert(not_shown.begin(),
                     "A capped rate shows stability at that rate, not capacity: where it "
                     "buckles is a ladder's question.");
  } else {
    not_shown.insert(not_shown.begin(),
                     "Closed loop: the load waits for the server, so a slow stretch lowers the "
                     "rate instead of queueing requests.");
  }
  if (r.canaries.total > 0) {
    std::vector<std::string> names;
    for (const auto& n : r.canaries.by_name) names.push_back(inline_code(n.name));
    not_shown.push_back("Canaries cover only their routes (" + list_text(names) +
                        "); the load's own answers are judged by its checks, if any.");
  } else {
    not_shown.push_back("No canaries ran: no answer was checked against a known one.");
  }
  int64_t gap_windows = 0, gap_samples = 0;
  const SoakWindowRow* first_gap = nullptr;
  for (const SoakWindowRow& w : r.windows) {
    if (w.observer_gaps == 0) continue;
    ++gap_windows;
    gap_samples += w.observer_gaps;
    if (first_gap == nullptr) first_gap = &w;
  }
  if (first_gap != nullptr) {
    not_shown.push_back(fmt::format(
        "The observers had gaps in {} of {} windows ({} failed samples), the first at {}: {}. "
        "The server side is missing there.",
        count_text(gap_windows), count_text(r.windows.size()), count_text(gap_samples),
        offset_text(first_gap->start_s), first_gap->observer_gap));
  }
  if (r.drift.verdict == "not judged") {
    not_shown.push_back("Drift was not judged: " + r.drift.reason + ".");
  } else if (const double block_s = shortest_block_s(r.drift);
             block_s < analyze::kShortDriftBlockS) {
    not_shown.push_back(fmt::format(
        "Drift was judged on blocks of {}: a host's own slow changes (its scheduling, other work "
        "on it) move p95 by milliseconds for seconds at a time, and blocks this short cannot tell "
        "them from the server's drift. Blocks of a minute can (a hold of 4 minutes, or "
        "`--drift-blocks 1m`).",
        duration_text(block_s)));
  }
  for (const std::string& line : not_shown) out += "- " + line + "\n";
  out += "\n## Reproduce\n\n";
  out += command_block(r.command_line);
  out += "Re-render this report from the recorded data: `proofload report DIR`.\n";
  return out;
}

}  // namespace proofload::report
