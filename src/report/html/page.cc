// The page around an experiment's charts (see page.h).
#include "report/html/page.h"

#include <fmt/format.h>

#include "report/html/assets.h"
#include "report/html/markdown.h"

namespace proofload::report::html {
namespace {

using nlohmann::json;

// The page's data as a <script> element's text: every '<' escaped (it can only be inside a JSON
// string), so nothing a server sent can close the element.
std::string script_safe(const json& data) {
  const std::string text = data.dump();
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

json values_json(const std::vector<std::optional<double>>& values) {
  json out = json::array();
  for (const auto& v : values) out.push_back(v ? json(*v) : json(nullptr));
  return out;
}

// The opening of summary.md (its title and the lines under it), "The short version" and "What
// this does not show", as summary.md has them.
std::string summary_parts_html(const std::string& summary_md) {
  std::string opening, short_version, not_shown;
  for (const MarkdownSection& s : split_sections(summary_md)) {
    if (s.heading.empty()) opening = markdown_to_html(s.body);
    if (s.heading == "The short version") {
      short_version = "<h2>The short version</h2>\n" + markdown_to_html(s.body, 1);
    }
    if (s.heading == "What this does not show") {
      not_shown = "<h2>What this does not show</h2>\n" + markdown_to_html(s.body, 1);
    }
  }
  return "<header>\n" + opening + "</header>\n<section class=\"summary\">\n" + short_version +
         "</section>\n<section class=\"not-shown\">\n" + not_shown + "</section>\n";
}

std::string head_html(const std::string& title, const std::string& connect_src) {
  // Nothing is fetched: no source but the page's own inline script and styles is allowed (the
  // dashboard's own /events excepted).
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src {}\">\n"
      "<title>{}</title>\n<style>\n{}\n{}\n</style>\n</head>\n",
      connect_src, escape_html(title), kUplotCss, kReportCss);
}

// `source`: where the page's data came from ("result.json", "the running experiment").
std::string scripts_and_footer_html(std::string_view source) {
  return fmt::format(
      "<script>\n{}\n</script>\n<script>\n{}\n</script>\n<footer>\n<p>Rendered by proofload "
      "from {}; charts drawn with uPlot {} (MIT licence, below).</p>\n"
      "<details><summary>uPlot's licence</summary><pre>{}</pre></details>\n</footer>\n"
      "</body>\n</html>\n",
      kUplotJs, kReportJs, source, kUplotVersion, escape_html(kUplotLicense));
}

std::string title_of(const std::string& summary_md) {
  const size_t end = summary_md.find('\n');
  std::string first = summary_md.substr(0, end);
  if (first.starts_with("# ")) first = first.substr(2);
  return first.empty() ? "proofload report" : first;
}

}  // namespace

json Chart::to_json() const {
  json series_json = json::array();
  for (const Series& s : series) {
    json one = {{"label", s.label}, {"values", values_json(s.values)}};
    if (!s.color.empty()) one["color"] = s.color;
    if (!s.point_colors.empty()) one["point_colors"] = s.point_colors;
    if (s.points_only) one["points_only"] = true;
    series_json.push_back(std::move(one));
  }
  json x_bands_json = json::array(), y_bands_json = json::array(), marks_json = json::array(),
       keys_json = json::array();
  for (const Band& b : x_bands)
    x_bands_json.push_back({{"from", b.from}, {"to", b.to}, {"label", b.label}});
  for (const Band& b : y_bands)
    y_bands_json.push_back({{"from", b.from}, {"to", b.to}, {"label", b.label}});
  for (const Mark& m : marks) marks_json.push_back({{"x", m.x}, {"label", m.label}});
  for (const Key& k : keys) keys_json.push_back({{"label", k.label}, {"color", k.color}});
  return {
      {"id", id},
      {"title", title},
      {"note", note},
      {"x",
       {{"label", x_label}, {"kind", x_kind}, {"log", x_log}, {"values", x}, {"labels", x_labels}}},
      {"y", {{"label", y_label}, {"kind", y_kind}, {"log", y_log}}},
      {"stacked", stacked},
      {"points_only", points_only},
      {"series", std::move(series_json)},
      {"x_bands", std::move(x_bands_json)},
      {"y_bands", std::move(y_bands_json)},
      {"marks", std::move(marks_json)},
      {"keys", std::move(keys_json)}};
}

Chart::Series series_of(std::string label, std::vector<std::optional<double>> values,
                        std::vector<std::string> point_colors) {
  return {.label = std::move(label),
          .values = std::move(values),
          .color = "",
          .point_colors = std::move(point_colors),
          .points_only = false};
}

std::string render_page(const Page& page) {
  json data = {{"kind", page.kind}, {"charts", json::array()}};
  if (!page.run_windows.is_null()) data["run_windows"] = page.run_windows;
  std::string body;
  for (const Section& section : page.sections) {
    body += "<section class=\"charts\">\n<h2>" + escape_html(section.title) + "</h2>\n";
    if (!section.note.empty()) body += "<p>" + escape_html(section.note) + "</p>\n";
    for (const Chart& chart : section.charts) {
      body += "<div class=\"chart\" id=\"chart-" + escape_html(chart.id) + "\"></div>\n";
      data["charts"].push_back(chart.to_json());
    }
    if (!section.script_box.empty()) {
      body += "<div class=\"charts-box\" id=\"" + escape_html(section.script_box) + "\"></div>\n";
    }
    body += "</section>\n";
  }
  return head_html(title_of(page.summary_md), "'none'") + "<body data-kind=\"" +
         escape_html(page.kind) + "\">\n<main>\n" + summary_parts_html(page.summary_md) + body +
         "</main>\n<script type=\"application/json\" id=\"proofload-data\">" + script_safe(data) +
         "</script>\n" + scripts_and_footer_html("result.json");
}

std::string render_dashboard_page(const std::string& title) {
  // The charts' boxes are made by report.js as the first windows arrive (live mode).
  return head_html(title, "'self'") + "<body data-kind=\"live\">\n<main>\n<header>\n<h1>" +
         escape_html(title) +
         "</h1>\n<p id=\"live-status\">Waiting for the first window…</p>\n<p>Windows "
         "received: <span id=\"live-windows\">0</span>; last window's throughput: "
         "<span id=\"live-rps\">–</span>/s</p>\n</header>\n<section class=\"charts\" "
         "id=\"live-charts\"></section>\n</main>\n" +
         "<script type=\"application/json\" id=\"proofload-data\">{\"kind\":\"live\","
         "\"charts\":[]}</script>\n" +
         scripts_and_footer_html("the running experiment's windows");
}

std::string verdict_color(const std::string& verdict) {
  if (verdict == "clean") return "#2e7d32";
  if (verdict.find("knee") != std::string::npos) return "#ef6c00";
  if (verdict == "highest within SLO") return "#1565c0";
  if (verdict == "saturated") return "#c62828";
  return "#757575";  // not judged, failed, aborted, ...
}

}  // namespace proofload::report::html
