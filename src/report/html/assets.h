// The files report.html and the live dashboard carry inline, embedded at build time
// (embed_assets.cmake): uPlot (from npm, pinned in vendor/package-lock.json) with its licence,
// and the page's own script and styles (report.js, report.css beside this file).
#pragma once

#include <string_view>

namespace proofload::report::html {

extern const std::string_view kUplotJs;       // uPlot.iife.min.js
extern const std::string_view kUplotCss;      // uPlot.min.css
extern const std::string_view kUplotLicense;  // its MIT licence, carried in every page
extern const std::string_view kUplotVersion;  // the version embedded (vendor/package.json)
extern const std::string_view kReportJs;      // draws each chart of the page's data
extern const std::string_view kReportCss;

}  // namespace proofload::report::html
