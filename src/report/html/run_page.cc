// A run's report.html (see pages.h): its charts over time, drawn by report.js from the windows
// (the same function the live dashboard draws with), and the latency distribution.
#include "report/html/page.h"
#include "report/html/pages.h"

namespace proofload::report::html {
namespace {

using nlohmann::json;

// The fields of a window report.js reads: the page carries no more of a long run than it draws.
json window_fields(const json& window) {
  json out = json::object();
  for (const char* key : kWindowFields) {
    if (window.contains(key)) out[key] = window[key];
  }
  return out;
}

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

}  // namespace

std::string render_run_html(const json& result, const std::string& summary_md) {
  Page page;
  page.kind = "run";
  page.summary_md = summary_md;
  page.run_windows = json::array();
  if (result.contains("windows") && result["windows"].is_array()) {
    for (const json& w : result["windows"]) page.run_windows.push_back(window_fields(w));
  }
  const double window_s = result.value("window_s", 1.0);
  page.sections.push_back(
      {.title = "Over time",
       .note = "One point per window of " + json(window_s).dump() +
               " s, at its start; the warm-up and the drain are shaded. Rates are per second of "
               "each window.",
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
