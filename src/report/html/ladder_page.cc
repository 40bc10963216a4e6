// A ladder's (or a rate search's, or an analysis's) report.html (see pages.h): throughput
// against level, latency against throughput (the curve a capacity review asks for), each level
// coloured by its verdict, the knee and best sustained marked, the noise floor as a band; the
// search's steps; each named request's goodput; a streaming ladder's first token and inter-token
// latency by level.
#include <fmt/format.h>

#include <algorithm>

#include "analyze/ladder_analysis.h"
#include "report/html/page.h"
#include "report/ladder_report.h"
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

// Levels that grow geometrically (50, 100, 200, ... 8,000) crowd their first steps on a linear
// axis: at least three, all above 0, the last ten times the first or more and every step a
// factor of 1.5 or more.
bool geometric(const LadderAnalysis& a) {
  if (a.levels.size() < 3 || a.levels.front().level <= 0) return false;
  for (size_t i = 1; i < a.levels.size(); ++i) {
    if (a.levels[i].level < 1.5 * a.levels[i - 1].level) return false;
  }
  return a.levels.back().level >= 10 * a.levels.front().level;
}

Chart throughput_by_level(const LadderAnalysis& a, bool open_loop) {
  Chart chart;
  chart.id = "ladder-throughput";
  chart.title = "Throughput against level";
  chart.x_label = open_loop ? "level (target rate, /s)" : "level (connections)";
  chart.x_log = geometric(a);
  if (chart.x_log) chart.x_label += ", log scale";
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

// The SLO's latency terms (a request's p99, the first token's p95) at each level, as the SLO
// judged them (the worst repeat): what the verdicts were decided on, beside the mix's
// percentiles. None when the SLO names no latency.
std::optional<Chart> slo_terms_by_level(const LadderAnalysis& a) {
  using Kind = measure::MetricRef::Kind;
  Chart chart;
  chart.id = "ladder-slo-terms";
  chart.title = "The SLO's latency terms by level";
  chart.x_label = "level";
  chart.x_log = geometric(a);
  chart.y_label = "ms";
  chart.y_log = true;
  chart.points_only = true;
  for (const LevelAnalysis& l : a.levels) chart.x.push_back(l.level);
  for (size_t k = 0; k < a.slo.bounds.size(); ++k) {
    const measure::Threshold& bound = a.slo.bounds[k];
    const Kind kind = bound.metric.kind;
    if (kind != Kind::kPercentile && kind != Kind::kMean && kind != Kind::kMax &&
        kind != Kind::kStreamPercentile) {
      continue;
    }
    std::vector<std::optional<double>> values;
    for (const LevelAnalysis& l : a.levels) {
      values.push_back(k < l.slo.size() ? l.slo[k].observed : std::nullopt);
    }
    chart.series.push_back(series_of(bound.expression, values));
  }
  if (chart.series.empty()) return std::nullopt;
  chart.note = "Each term is labelled with its bound; a level above a bound broke the SLO.";
  return chart;
}

// Each named request's goodput by level, when a scenario names two or more: a request flat at a
// limit shows apart from the mix's total that still grows.
std::optional<Chart> routes_by_level(const LadderAnalysis& a) {
  if (a.routes.size() < 2) return std::nullopt;
  Chart chart;
  chart.id = "ladder-routes";
  chart.title = "Goodput of each request by level";
  chart.x_label = "level";
  chart.x_log = geometric(a);
  chart.y_label = "per s";
  for (const LevelAnalysis& l : a.levels) chart.x.push_back(l.level);
  for (const analyze::RouteAnalysis& route : a.routes) {
    std::vector<std::optional<double>> goodput;
    for (const LevelAnalysis& l : a.levels) {
      const auto at =
          std::find_if(route.levels.begin(), route.levels.end(),
                       [&](const analyze::RouteLevel& r) { return r.level == l.level; });
      goodput.push_back(at == route.levels.end() ? std::nullopt : at->goodput_rps);
    }
    chart.series.push_back(series_of(route.name, goodput));
  }
  chart.note =
      "The mean over a level's runs; a request flat here while the mix grows is held "
      "back on its own (a limit, a lock, a pool).";
  return chart;
}

// A streaming or reconciled ladder's accounting by level: the share of streams within
// `--goodput`, and the share of successes the server's counter did not see (drops).
std::optional<Chart> accounting_by_level(const result::LadderResult& ladder) {
  Chart chart;
  chart.id = "ladder-accounting";
  chart.title = "Stream goodput and reconciled drops by level";
  chart.x_label = "level";
  chart.y_label = "share";
  chart.y_kind = "share";
  chart.points_only = true;
  std::vector<std::optional<double>> goodput, drops;
  bool any = false;
  std::vector<const analyze::LevelRow*> rows;
  for (const auto& row : ladder.rows) rows.push_back(&row.figures);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto* x, const auto* y) { return x->level < y->level; });
  for (const analyze::LevelRow* r : rows) {
    chart.x.push_back(r->level);
    goodput.push_back(r->streams ? r->streams->goodput_share : std::nullopt);
    drops.push_back(r->reconcile.empty() ? std::nullopt : r->drop_share);
    any = any || goodput.back() || drops.back();
  }
  if (!any) return std::nullopt;
  chart.series.push_back(series_of("stream goodput (within --goodput)", goodput));
  chart.series.push_back(series_of("drops (--reconcile)", drops));
  chart.note = "Each repeat is a point. Drops are successes the server's own count lacks.";
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
    std::vector<Chart> charts = {throughput_by_level(a, open_loop), latency_by_throughput(a)};
    if (auto terms = slo_terms_by_level(a)) charts.push_back(std::move(*terms));
    if (auto routes = routes_by_level(a)) charts.push_back(std::move(*routes));
    page.sections.push_back({.title = "Levels",
                             .note = "Noise floor: " + a.noise_floor.text + ".",
                             .charts = std::move(charts),
                             .script_box = ""});
  }
  if (ladder.search && !ladder.search->steps.empty()) {
    page.sections.push_back({.title = "Search steps",
                             .note = "",
                             .charts = {search_steps(*ladder.search)},
                             .script_box = ""});
  }
  std::vector<Chart> streams;
  if (auto chart = streams_by_level(ladder)) streams.push_back(std::move(*chart));
  if (auto chart = accounting_by_level(ladder)) streams.push_back(std::move(*chart));
  if (!streams.empty()) {
    page.sections.push_back({.title = "Streams and accounting",
                             .note = "",
                             .charts = std::move(streams),
                             .script_box = ""});
  }
  return render_page(page);
}

}  // namespace proofload::report::html
