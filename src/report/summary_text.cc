// Formats the terminal summary and the live line. Numbers carry thousands separators and units;
// failures are stated in words at the top, never left for the reader to spot in a table.
#include "report/summary_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>

#include "analyze/reconcile.h"
#include "measure/percentile_trust.h"
#include "report/numbers.h"
#include "words/numbers.h"
#include "words/reconcile_words.h"

namespace proofload::report {
namespace {

using measure::HdrHistogram;
using measure::Outcome;
using measure::WindowStats;
using words::fixed_with_thousands;
using words::percent_text;
using words::with_thousands;

std::string mode_text(const result::SpecRecord& spec) {
  if (!spec.executor) return "";
  const std::string& executor = *spec.executor;
  if (executor == "closed_loop") {
    if (spec.connections) {
      const int64_t n = *spec.connections;
      if (spec.h2_streams && *spec.h2_streams > 1) {
        // HTTP/2: each stream slot is a virtual user.
        const int64_t m = *spec.h2_streams;
        return "closed loop, " + with_thousands(n) + " connections × " + with_thousands(m) +
               " streams (" + with_thousands(n * m) + " virtual users)";
      }
      return "closed loop, " + with_thousands(n) + " connections";
    }
    return "closed loop";
  }
  if (executor == "open_loop") {
    if (spec.rate_per_s) {
      const double rate_per_s = *spec.rate_per_s;
      const bool whole = rate_per_s == std::floor(rate_per_s);
      // A scenario's arrivals are picks of its mix: a request, or a whole flow of several.
      const bool scenario = spec.scenario.present();
      return "open loop, " + fixed_with_thousands(rate_per_s, whole ? 0 : 2) +
             (scenario ? " arrivals/s (each one pick of the mix)" : " req/s");
    }
    return "open loop";
  }
  return executor;
}

std::string ms_cell(std::optional<double> value, bool too_few) {
  // The marker gets its own column so that the digits stay aligned.
  if (!value) return "- ";
  return fixed_with_thousands(*value, 3) + (too_few ? "*" : " ");
}

// A table row without trailing blanks (the marker column of the last cell may be empty).
std::string table_row(std::string_view label, const std::string& latency,
                      const std::string& service) {
  std::string row = fmt::format("  {:<8}{:>16}{:>16}", label, latency, service);
  while (!row.empty() && row.back() == ' ') row.pop_back();
  return row + "\n";
}

void append_latency_table(std::string& out, const WindowStats& t) {
  const HdrHistogram& latency = t.latency_us;
  const HdrHistogram& service = t.service_us;
  out += table_row("ms", "latency ", "service time ");
  bool any_marked = false;
  for (double p : {50.0, 90.0, 99.0, 99.9}) {
    // One rule for every output (measure/percentile_trust.h).
    const bool few_latency = !measure::percentile_trusted(latency.total_count(), p);
    const bool few_service = !measure::percentile_trusted(service.total_count(), p);
    const bool shown_latency = few_latency && latency.total_count() > 0;
    const bool shown_service = few_service && service.total_count() > 0;
    any_marked = any_marked || shown_latency || shown_service;
    out += table_row(p == 99.9 ? "p99.9" : fmt::format("p{:.0f}", p),
                     ms_cell(percentile_ms(latency, p), few_latency),
                     ms_cell(percentile_ms(service, p), few_service));
  }
  out += table_row("max", ms_cell(max_ms(latency), false), ms_cell(max_ms(service), false));
  out += table_row("mean", ms_cell(mean_ms(latency), false), ms_cell(mean_ms(service), false));
  if (any_marked) {
    out +=
        "  * too few samples for this percentile (10 at or beyond it: p50 needs 20, p90 100,\n"
        "    p99 1,000, p99.9 10,000): read it as one of the slowest requests, not as a stable\n"
        "    percentile\n";
  }
  if (latency.total_count() == 0) out += "  no responses: no latency was measured\n";
}

void append_outcomes(std::string& out, const WindowStats& t) {
  const int64_t started = started_requests(t);
  out += fmt::format("outcomes (of {} started requests)\n", with_thousands(started));
  for (int i = 0; i < measure::kOutcomeCount; ++i) {
    const auto outcome = static_cast<Outcome>(i);
    // Never-started work has another denominator (intended): it gets its own line.
    if (outcome == Outcome::kNeverStarted) continue;
    if (t.outcomes[i] == 0 && outcome != Outcome::kSuccess) continue;
    const std::optional<double> fraction = share(t.outcomes[i], started);
    out += fmt::format("  {:<16}{:>14}{:>10}\n", measure::kOutcomeNames[i],
                       with_thousands(t.outcomes[i]), fraction ? percent_text(*fraction) : "-");
  }
}

void append_status_codes(std::string& out, const WindowStats& t) {
  bool any = false;
  for (int code = 0; code < measure::kStatusSlots; ++code) {
    if (t.status[code] == 0) continue;
    if (!any) out += "status codes\n";
    any = true;
    const std::string name = code == measure::kStatusOther ? "other" : std::to_string(code);
    out += fmt::format("  {:<16}{:>14}\n", name, with_thousands(t.status[code]));
  }
  if (!any) out += "status codes    none received\n";
}

// One row per named request: how much of the mix it was, how it ended, how fast.
void append_requests_by_name(std::string& out, const RunResult& result) {
  if (result.request_names.empty()) return;
  int64_t all = 0;
  for (const measure::RequestStats& r : result.named_total.requests) all += r.ended();
  out += fmt::format("by request      {:>10}{:>8}{:>9}{:>12}{:>12}{:>12}\n", "requests", "share",
                     "errors", "p50 ms", "p95 ms", "p99 ms");
  for (size_t i = 0; i < result.request_names.size() && i < result.named_total.requests.size();
       ++i) {
    const measure::RequestStats& r = result.named_total.requests[i];
    int64_t errors = 0;
    for (int o = 0; o < measure::kOutcomeCount; ++o) {
      if (measure::outcome_is_error(static_cast<Outcome>(o))) errors += r.outcomes[o];
    }
    auto ms = [&](double p) {
      auto v = percentile_ms(r.latency_us, p);
      return v ? fixed_with_thousands(*v, 3) : std::string("-");
    };
    const std::optional<double> mix_share = share(r.ended(), all);
    out += fmt::format("  {:<14}{:>10}{:>8}{:>9}{:>12}{:>12}{:>12}\n", result.request_names[i],
                       with_thousands(r.ended()), mix_share ? percent_text(*mix_share) : "-",
                       with_thousands(errors), ms(50), ms(95), ms(99));
  }
}

// Flows have their own denominator: flows, not requests.
void append_flows(std::string& out, const RunResult& result) {
  if (result.flow_names.empty()) return;
  out += fmt::format("flows           {:>10}{:>11}{:>9}{:>11}{:>10}{:>12}\n", "started",
                     "succeeded", "failed", "abandoned", "success", "p50 ms");
  for (size_t i = 0; i < result.flow_names.size() && i < result.named_total.flows.size(); ++i) {
    const measure::FlowStats& f = result.named_total.flows[i];
    const std::optional<double> rate = share(f.succeeded, f.succeeded + f.failed);
    const std::optional<double> p50 = percentile_ms(f.duration_us, 50);
    out += fmt::format("  {:<14}{:>10}{:>11}{:>9}{:>11}{:>10}{:>12}\n", result.flow_names[i],
                       with_thousands(f.started), with_thousands(f.succeeded),
                       with_thousands(f.failed), with_thousands(f.abandoned),
                       rate ? percent_text(*rate) : "-", p50 ? fixed_with_thousands(*p50, 3) : "-");
  }
  out +=
      "  success: flows whose every step answered and passed its checks, of the flows that\n"
      "  finished (abandoned: cut short by the end of the run); p50: whole-flow duration\n";
}

std::string mib(double bytes) {
  return fixed_with_thousands(bytes / (1024.0 * 1024.0), 1) + " MiB";
}

// One line per observed source: what it shows of CPU, memory, throttling and restarts, and any
// gap in its samples (a figure with holes must say so).
void append_observed(std::string& out, const RunResult& result) {
  if (result.observed.empty()) return;
  out += "observed (measured part)\n";
  for (const ObservedSummary& o : result.observed) {
    std::vector<std::string> parts;
    if (auto mean = o.value("cpu_cores_mean")) {
      std::string cpu = fmt::format("CPU {:.2f} cores mean, {:.2f} max", *mean,
                                    o.value("cpu_cores_max").value_or(*mean));
      if (auto per = o.value("cpu_ms_per_request"))
        cpu += fmt::format(", {:.3f} ms per request", *per);
      parts.push_back(cpu);
    }
    if (auto share = o.value("cpu_throttled_share_mean")) {
      parts.push_back("throttled " + percent_text(*share) + " of periods");
    }
    for (const char* gauge : {"rss_bytes", "memory_bytes"}) {
      auto end = o.value(std::string(gauge) + "_end");
      auto peak = o.value(std::string(gauge) + "_peak");
      if (gauge == std::string("memory_bytes") && !peak) peak = o.value("memory_peak_bytes_peak");
      if (end) {
        parts.push_back(std::string(gauge == std::string("rss_bytes") ? "RSS " : "memory ") +
                        mib(*end) + " at the end" + (peak ? ", " + mib(*peak) + " peak" : ""));
      }
    }
    if (auto restarts = o.value("restarts"))
      parts.push_back(fmt::format("{:.0f} restarts", *restarts));
    if (auto kills = o.value("oom_kills")) parts.push_back(fmt::format("{:.0f} OOM kills", *kills));
    if (auto load = o.value("load1_max")) parts.push_back(fmt::format("load {:.2f} max", *load));
    if (auto busy = o.value("cpu_busy_share_mean"))
      parts.push_back("CPUs " + percent_text(*busy) + " busy");
    std::string name = o.label == o.source ? o.label : o.label + " (" + o.source + ")";
    if (o.label == "self") name = "self (the generator)";
    // A Prometheus endpoint's series are too many for a line: they are in result.json.
    std::string line = !parts.empty() ? parts[0]
                       : o.figures.empty()
                           ? std::string("no figures")
                           : fmt::format("{} figures (in result.json)",
                                         with_thousands(static_cast<int64_t>(o.figures.size())));
    for (size_t i = 1; i < parts.size(); ++i) line += "; " + parts[i];
    out += fmt::format("  {}: {}\n", name, line);
    if (o.gaps > 0) {
      out += fmt::format("    GAPS: {} of {} samples failed (last: {})\n", with_thousands(o.gaps),
                         with_thousands(o.gaps + o.samples), o.last_error);
    }
  }
}

void append_thresholds(std::string& out, const RunResult& result) {
  if (result.thresholds.empty()) return;
  int passed = 0;
  for (const ThresholdVerdict& t : result.thresholds) passed += t.passed ? 1 : 0;
  out += fmt::format("thresholds      {} of {} passed\n", passed, result.thresholds.size());
  for (const ThresholdVerdict& t : result.thresholds) {
    out +=
        fmt::format("  {}  {:<32} {}\n", t.passed ? "PASS" : "FAIL", t.expression, t.observed_text);
  }
}

}  // namespace

std::string format_summary(const RunResult& result) {
  const WindowStats& t = result.total;
  const int64_t never_started = t.count(Outcome::kNeverStarted);
  const int64_t errors = t.errors();
  const int64_t started = started_requests(t);
  std::string out;

  if (result.aborted) {
    out += fmt::format("ABORTED ({}): every figure below covers only the part that ran.\n",
                       result.end_reason);
  } else if (result.interrupted) {
    out +=
        "INTERRUPTED: the run was stopped before its planned end; every figure below covers "
        "only the part that ran.\n";
  } else {
    out += result.end_reason.empty() ? "Run complete.\n"
                                     : fmt::format("Run complete ({}).\n", result.end_reason);
  }
  if (const std::string target = result.spec.target.value_or(""); !target.empty()) {
    out += fmt::format("  target        {}\n", target);
  }
  if (const std::string mode = mode_text(result.spec); !mode.empty()) {
    out += fmt::format("  mode          {}\n", mode);
  }
  const double warmup_s = result.warmup_duration_s;
  out += fmt::format("  duration      {:.2f} s measured{}\n", result.measured_duration_s,
                     warmup_s > 0 ? fmt::format(" ({:.2f} s of warm-up excluded)", warmup_s)
                                  : std::string(" (no warm-up)"));
  out += fmt::format("  requests      {} responses of {} intended\n", with_thousands(t.responses()),
                     with_thousands(t.intended));
  if (result.span.duration_ns > 0) {
    out += fmt::format(
        "  throughput    {} req/s (responses ending in the measured span, per second)\n",
        fixed_with_thousands(result.throughput_rps(), 1));
    out += fmt::format("  goodput       {} req/s (successes, likewise)\n",
                       fixed_with_thousands(result.goodput_rps(), 1));
  }
  if (result.reconcile) {
    out += "  reconcile     " + words::reconcile_sentence(*result.reconcile) + "\n";
  }
  out += "\n";

  if (errors > 0) {
    out += fmt::format("ERRORS: {} of {} started requests failed ({}).\n", with_thousands(errors),
                       with_thousands(started), percent_text(*share(errors, started)));
  }
  const std::string arrivals = arrivals_noun(result.spec);
  if (never_started > 0) {
    const std::optional<double> fraction = t.never_started_share();
    out += fmt::format(
        "NEVER STARTED: {} of {} {} offered ({}) were due but found no free connection in "
        "time;\n  the schedule was not kept, and they are not in the latency figures.\n",
        with_thousands(never_started), with_thousands(t.arrivals), arrivals,
        fraction ? percent_text(*fraction) : "-");
  }
  const int64_t warmup_errors = result.warmup_total.errors();
  if (warmup_errors > 0) {
    out += fmt::format(
        "WARM-UP ERRORS: {} of {} requests in the warm-up failed; the warm-up is excluded, so\n"
        "  they are in no figure below.\n",
        with_thousands(warmup_errors), with_thousands(started_requests(result.warmup_total)));
  }
  if (!result.thresholds_passed()) {
    int failed = 0;
    for (const ThresholdVerdict& v : result.thresholds) failed += v.passed ? 0 : 1;
    out += fmt::format("THRESHOLDS FAILED: {} of {} (listed at the end).\n", failed,
                       result.thresholds.size());
  }
  if (!result.generator_busy_windows.empty()) {
    out += fmt::format(
        "GENERATOR BUSY: in {} measured window(s) the generator used 80% or more of its workers' "
        "cores;\n  there the generator, not the server, may have been the limit.\n",
        result.generator_busy_windows.size());
  }
  if (errors > 0 || never_started > 0 || warmup_errors > 0 || !result.thresholds_passed() ||
      !result.generator_busy_windows.empty()) {
    out += "\n";
  }

  append_latency_table(out, t);
  out += "\n";
  append_outcomes(out, t);
  const std::optional<double> never_share = t.never_started_share();
  out += fmt::format("never started   {} of {} {} offered ({})\n", with_thousands(never_started),
                     with_thousands(t.arrivals), arrivals,
                     never_share ? percent_text(*never_share) : "-");
  out += "\n";
  append_status_codes(out, t);
  out += fmt::format("bytes           {} in, {} out\n", with_thousands(t.bytes_in),
                     with_thousands(t.bytes_out));
  out += fmt::format("connections     {} opened", with_thousands(t.connects));
  if (result.spec.tls) {
    // https: the version the pre-flight handshake agreed, and how many handshakes resumed.
    const std::string version = result.spec.tls->version.value_or("TLS");
    out +=
        fmt::format(" over {}; {} handshakes, {} resumed", version,
                    with_thousands(t.connection.handshakes), with_thousands(t.connection.resumed));
    if (!result.first_tls_failure.empty()) {
      out += "\nfirst TLS error " + result.first_tls_failure;
    }
  }
  if (result.spec.protocol.get() == "h2") {
    const int64_t streams = result.spec.h2_streams.value_or(1);
    out += fmt::format("\n                HTTP/2, {} streams each", with_thousands(streams));
    if (result.h2_server_max_streams) {
      out += fmt::format(" (the server allows {})", with_thousands(*result.h2_server_max_streams));
    }
    out += fmt::format("; {} GOAWAY", with_thousands(t.connection.goaways));
  }
  out += "\n";
  if (!result.observed.empty()) {
    out += "\n";
    append_observed(out, result);
  }
  if (!result.request_names.empty()) {
    out += "\n";
    append_requests_by_name(out, result);
  }
  if (!result.flow_names.empty()) {
    out += "\n";
    append_flows(out, result);
  }
  if (!result.thresholds.empty()) {
    out += "\n";
    append_thresholds(out, result);
  }
  return out;
}

std::string format_observed_summary(const RunResult& result) {
  std::string out;
  append_observed(out, result);
  return out;
}

std::string fit_to_terminal(std::string line, size_t columns) {
  if (columns > 1 && line.size() >= columns) line.resize(columns - 1);
  return line;
}

namespace {

// " of 40s (28s left)"; once the schedule is done (its time up, or the window is the drain after
// it) " of 10s (finishing: draining what is in flight)", never "11s of 10s (0s left)". "" with no
// planned length.
std::string progress_text(const WindowStats& w, const LiveContext& where) {
  if (!where.planned_s) return "";
  // The seconds the line shows, so that "3s of 3s" reads "(0s left)", never "(1s left)".
  const double shown_s = std::round(where.elapsed_s);
  if (w.drain || shown_s > std::round(*where.planned_s)) {
    return fmt::format(" of {:.0f}s (finishing: draining what is in flight)", *where.planned_s);
  }
  return fmt::format(" of {:.0f}s ({:.0f}s left)", *where.planned_s,
                     std::max(0.0, std::round(*where.planned_s) - shown_s));
}

}  // namespace

std::string format_live_line(const WindowStats& last_window, const LiveContext& where) {
  const WindowStats& w = last_window;
  const double elapsed_s = where.elapsed_s;
  const int64_t in_flight = w.in_flight_end;
  const double duration_s = static_cast<double>(w.duration_ns) / 1e9;
  const int64_t rate =
      duration_s > 0 ? std::llround(static_cast<double>(w.responses()) / duration_s) : 0;
  auto ms = [](std::optional<double> value) {
    return value ? fixed_with_thousands(*value, 2) + "ms" : std::string("-");
  };
  std::string line = where.label.empty() ? "" : where.label + "  ";
  line += fmt::format("{:>4.0f}s", elapsed_s);
  line += progress_text(w, where);
  if (where.target) {
    line +=
        where.target_is_rate
            ? "  target " + fixed_with_thousands(*where.target, *where.target < 100 ? 1 : 0) + "/s"
            : "  users " + with_thousands(std::llround(*where.target));
  }
  line += fmt::format("  {} req/s  p50 {}  p99 {}  errors {}  in flight {}", with_thousands(rate),
                      ms(percentile_ms(w.latency_us, 50.0)), ms(percentile_ms(w.latency_us, 99.0)),
                      with_thousands(w.errors()), with_thousands(in_flight));
  if (w.queued_end > 0) line += "  queued " + with_thousands(w.queued_end);
  if (const int64_t never_started = w.count(Outcome::kNeverStarted); never_started > 0) {
    line += "  never started " + with_thousands(never_started);
  }
  if (where.generator_cpu_cores) {
    line += "  generator CPU " + with_thousands(std::llround(*where.generator_cpu_cores * 100)) + "%";
  }
  if (w.warmup) line += "  (warm-up)";
  if (w.drain && !where.planned_s) line += "  (finishing)";
  return line;
}

std::vector<std::string> format_live_panel(const WindowStats& last_window,
                                           const LiveContext& where) {
  const WindowStats& w = last_window;
  const double duration_s = static_cast<double>(w.duration_ns) / 1e9;
  const double rate = duration_s > 0 ? static_cast<double>(w.responses()) / duration_s : 0;
  auto ms = [](std::optional<double> value) {
    return value ? fixed_with_thousands(*value, 2) + "ms" : std::string("-");
  };
  std::vector<std::string> lines;
  std::string head = where.label.empty() ? "run" : where.label;
  head += fmt::format("  {:.0f}s", where.elapsed_s);
  head += progress_text(w, where);
  if (w.warmup) head += "  (warm-up)";
  if (w.drain && !where.planned_s) head += "  (finishing)";
  lines.push_back(std::move(head));

  std::string load = "  rate     " + with_thousands(std::llround(rate)) + "/s";
  if (where.target && where.target_is_rate) {
    load += " of " + fixed_with_thousands(*where.target, *where.target < 100 ? 1 : 0) +
            "/s target";
    if (*where.target > 0) load += fmt::format(" ({:.0f}%)", 100 * rate / *where.target);
  } else if (where.target) {
    load += "  users " + with_thousands(std::llround(*where.target));
  }
  load += "  in flight " + with_thousands(w.in_flight_end);
  if (w.queued_end > 0) load += "  queued " + with_thousands(w.queued_end);
  lines.push_back(std::move(load));

  lines.push_back(fmt::format("  latency  p50 {}  p99 {}  (last {:.0f}s)",
                              ms(percentile_ms(w.latency_us, 50.0)),
                              ms(percentile_ms(w.latency_us, 99.0)), duration_s));

  std::string health = "  errors   " + with_thousands(w.errors()) + "  never started " +
                       with_thousands(w.count(Outcome::kNeverStarted));
  if (where.generator_cpu_cores) {
    health += "  generator CPU " +
              with_thousands(std::llround(*where.generator_cpu_cores * 100)) + "%";
  }
  lines.push_back(std::move(health));
  return lines;
}

}  // namespace proofload::report
