// See metrics_exposition.h. The names follow Prometheus' conventions: the proofload_ prefix,
// base units (seconds, bytes), _total on counters.
#include "live/metrics_exposition.h"

#include <fmt/format.h>

#include <cmath>

namespace proofload::live {
namespace {

void family(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

void sample(std::string& out, std::string_view name, int64_t value) {
  out += fmt::format("{} {}\n", name, value);
}

}  // namespace

void MetricsExposition::begin_step(const std::string& label,
                                   std::vector<std::string> request_names) {
  std::lock_guard lock(mutex_);
  ++step_;
  step_label_ = label;
  step_request_names_ = std::move(request_names);
}

void MetricsExposition::add_window(const measure::WindowStats& w) {
  std::lock_guard lock(mutex_);
  for (size_t i = 0; i < outcomes_.size(); ++i) outcomes_[i] += w.outcomes[i];
  for (size_t r = 0; r < w.request_outcomes.size() && r < step_request_names_.size(); ++r) {
    auto& counts = by_request_[step_request_names_[r]];
    for (size_t i = 0; i < counts.size(); ++i) counts[i] += w.request_outcomes[r][i];
  }
  for (int code = 0; code < measure::kStatusSlots; ++code) {
    if (w.status[code] != 0) status_[code] += w.status[code];
  }
  const measure::HdrHistogram& latency = w.latency_us;
  for (size_t i = 0; i < kLatencyBucketsS.size(); ++i) {
    latency_le_[i] += latency.count_at_or_below(std::llround(kLatencyBucketsS[i] * 1e6));
  }
  latency_count_ += latency.total_count();
  latency_sum_s_ += latency.mean() * static_cast<double>(latency.total_count()) / 1e6;
  intended_ += w.intended;
  bytes_in_ += w.bytes_in;
  bytes_out_ += w.bytes_out;
  connects_ += w.connects;
  ++windows_;
  in_flight_ = w.in_flight_end;
  queued_ = w.queued_end;
  warmup_ = w.warmup;
}

std::string MetricsExposition::render() const {
  std::lock_guard lock(mutex_);
  std::string out;
  family(out, "proofload_requests_total", "counter",
         "Requests ended, by outcome (never_started: due but no connection was free in time).");
  for (size_t i = 0; i < outcomes_.size(); ++i) {
    out += fmt::format("proofload_requests_total{{outcome=\"{}\"}} {}\n", measure::kOutcomeNames[i],
                       outcomes_[i]);
  }
  if (!by_request_.empty()) {
    // A series per outcome that occurred: a scenario of many requests would otherwise expose
    // every name times every outcome.
    family(out, "proofload_named_requests_total", "counter",
           "A scenario's requests ended, by request name and outcome (those that occurred).");
    for (const auto& [name, counts] : by_request_) {
      for (size_t i = 0; i < counts.size(); ++i) {
        if (counts[i] == 0) continue;
        out += fmt::format("proofload_named_requests_total{{request=\"{}\",outcome=\"{}\"}} {}\n",
                           escape_label_value(name), measure::kOutcomeNames[i], counts[i]);
      }
    }
  }
  family(out, "proofload_responses_total", "counter",
         "Responses by HTTP status code (600: outside 0-599).");
  for (auto [code, count] : status_) {
    out += fmt::format("proofload_responses_total{{code=\"{}\"}} {}\n", code, count);
  }
  family(out, "proofload_never_started_total", "counter",
         "Requests due that never started (open loop: no connection free within the queue).");
  sample(out, "proofload_never_started_total",
         outcomes_[static_cast<int>(measure::Outcome::kNeverStarted)]);
  family(out, "proofload_intended_total", "counter",
         "Requests the schedule wanted (open loop: due; closed loop: started).");
  sample(out, "proofload_intended_total", intended_);
  family(out, "proofload_latency_seconds", "histogram",
         "Latency of responses, from the intended start to the last byte.");
  for (size_t i = 0; i < kLatencyBucketsS.size(); ++i) {
    out += fmt::format("proofload_latency_seconds_bucket{{le=\"{}\"}} {}\n", kLatencyBucketsS[i],
                       latency_le_[i]);
  }
  out += fmt::format("proofload_latency_seconds_bucket{{le=\"+Inf\"}} {}\n", latency_count_);
  out += fmt::format("proofload_latency_seconds_sum {}\n", latency_sum_s_);
  sample(out, "proofload_latency_seconds_count", latency_count_);
  family(out, "proofload_received_bytes_total", "counter", "Bytes read from the servers.");
  sample(out, "proofload_received_bytes_total", bytes_in_);
  family(out, "proofload_sent_bytes_total", "counter", "Bytes written to the servers.");
  sample(out, "proofload_sent_bytes_total", bytes_out_);
  family(out, "proofload_connections_opened_total", "counter", "TCP connections opened.");
  sample(out, "proofload_connections_opened_total", connects_);
  family(out, "proofload_windows_total", "counter", "Measured windows folded in so far.");
  sample(out, "proofload_windows_total", windows_);
  family(out, "proofload_in_flight", "gauge",
         "Requests started and not ended at the end of the last window.");
  sample(out, "proofload_in_flight", in_flight_);
  family(out, "proofload_queued", "gauge",
         "Open loop: requests waiting for a connection at the end of the last window.");
  sample(out, "proofload_queued", queued_);
  family(out, "proofload_warmup", "gauge", "1 while the last window was in the warm-up.");
  sample(out, "proofload_warmup", warmup_ ? 1 : 0);
  family(out, "proofload_step", "gauge",
         "The experiment's step in progress, from 1 (a ladder's level, a comparison's cell).");
  sample(out, "proofload_step", step_);
  family(out, "proofload_step_info", "gauge", "The label of the step in progress.");
  out += fmt::format("proofload_step_info{{label=\"{}\"}} 1\n", escape_label_value(step_label_));
  return out;
}

}  // namespace proofload::live
