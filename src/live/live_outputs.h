// What a running experiment shows outside the terminal while it runs: the dashboard
// (--dashboard: a page and its Server-Sent Events) and the metrics (--metrics-listen: the
// Prometheus text format). One per process, made before the first step and ended after the last,
// so that a ladder's levels (separate runs) appear as one experiment; nothing of it is recorded in
// the result files.
// Thread-safety: begin_step and add_window come from the run's coordinator thread; the listeners
// answer on their own threads.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "live/dashboard_feed.h"
#include "live/http_listener.h"
#include "live/metrics_exposition.h"
#include "measure/window_stats.h"
#include "net/tcp.h"

namespace proofload::live {

// An SSE reader that has been sent nothing for this long gets a comment line, so that proxies and
// browsers keep the stream open through a long quiet step (a drain wait, a hook).
constexpr int64_t kKeepAliveNs = int64_t{15} * 1'000'000'000;

struct LiveSettings {
  std::optional<std::string> dashboard;       // --dashboard ADDR:PORT
  bool dashboard_public = false;              // --dashboard-public
  std::optional<std::string> metrics_listen;  // --metrics-listen ADDR:PORT
  // The page served at the dashboard's / (report::html::render_dashboard_page: the same charts
  // as report.html, drawn from /events).
  std::string page_html;
};

// ADDR:PORT ("127.0.0.1:9464", "[::1]:0", "localhost:0"; port 0: any free port) as the address to
// listen on. Throws UsageError naming `flag`.
net::Address parse_listen_address(const std::string& flag, const std::string& text);
// 127.0.0.0/8 or ::1.
bool is_loopback(const net::Address& address);

class LiveOutputs {
 public:
  // Binds every listener asked for: throws UsageError (a bad address, a port in use, a
  // non-loopback dashboard without --dashboard-public) before any load is sent.
  explicit LiveOutputs(const LiveSettings& settings);
  ~LiveOutputs();  // end()
  LiveOutputs(const LiveOutputs&) = delete;
  LiveOutputs& operator=(const LiveOutputs&) = delete;

  // "http://127.0.0.1:PORT/" and "http://127.0.0.1:PORT/metrics"; "" when not asked for.
  const std::string& dashboard_url() const { return dashboard_url_; }
  const std::string& metrics_url() const { return metrics_url_; }

  // A step begins (each run_load_test): its progress label and its scenario's request names
  // (none without a scenario).
  void begin_step(const std::string& label, std::vector<std::string> request_names = {});
  // One window, once observed: `window` is its object as result.json's windows[] holds it.
  // `planned_s`: the step's planned length, warm-up included (none when only -n bounds it).
  void add_window(const measure::WindowStats& w, const nlohmann::json& window,
                  const std::string& label, std::optional<double> planned_s);
  // The experiment ended: dashboards get `event: end`, then every listener stops (within a
  // second, however slow a reader). Idempotent.
  void end();

 private:
  MetricsExposition metrics_;
  DashboardFeed feed_;
  std::unique_ptr<HttpListener> dashboard_;
  std::unique_ptr<HttpListener> metrics_listener_;
  std::string dashboard_url_;
  std::string metrics_url_;
  bool ended_ = false;
};

}  // namespace proofload::live
