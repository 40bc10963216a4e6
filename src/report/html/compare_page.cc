// A comparison's report.html (see pages.h): each check's ratio B/A with the noise it was judged
// against as a band around 1, coloured by its verdict.
#include <fmt/format.h>

#include "analyze/compare_analysis.h"
#include "report/compare_report.h"
#include "report/html/page.h"
#include "result/compare_result.h"

namespace proofload::report::html {

std::string render_compare_html(const result::CompareResult& compare,
                                const std::string& summary_md) {
  Page page;
  page.kind = "compare";
  page.summary_md = summary_md;
  const auto& checks = compare.analysis.checks;
  if (!checks.empty()) {
    Chart chart;
    chart.id = "compare-ratios";
    chart.title = "B / A by check (" + compare.analysis.metric + ")";
    chart.x_label = "check";
    chart.y_label = "ratio B/A";
    chart.y_log = true;  // 2x slower and 2x faster are as far from 1
    std::vector<std::optional<double>> ratio, low, high;
    std::vector<std::string> colors;
    for (size_t i = 0; i < checks.size(); ++i) {
      const auto& c = checks[i];
      chart.x.push_back(static_cast<double>(i + 1));
      chart.x_labels.push_back(c.condition.empty() ? c.name : c.name + " (" + c.condition + ")");
      ratio.push_back(c.ratio);
      low.push_back(1 - c.noise);
      high.push_back(1 + c.noise);
      colors.push_back(c.verdict == analyze::kFaster   ? verdict_color("clean")
                       : c.verdict == analyze::kSlower ? verdict_color("saturated")
                       : c.verdict == analyze::kLevel  ? verdict_color("highest within SLO")
                                                       : verdict_color(""));
    }
    chart.series = {{.label = "ratio B/A",
                     .values = ratio,
                     .color = "",
                     .point_colors = colors,
                     .points_only = true},
                    {.label = "noise, low",
                     .values = low,
                     .color = "#9e9e9e",
                     .point_colors = {},
                     .points_only = false},
                    {.label = "noise, high",
                     .values = high,
                     .color = "#9e9e9e",
                     .point_colors = {},
                     .points_only = false}};
    chart.keys = {{"B faster", verdict_color("clean")},
                  {"level", verdict_color("highest within SLO")},
                  {"B slower", verdict_color("saturated")},
                  {"not judged", verdict_color("")}};
    chart.note =
        "A point between the grey lines is inside its check's noise (the larger of the "
        "minimum effect and the repeats' spreads): level. " +
        compare.analysis.statistic;
    page.sections.push_back({.title = "Ratios",
                             .note = compare.analysis.headline.text,
                             .charts = {std::move(chart)},
                             .script_box = ""});
  }
  return render_page(page);
}

}  // namespace proofload::report::html
