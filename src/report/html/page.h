// report.html: one self-contained page (script, styles, data and uPlot's licence inline; nothing
// fetched when it is opened) beside summary.md in every result directory. The page opens with
// what summary.md opens with (its title, the lines under it, "The short version" and "What this
// does not show"), then the experiment's charts.
//
// An experiment's page is one function that turns its recorded result into `Section`s of
// `Chart`s (run_page.cc, ladder_page.cc, ...); report.js draws every chart the same way from its
// JSON, so a new experiment adds a function here and no script. The same data gives the same
// bytes: `proofload report DIR` renders it again from result.json alone.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace proofload::report::html {

// One chart, as report.js draws it: x values and one or more series over them.
struct Chart {
  std::string id;     // unique in the page (the DOM id of its box, for tests and links)
  std::string title;  // what it shows, one line
  std::string note;   // how to read it ("" for none)
  std::string x_label, y_label;
  // "number" (plain), "seconds" (time since the start of the run), "percentile" (x values are
  // 1/(1-p), drawn on a log scale and labelled as percentiles, as HdrHistogram plots are).
  std::string x_kind = "number";
  // Names of x = 1, 2, ...: the checks of a comparison, the configurations of a sizing (the
  // axis then has a tick per name and no other); empty for a numeric axis.
  std::vector<std::string> x_labels;
  // "number", or "share" (values in 0..1, shown as percentages, the axis from 0).
  std::string y_kind = "number";
  bool x_log = false, y_log = false;
  bool stacked = false;      // series are shares or counts stacked one on the next
  bool points_only = false;  // points, no lines (levels of a ladder, steps of a search)
  std::vector<double> x;
  struct Series {
    std::string label;
    std::vector<std::optional<double>> values;  // one per x; nullopt: a gap
    std::string color;                          // "" lets report.js choose
    // One colour per point (a level's verdict); empty: the series' own colour.
    std::vector<std::string> point_colors;
    bool points_only = false;  // this series as points, without a line
  };
  std::vector<Series> series;
  struct Band {  // a shaded range of x (warm-up) or y (the noise floor)
    double from = 0, to = 0;
    std::string label;
  };
  std::vector<Band> x_bands, y_bands;
  struct Mark {  // a labelled vertical line (the knee, a soak's mark)
    double x = 0;
    std::string label;
  };
  std::vector<Mark> marks;
  struct Key {  // a legend entry that is no series (what each point colour means)
    std::string label, color;
  };
  std::vector<Key> keys;

  nlohmann::json to_json() const;
};

// A line of `values` in report.js's next colour, or with one colour per point.
Chart::Series series_of(std::string label, std::vector<std::optional<double>> values,
                        std::vector<std::string> point_colors = {});

struct Section {
  std::string title;
  std::string note;  // a paragraph under the title ("" for none)
  std::vector<Chart> charts;
  // The id of a box in which report.js draws charts it builds itself (a run's windows), after
  // `charts`; "" for none.
  std::string script_box;
};

struct Page {
  std::string kind;        // "run", "ladder", "soak", ...: the page's data-kind, for tests
  std::string summary_md;  // the experiment's summary.md: its opening parts are shown as text
  std::vector<Section> sections;
  // A run's windows (result.json's windows[], the fields report.js reads), from which report.js
  // draws the run's charts over time, as the live dashboard does from the windows it receives.
  nlohmann::json run_windows;
};

// The whole page, byte for byte the same for the same Page.
std::string render_page(const Page& page);

// The live dashboard (--dashboard): the run page's charts, drawn from the windows the running
// experiment sends over Server-Sent Events at /events rather than from recorded data.
std::string render_dashboard_page(const std::string& title);

// The colours report.js and the pages agree on, for a level's verdict.
std::string verdict_color(const std::string& verdict);

}  // namespace proofload::report::html
