// A probe's report.html (see pages.h): each source's answers per second, let through (2xx) and
// limited (429), so the limit's shape (a burst, then a steady rate; per address or shared) shows.
#include <algorithm>
#include <tuple>

#include "analyze/probe_analysis.h"
#include "report/html/page.h"
#include "report/probe_report.h"
#include "result/probe_result.h"

namespace proofload::report::html {

std::string render_probe_html(const result::ProbeResult& probe, const std::string& summary_md) {
  Page page;
  page.kind = "probe";
  page.summary_md = summary_md;
  int64_t seconds = 0;
  for (const auto& s : probe.series) {
    for (const auto& p : s.per_second) seconds = std::max(seconds, p.second + 1);
  }
  Section section{.title = "Per source, per second",
                  .note =
                      "What each source address was let through (2xx) and refused (429) "
                      "each second of the probe's load.",
                  .charts = {},
                  .script_box = ""};
  for (const auto& [id, title, limited] :
       {std::tuple{"probe-let-through", "Let through (2xx) per second, by source", false},
        std::tuple{"probe-limited", "Limited (429) per second, by source", true}}) {
    Chart chart;
    chart.id = id;
    chart.title = title;
    chart.x_label = "s from the probe's start";
    chart.y_label = "answers";
    for (int64_t s = 0; s < seconds; ++s) chart.x.push_back(static_cast<double>(s));
    for (const auto& source : probe.series) {
      std::vector<std::optional<double>> values(static_cast<size_t>(seconds), 0.0);
      for (const auto& p : source.per_second) {
        if (p.second >= 0 && p.second < seconds) {
          values[static_cast<size_t>(p.second)] =
              static_cast<double>(limited ? p.limited : p.let_through);
        }
      }
      chart.series.push_back({.label = source.address,
                              .values = std::move(values),
                              .color = "",
                              .point_colors = {},
                              .points_only = false});
    }
    section.charts.push_back(std::move(chart));
  }
  if (!probe.series.empty()) page.sections.push_back(std::move(section));
  return render_page(page);
}

}  // namespace proofload::report::html
