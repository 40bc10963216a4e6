// A sizing's report.html (see pages.h): each configuration's best sustained and peak throughput,
// and per core, side by side.
#include "report/html/page.h"
#include "report/sizing_report.h"
#include "result/sizing_result.h"

namespace proofload::report::html {

std::string render_sizing_html(const result::SizingResult& sizing, const std::string& summary_md) {
  Page page;
  page.kind = "sizing";
  page.summary_md = summary_md;
  if (!sizing.configs.empty()) {
    Chart chart;
    chart.id = "sizing-configs";
    chart.title = "Best sustained and peak throughput by configuration";
    chart.x_label = "configuration";
    chart.y_label = "per s";
    chart.points_only = true;
    std::vector<std::optional<double>> best, peak, per_core;
    for (size_t i = 0; i < sizing.configs.size(); ++i) {
      const auto& c = sizing.configs[i];
      chart.x.push_back(static_cast<double>(i + 1));
      best.push_back(c.best_sustained_rps);
      peak.push_back(c.peak_rps);
      per_core.push_back(c.per_core_rps);
      chart.x_labels.push_back(c.name);
    }
    chart.series = {
        {.label = "best sustained",
         .values = best,
         .color = "",
         .point_colors = {},
         .points_only = false},
        {.label = "peak", .values = peak, .color = "", .point_colors = {}, .points_only = false},
        {.label = "per core",
         .values = per_core,
         .color = "",
         .point_colors = {},
         .points_only = false}};
    page.sections.push_back(
        {.title = "Configurations", .note = "", .charts = {std::move(chart)}, .script_box = ""});
  }
  return render_page(page);
}

}  // namespace proofload::report::html
