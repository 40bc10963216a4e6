// A run's report.html (see pages.h): its charts over time, drawn by report.js from the windows
// (the same function the live dashboard draws with), and the latency distribution.
#include "report/html/page.h"
#include "report/run_report.h"

namespace proofload::report::html {
namespace {

using nlohmann::json;

// The latency at each percentile, x as 1/(1-p) on a log scale (HdrHistogram's plots): the tail
// gets as much room as the body.
std::optional<Chart> spectrum_chart(const json& summary) {
  const json* spectrum =
      summary.contains("latency_spectrum") ? &summary["latency_spectrum"] : nullptr;
  if (spectrum == nullptr || !spectrum->is_object()) return std::nullopt;
  const json& percentiles = (*spectrum)["percentiles"];
  const json& ms = (*spectrum)["ms"];
  if (!percentiles.is_array() || !ms.is_array() || percentiles.size() < 2) return std::nullopt;
  Chart chart;
  chart.id = "run-spectrum";
  chart.title = "Latency by percentile (measured requests)";
  chart.note =
      "The latency at or below which each share of the measured requests answered; "
      "x is log-scaled as HdrHistogram plots are, so each step to the right halves what "
      "remains. The last point is the maximum.";
  chart.x_label = "percentile";
  chart.x_kind = "percentile";
  chart.x_log = true;
  chart.y_label = "ms";
  Chart::Series series{
      .label = "latency", .values = {}, .color = "", .point_colors = {}, .points_only = false};
  // The maximum (100%) has no finite place on 1/(1-p): it is drawn one halving past the last.
  double last_x = 1;
  for (size_t i = 0; i < percentiles.size() && i < ms.size(); ++i) {
    const double p = percentiles[i].get<double>();
    const double x = p < 100 ? 1 / (1 - p / 100) : last_x * 2;
    chart.x.push_back(x);
    last_x = x;
    series.values.push_back(ms[i].is_number() ? std::optional(ms[i].get<double>()) : std::nullopt);
  }
  chart.series.push_back(std::move(series));
  return chart;
}

// How the points over time read: a window each, or (a long run's) a group of windows each.
std::string over_time_note(const RunForReport& run) {
  const std::string window_s = json(run.result.value("window_s", 1.0)).dump();
  if (run.windows_per_point <= 1) {
    return "One point per window of " + window_s +
           " s, at its start; the warm-up and the drain are shaded. Rates are per second of each "
           "window.";
  }
  return "This run has " + std::to_string(run.windows) + " windows of " + window_s +
         " s, more than a page draws: each point is a group of up to " +
         std::to_string(run.windows_per_point) +
         " consecutive windows, at its first window's start. In a group, counts are added, rates "
         "and observed figures are averaged over its time, and latency and stream percentiles "
         "are its windows' highest. The warm-up and the drain are shaded. windows.csv and "
         "result.json hold every window.";
}

}  // namespace

std::string render_run_html(const RunForReport& run, const std::string& summary_md) {
  const json& result = run.result;
  Page page;
  page.kind = "run";
  page.summary_md = summary_md;
  page.run_windows = json::array();
  if (result.contains("windows") && result["windows"].is_array()) {
    page.run_windows = result["windows"];
  }
  page.sections.push_back({.title = "Over time",
                           .note = over_time_note(run),
                           .charts = {},
                           .script_box = "run-windows"});
  if (result.contains("summary") && result["summary"].is_object()) {
    if (auto chart = spectrum_chart(result["summary"])) {
      page.sections.push_back({.title = "Latency distribution",
                               .note = "",
                               .charts = {std::move(*chart)},
                               .script_box = ""});
    }
  }
  return render_page(page);
}

}  // namespace proofload::report::html
