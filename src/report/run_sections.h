// The tables of a run's summary.md and what this does not show, with the conventions the short
// version shares with them (a percentile's trust, a figure printed no rounder than a threshold's
// own text), in run_sections.cc and (what it does not show) run_limits.cc. Internal to
// run_report.cc. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "result/run_record.h"

namespace proofload::report::run {

// The run's record as read back from its result.json (result/run_record.h).
using result::CounterRecord;
using result::FlowRecord;
using result::Latency;
using result::NamedRequest;
using result::RunRecord;
using result::ServerRecord;
using result::SourceRecord;
using result::ThresholdRecord;

// The percentiles a run reports; whether one is trusted is measure/percentile_trust.h's rule.
struct Percentile {
  const char* label;  // as in thresholds: "p99.9"
  double percentile;  // 99.9
  std::optional<double> Latency::*value;
};
inline constexpr Percentile kPercentiles[] = {{"p50", 50, &Latency::p50},
                                              {"p90", 90, &Latency::p90},
                                              {"p99", 99, &Latency::p99},
                                              {"p99.9", 99.9, &Latency::p99_9}};

// Too few measured responses for `p`.
bool untrusted(const RunRecord& v, const Percentile& p);
// Milliseconds without their unit ("1.2", "0.600"), with at least the decimals of the observed text
// of a threshold on `metric` ("p99", "p95(lookup)") with this very value; "" for no metric.
std::string ms_number(const RunRecord& v, std::string_view metric, double ms);
// A share as a percentage, likewise no rounder than a threshold's text on `metric` ("errors").
std::string share_text(const RunRecord& v, std::string_view metric, double share);
// Throughput without its unit ("2,066", "99.8"), likewise for a threshold on `metric` ("rps").
std::string rps_number(const RunRecord& v, std::string_view metric, double rps);
std::string count_or_dash(std::optional<double> n);
// The recorded spec's executor ("closed_loop", "open_loop"; "" when not recorded), and its stages
// that record both a duration and a target, as (duration_s, target).
std::string executor_of(const RunRecord& v);
std::vector<std::pair<double, double>> stages_of(const RunRecord& v);
// "1 connection", "64 connections".
std::string plural(double n, const std::string& one, const std::string& many);
// The denominator of never started: "1,200 flows offered" (each arrival a single request or a
// whole flow), or in files from before arrivals were recorded, "2,895 intended"; "" for none.
std::string offered_text(const RunRecord& v);
// Where the server's CPU came from: "`pid:4242`", or with several instances "`pidfile:/a-0.pid`
// and `pidfile:/a-1.pid` added (2 instances)".
std::string cpu_sources_text(const ServerRecord& s);
// "status_503" -> "503", "connect_error" -> "connect error".
std::string outcome_words(const std::string& name);
// "window 3", "windows 3, 4 and 7" (the first ten, then how many more).
std::string windows_text(const std::vector<int64_t>& windows);
// Thresholds that did not pass, a missing verdict included: none is ever read as a pass.
std::vector<const ThresholdRecord*> failed_thresholds(const RunRecord& v);
// A threshold's observed text as recorded ("p99 = 3.001 ms"), "no data" when there was none.
std::string observed_words(const ThresholdRecord& t);

std::string latency_table(const RunRecord& v);
std::string outcomes_table(const RunRecord& v);
// The protocol, TLS as agreed, and the connect and handshake times ("" for older files).
std::string connections_section(const RunRecord& v);
std::string named_table(const RunRecord& v);       // "" for a plain run
std::string flows_table(const RunRecord& v);       // "" without flows
std::string streams_table(const RunRecord& v);     // "" unless a --stream run (stream_section.cc)
// The Reconciled with the server section and the short version's row (reconcile_section.cc); ""
// and nullopt without --reconcile.
std::string reconcile_section(const RunRecord& v);
std::optional<std::vector<std::string>> reconcile_row(const RunRecord& v);
std::string thresholds_table(const RunRecord& v);  // "" without thresholds
std::string observed_table(const RunRecord& v);    // "" when nothing was observed

// "The run did not complete (interrupted): ...".
std::string status_limit(const RunRecord& v);
// What the observers leave unshown: no server observer, lost samples, a host that got busy.
void add_observer_limits(const RunRecord& v, std::vector<std::string>& bullets);
std::string limits_section(const RunRecord& v);

}  // namespace proofload::report::run
