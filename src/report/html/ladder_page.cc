// A ladder's (or a rate search's, or an analysis's) report.html (see pages.h): throughput
// against level, latency against throughput (the curve a capacity review asks for), each level
// coloured by its verdict, the knee and best sustained marked, the noise floor as a band; the
// search's steps; a streaming ladder's first token and inter-token latency by level.
#include <fmt/format.h>

#include <algorithm>

#include "analyze/ladder_analysis.h"
#include "report/html/page.h"
#include "report/html/pages.h"
#include "result/ladder_result.h"

namespace proofload::report::html {
namespace {

using analyze::LadderAnalysis;
using analyze::LevelAnalysis;

std::vector<Chart::Key> verdict_keys(const LadderAnalysis& a) {
  std::vector<Chart::Key> keys;
  for (const LevelAnalysis& l : a.levels) {
    const std::string text(analyze::verdict_text(l.verdict));
    if (std::none_of(keys.begin(), keys.end(), [&](const auto& k) { return k.label == text; })) {
      keys.push_back({text, verdict_color(text)});
    }
  }
  return keys;
}

std::vector<std::string> verdict_colors(const std::vector<const LevelAnalysis*>& levels) {
  std::vector<std::string> colors;
  for (const LevelAnalysis* l : levels) {
    colors.push_back(verdict_color(std::string(analyze::verdict_text(l->verdict))));
  }
  return colors;
}

Chart throughput_by_level(const LadderAnalysis& a, bool open_loop) {
  Chart chart;
  chart.id = "ladder-throughput";
  chart.title = "Throughput against level";
  chart.x_label = open_loop ? "level (target rate, /s)" : "level (connections)";
  chart.y_label = "per s";
  std::vector<const LevelAnalysis*> levels;
  std::vector<std::optional<double>> goodput, achieved;
  for (const LevelAnalysis& l : a.levels) {
    levels.push_back(&l);
    chart.x.push_back(l.level);
    goodput.push_back(l.goodput_rps);
    achieved.push_back(l.achieved_rps);
  }
  chart.series.push_back(
      series_of("goodput (coloured by verdict)", goodput, verdict_colors(levels)));
  chart.series.push_back(series_of("achieved (any status)", achieved));
  if (a.knee) chart.marks.push_back({a.levels[*a.knee].level, "knee"});
  if (a.best_sustained && a.best_sustained != a.knee) {
    chart.marks.push_back({a.levels[*a.best_sustained].level, "best sustained"});
  }
  if (a.best_sustained) {
    const double best = a.levels[*a.best_sustained].goodput_rps;
    chart.y_bands.push_back(
        {best * (1 - a.noise_floor.value), best * (1 + a.noise_floor.value),
         fmt::format("noise floor ±{:.1f}% around best sustained", a.noise_floor.value * 100)});
  }
  chart.keys = verdict_keys(a);
  chart.note =
      "Goodput is what the verdicts judge; a level whose gain stays inside the noise "
      "floor band gained nothing that a repeat could not undo.";
  return chart;
}

Chart latency_by_throughput(const LadderAnalysis& a) {
  std::vector<const LevelAnalysis*> levels;
  for (const LevelAnalysis& l : a.levels) levels.push_back(&l);
  std::stable_sort(levels.begin(), levels.end(),
                   [](const auto* x, const auto* y) { return x->goodput_rps < y->goodput_rps; });
  Chart chart;
  chart.id = "ladder-latency-throughput";
  chart.title = "Latency against throughput";
  chart.x_label = "goodput, per s";
  chart.y_label = "ms";
  chart.y_log = true;
  std::vector<std::optional<double>> p50, p95, p99;
  for (const LevelAnalysis* l : levels) {
    chart.x.push_back(l->goodput_rps);
    p50.push_back(l->p50_ms);
    p95.push_back(l->p95_ms);
    p99.push_back(l->p99_ms);
  }
  chart.series.push_back(series_of("p50", p50));
  chart.series.push_back(series_of("p95 (coloured by verdict)", p95, verdict_colors(levels)));
  chart.series.push_back(series_of("p99", p99));
  if (a.knee) {
    chart.marks.push_back(
        {a.levels[*a.knee].goodput_rps, fmt::format("knee (level {})", a.levels[*a.knee].level)});
  }
  chart.keys = verdict_keys(a);
  chart.note =
      "Each level is a point, by the goodput it carried: where the curve turns up, "
      "queueing has begun.";
  return chart;
}

Chart search_steps(const result::SearchRecord& search) {
  Chart chart;
  chart.id = "ladder-search";
  chart.title = "Search steps: the rate tried at each step";
  chart.x_label = "step";
  chart.y_label = "rate, per s";
  chart.points_only = true;
  std::vector<std::optional<double>> rates;
  std::vector<std::string> colors;
  for (size_t i = 0; i < search.steps.size(); ++i) {
    chart.x.push_back(static_cast<double>(i + 1));
    rates.push_back(search.steps[i].rate_rps);
    colors.push_back(search.steps[i].passed ? verdict_color("clean") : verdict_color("saturated"));
  }
  chart.series.push_back(series_of("rate (green: held the SLO; red: did not)", rates, colors));
  chart.keys = {{"held the SLO", verdict_color("clean")}, {"broke it", verdict_color("saturated")}};
  return chart;
}

// A streaming ladder's rows (each repeat a point), by level.
std::optional<Chart> streams_by_level(const result::LadderResult& ladder) {
  std::vector<const analyze::LevelRow*> rows;
  for (const auto& row : ladder.rows) {
    if (row.figures.streams) rows.push_back(&row.figures);
  }
  if (rows.empty()) return std::nullopt;
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto* x, const auto* y) { return x->level < y->level; });
  Chart chart;
  chart.id = "ladder-streams";
  chart.title = "Streams by level: first token p95 and inter-token p99";
  chart.x_label = "level";
  chart.y_label = "ms";
  chart.y_log = true;
  std::vector<std::optional<double>> ttfb, ttft, itl;
  for (const auto* r : rows) {
    chart.x.push_back(r->level);
    ttfb.push_back(r->streams->ttfb_p95_ms);
    ttft.push_back(r->streams->ttft_p95_ms);
    itl.push_back(r->streams->itl_p99_ms);
  }
  chart.series.push_back(series_of("first byte p95", ttfb));
  chart.series.push_back(series_of("first token p95", ttft));
  chart.series.push_back(series_of("inter-token p99", itl));
  chart.note = "Queueing shows first as a rising first token while the inter-token gap holds.";
  return chart;
}

}  // namespace

std::string render_ladder_html(const result::LadderResult& ladder, const std::string& summary_md) {
  Page page;
  page.kind = ladder.kind.empty() ? "ladder" : ladder.kind;
  page.summary_md = summary_md;
  if (ladder.analysis && !ladder.analysis->levels.empty()) {
    const LadderAnalysis& a = *ladder.analysis;
    const bool open_loop = a.loop == analyze::Loop::kOpen;
    page.sections.push_back(
        {.title = "Levels",
         .note = "Noise floor: " + a.noise_floor.text + ".",
         .charts = {throughput_by_level(a, open_loop), latency_by_throughput(a)},
         .script_box = ""});
  }
  if (ladder.search && !ladder.search->steps.empty()) {
    page.sections.push_back({.title = "Search steps",
                             .note = "",
                             .charts = {search_steps(*ladder.search)},
                             .script_box = ""});
  }
  if (auto chart = streams_by_level(ladder)) {
    page.sections.push_back(
        {.title = "Streams", .note = "", .charts = {std::move(*chart)}, .script_box = ""});
  }
  return render_page(page);
}

}  // namespace proofload::report::html
