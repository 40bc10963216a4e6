// See live_flags.h.
#include "cli/live_flags.h"

#include <cstdio>

#include "report/html/page.h"

namespace proofload::cli {

void add_live_flags(CLI::App* app, RunFlags& flags) {
  const char* group = "Live view (docs/live.md)";
  app->add_option("--dashboard", flags.dashboard,
                  "Serve a live page of the run's charts at ADDRESS:PORT, e.g. 127.0.0.1:8089 "
                  "(port 0: any free one; loopback only unless --dashboard-public)")
      ->group(group);
  app->add_flag("--dashboard-public", flags.dashboard_public,
                "Let --dashboard listen on an address other machines can reach")
      ->group(group);
  app->add_option("--metrics-listen", flags.metrics_listen,
                  "Serve the run's counters for Prometheus at ADDRESS:PORT/metrics, e.g. "
                  "127.0.0.1:9464 (port 0: any free one)")
      ->group(group);
}

std::unique_ptr<live::LiveOutputs> start_live_outputs(const RunFlags& flags,
                                                      const std::string& command) {
  if (!flags.dashboard && !flags.metrics_listen) {
    if (flags.dashboard_public) throw UsageError("--dashboard-public needs --dashboard");
    return nullptr;
  }
  live::LiveSettings settings;
  settings.dashboard = flags.dashboard;
  settings.dashboard_public = flags.dashboard_public;
  settings.metrics_listen = flags.metrics_listen;
  settings.page_html = report::html::render_dashboard_page("proofload " + command);
  auto outputs = std::make_unique<live::LiveOutputs>(settings);
  // Said even with -q: it is where to look, and a test reads the port chosen for port 0 here.
  if (!outputs->dashboard_url().empty()) {
    std::fprintf(stderr, "dashboard: %s\n", outputs->dashboard_url().c_str());
  }
  if (!outputs->metrics_url().empty()) {
    std::fprintf(stderr, "metrics: %s\n", outputs->metrics_url().c_str());
  }
  std::fflush(stderr);
  return outputs;
}

}  // namespace proofload::cli
