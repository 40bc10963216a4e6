// A soak's report.html (see pages.h): its windows over the hold (throughput, latency, errors),
// each window coloured by whether it met the bar, the marks as lines, a streaming soak's first
// token and inter-token latency.
#include <algorithm>

#include "analyze/soak_analysis.h"
#include "report/html/page.h"
#include "report/soak_report.h"
#include "result/soak_result.h"

namespace proofload::report::html {
namespace {

// The charts share the windows (ramp then hold) as x, the ramp shaded and the marks drawn.
Chart over_hold(const result::SoakResult& soak, std::string id, std::string title,
                std::string y_label) {
  Chart chart;
  chart.id = std::move(id);
  chart.title = std::move(title);
  chart.x_label = "s from the hold's start";
  chart.y_label = std::move(y_label);
  for (const auto* part : {&soak.ramp, &soak.windows}) {
    for (const analyze::SoakWindowRow& w : *part) chart.x.push_back(w.start_s);
  }
  if (!soak.ramp.empty()) chart.x_bands.push_back({soak.ramp.front().start_s, 0, "ramp"});
  for (const analyze::MarkVerdict& m : soak.marks) {
    chart.marks.push_back({m.mark.at_s, m.mark.label + " (" + m.verdict + ")"});
  }
  return chart;
}

template <typename F>
std::vector<std::optional<double>> each(const result::SoakResult& soak, F value) {
  std::vector<std::optional<double>> out;
  for (const auto* part : {&soak.ramp, &soak.windows}) {
    for (const analyze::SoakWindowRow& w : *part) out.push_back(value(w));
  }
  return out;
}

}  // namespace

std::string render_soak_html(const result::SoakResult& soak, const std::string& summary_md) {
  Page page;
  page.kind = "soak";
  page.summary_md = summary_md;
  std::vector<std::string> bar_colors;
  for (const auto* part : {&soak.ramp, &soak.windows}) {
    for (const analyze::SoakWindowRow& w : *part) {
      bar_colors.push_back(w.ramp ? verdict_color("")
                                  : verdict_color(w.bar_met ? "clean" : "saturated"));
    }
  }
  const std::vector<Chart::Key> bar_keys = {{"met the bar", verdict_color("clean")},
                                            {"missed it", verdict_color("saturated")},
                                            {"ramp (not judged)", verdict_color("")}};
  Chart latency = over_hold(soak, "soak-latency", "Latency per window (ms)", "ms");
  latency.y_log = true;
  latency.series = {series_of("p50", each(soak, [](const auto& w) { return w.p50_ms; })),
                    series_of("p95 (coloured by the bar)",
                              each(soak, [](const auto& w) { return w.p95_ms; }), bar_colors),
                    series_of("p99", each(soak, [](const auto& w) { return w.p99_ms; }))};
  latency.keys = bar_keys;
  Chart throughput = over_hold(soak, "soak-throughput", "Throughput per window", "per s");
  throughput.series = {series_of("responses per s", each(soak, [](const auto& w) {
                                   return std::optional(w.throughput_rps);
                                 }))};
  Chart errors = over_hold(soak, "soak-errors", "Errors per window (share of requests)", "share");
  errors.y_kind = "share";
  errors.series = {
      series_of("errors",
                each(soak,
                     [](const auto& w) -> std::optional<double> {
                       if (w.requests == 0) return std::nullopt;
                       return static_cast<double>(w.errors) / static_cast<double>(w.requests);
                     }),
                bar_colors),
      series_of("429", each(soak, [](const auto& w) -> std::optional<double> {
                  if (w.requests == 0) return std::nullopt;
                  return static_cast<double>(w.status_429) / static_cast<double>(w.requests);
                }))};
  errors.keys = bar_keys;
  Section section{.title = "Windows",
                  .note =
                      "One point per soak window, at its start; the ramp is shaded and each "
                      "mark is a dashed line with its verdict.",
                  .charts = {std::move(latency), std::move(throughput), std::move(errors)},
                  .script_box = ""};
  const bool streamed = !each(soak, [](const auto& w) { return w.ttft_p95_ms; }).empty() &&
                        std::any_of(soak.windows.begin(), soak.windows.end(),
                                    [](const auto& w) { return w.ttft_p95_ms.has_value(); });
  if (streamed) {
    Chart streams =
        over_hold(soak, "soak-streams", "Streams: first token p95 and inter-token p99 (ms)", "ms");
    streams.y_log = true;
    streams.series = {
        series_of("first token p95", each(soak, [](const auto& w) { return w.ttft_p95_ms; })),
        series_of("inter-token p99", each(soak, [](const auto& w) { return w.itl_p99_ms; }))};
    section.charts.push_back(std::move(streams));
  }
  page.sections.push_back(std::move(section));
  return render_page(page);
}

}  // namespace proofload::report::html
