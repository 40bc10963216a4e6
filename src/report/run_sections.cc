// The tables of a run's summary.md (latency, outcomes, named requests, flows, thresholds,
// observed sources) and the number conventions the short version shares with them (what the run
// does not show is run_limits.cc). Internal to run_report.cc. Pure; thread-safe.
#include "report/run_sections.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "measure/percentile_trust.h"
#include "report/markdown_text.h"
#include "report/numbers.h"
#include "words/numbers.h"

namespace proofload::report::run {

using namespace markdown;  // tables and code (markdown_text.h)
using namespace words;     // numbers (words/numbers.h)

namespace {

const std::string kDash(kNotMeasured);

// A figure a threshold also judged is printed with at least the decimals of the threshold's own
// observed text: that text was widened so that it never reads as the other side of its bound, and
// a table must not undo that by rounding.
int honest_decimals(const RunRecord& v, std::string_view metric, double value, int decimals) {
  const std::string prefix = std::string(metric) + " = ";
  for (const ThresholdRecord& t : v.thresholds) {
    if (!t.observed || !t.observed_text.starts_with(prefix)) continue;
    if (std::abs(*t.observed - value) > 1e-12 * std::max(1.0, std::abs(value))) continue;
    decimals =
        std::max(decimals, decimals_in(std::string_view(t.observed_text).substr(prefix.size())));
  }
  return decimals;
}

std::string mib(double bytes) { return fixed(bytes / (1024.0 * 1024.0), 1) + " MiB"; }

std::string latency_cell(const RunRecord& v, const Percentile* p, std::string_view metric,
                         std::optional<double> ms) {
  if (!ms) return kDash;
  return ms_number(v, metric, *ms) + (p != nullptr && untrusted(v, *p) ? "*" : "");
}

// A Prometheus endpoint's series: counters with their increase, then gauges, up to a dozen.
std::string prometheus_words(const SourceRecord& s) {
  constexpr size_t kShown = 12;
  auto number = [](double v) { return v == std::floor(v) ? count_text(v) : fixed(v, 3); };
  std::vector<std::string> items;
  for (const CounterRecord& c : s.counters) {
    items.push_back(inline_code(c.series) + " +" + number(c.last - c.first) + " (" +
                    number(c.first) + " to " + number(c.last) + ")");
  }
  for (const auto& [name, value] : s.figures) {
    if (name.find("_per_s_") != std::string::npos) continue;  // a counter's rate
    items.push_back(inline_code(name) + " " + number(value));
  }
  if (items.empty()) return "no series";
  std::string out;
  for (size_t i = 0; i < items.size() && i < kShown; ++i) out += (i == 0 ? "" : "; ") + items[i];
  if (items.size() > kShown) {
    out += "; " + count_text(static_cast<double>(items.size() - kShown)) + " more in result.json";
  }
  return out;
}

// What a source's figures say, in words; the figures not described are counted.
std::string figures_words(const SourceRecord& s) {
  std::vector<std::string> parts;
  size_t described = 0;
  auto take = [&](const std::string& name) {
    const std::optional<double> value = s.value(name);
    if (value) ++described;
    return value;
  };
  if (const auto mean = take("cpu_cores_mean")) {
    std::string cpu = "CPU " + cores_text(*mean) + " cores mean";
    const auto user = take("cpu_user_seconds_per_s_mean");
    const auto system = take("cpu_system_seconds_per_s_mean");
    if (user && system)
      cpu += " (user " + cores_text(*user) + ", system " + cores_text(*system) + ")";
    if (const auto max = take("cpu_cores_max")) cpu += ", " + cores_text(*max) + " max";
    if (const auto seconds = take("cpu_seconds")) cpu += " (" + fixed(*seconds, 2) + " CPU-s)";
    if (const auto per = take("cpu_ms_per_request"))
      cpu += ", " + fixed(*per, 3) + " ms per request";
    parts.push_back(cpu);
  }
  if (const auto share = take("cpu_throttled_share_mean")) {
    parts.push_back("throttled in " + percent_text(*share) + " of CPU periods");
  }
  if (const auto quota = take("cpu_quota_cores_end")) {
    parts.push_back("quota " + cores_text(*quota) + " cores");
  }
  // A gauge: its value at the end and its peak over the run, when that differs.
  auto gauge = [&](const std::string& name, const std::string& label, auto words) {
    const auto end = take(name + "_end");
    const auto peak = take(name + "_peak");
    if (!end && !peak) return;
    std::string text = label + (end ? words(*end) + " at the end" : words(*peak) + " peak");
    if (end && peak && *peak != *end) text += ", " + words(*peak) + " peak";
    parts.push_back(text);
  };
  gauge("rss_bytes", "RSS ", mib);
  gauge("memory_bytes", "memory ", mib);
  if (const auto recorded = take("memory_peak_bytes_end")) {
    parts.push_back("the cgroup's own recorded memory peak " + mib(*recorded));
  }
  take("memory_peak_bytes_peak");
  gauge("threads", "", [](double n) { return plural(n, "thread", "threads"); });
  gauge("open_files", "", [](double n) { return plural(n, "open file", "open files"); });
  if (const auto restarts = take("restarts"))
    parts.push_back(plural(*restarts, "restart", "restarts"));
  if (const auto kills = take("oom_kills"))
    parts.push_back(plural(*kills, "OOM kill", "OOM kills"));
  const auto load_start = take("load1_start");
  const auto load_end = take("load1_end");
  const auto load_peak = take("load1_peak");
  const auto load_max = take("load1_max");
  if (const auto highest = load_max ? load_max : load_peak) {
    std::string load = "load average " + fixed(*highest, 2) + " max";
    if (load_start && load_end) {
      load +=
          " (" + fixed(*load_start, 2) + " at the start, " + fixed(*load_end, 2) + " at the end)";
    }
    parts.push_back(load);
  }
  const auto cpus = take("cpu_count_end");
  take("cpu_count_peak");
  take("cpu_busy_share_start");
  take("cpu_busy_share_end");
  if (const auto busy = take("cpu_busy_share_mean")) {
    parts.push_back((cpus ? plural(*cpus, "CPU", "CPUs") + ", " : std::string("CPUs ")) +
                    percent_text(*busy) + " busy (mean)");
  }
  // A Prometheus endpoint: its series by name (the ones ?match= chose, or the first few), each
  // counter with how much it grew over the measured part, so that it can be set against the
  // client's counts; a counter's rates are in result.json.
  if (s.is_prometheus()) return prometheus_words(s);
  const size_t others = s.figures.size() - described;
  if (others > 0) {
    parts.push_back(parts.empty()
                        ? plural(static_cast<double>(others), "figure", "figures") +
                              " (in result.json)"
                        : plural(static_cast<double>(others), "more figure", "more figures") +
                              " in result.json");
  }
  if (parts.empty()) return "no figures";
  std::string out = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) out += "; " + parts[i];
  return out;
}

}  // namespace

bool untrusted(const RunRecord& v, const Percentile& p) {
  return v.requests && *v.requests > 0 &&
         !measure::percentile_trusted(static_cast<int64_t>(*v.requests), p.percentile);
}

std::string ms_number(const RunRecord& v, std::string_view metric, double ms) {
  return fixed(ms,
               metric.empty() ? ms_decimals(ms) : honest_decimals(v, metric, ms, ms_decimals(ms)));
}

std::string share_text(const RunRecord& v, std::string_view metric, double share) {
  return percent_text(share, honest_decimals(v, metric, share, 2));
}

std::string rps_number(const RunRecord& v, std::string_view metric, double rps) {
  return fixed(rps, honest_decimals(v, metric, rps, std::abs(rps) >= 100 ? 0 : 1));
}

std::string executor_of(const RunRecord& v) { return v.spec.executor.value_or(""); }

std::vector<std::pair<double, double>> stages_of(const RunRecord& v) {
  std::vector<std::pair<double, double>> out;
  if (!v.spec.stages) return out;
  for (const result::SpecStage& stage : *v.spec.stages) {
    if (stage.duration_s && stage.target) out.emplace_back(*stage.duration_s, *stage.target);
  }
  return out;
}

std::string count_or_dash(std::optional<double> n) { return n ? count_text(*n) : kDash; }

std::string plural(double n, const std::string& one, const std::string& many) {
  return count_text(n) + " " + (n == 1 ? one : many);
}

// "503", "connect error": an outcome as a reader says it.
std::string cpu_sources_text(const ServerRecord& s) {
  if (s.cpu_sources.size() <= 1) return inline_code(s.cpu_source);
  std::vector<std::string> each;
  for (const std::string& source : s.cpu_sources) each.push_back(inline_code(source));
  return list_text(each) + " added (" + std::to_string(s.cpu_sources.size()) + " instances)";
}

std::string offered_text(const RunRecord& v) {
  if (v.arrivals) return count_text(*v.arrivals) + " " + arrivals_noun(v.spec) + " offered";
  if (v.intended) return count_text(*v.intended) + " intended";
  return "";
}

std::string outcome_words(const std::string& name) {
  if (name == "status_429") return "429";
  if (name == "status_503") return "503";
  if (name.starts_with("other_")) return "other " + name.substr(6);
  std::string out = name;
  std::replace(out.begin(), out.end(), '_', ' ');
  return out;
}

// "windows 3, 4 and 7", the first ten then how many more.
std::string windows_text(const std::vector<int64_t>& windows) {
  std::vector<std::string> items;
  for (size_t i = 0; i < windows.size() && i < 10; ++i) items.push_back(level_text(windows[i]));
  if (windows.size() > 10) items.push_back(fmt::format("{} more", windows.size() - 10));
  return (windows.size() == 1 ? "window " : "windows ") + list_text(items);
}

std::vector<const ThresholdRecord*> failed_thresholds(const RunRecord& v) {
  std::vector<const ThresholdRecord*> failed;
  for (const ThresholdRecord& t : v.thresholds) {
    if (t.passed != true) failed.push_back(&t);
  }
  return failed;
}

std::string observed_words(const ThresholdRecord& t) {
  if (!t.observed_text.empty()) return t.observed_text;
  return t.observed ? fmt::format("{}", *t.observed) : "no data";
}

std::string latency_table(const RunRecord& v) {
  std::string out =
      "## Latency\n\n" +
      table_row({"percentile", "latency ms", "service time ms", "time to first byte ms"}) +
      table_row({"---", "---:", "---:", "---:"});
  bool any_untrusted = false;
  for (const Percentile& p : kPercentiles) {
    out += table_row({p.label, latency_cell(v, &p, p.label, v.latency.*p.value),
                      latency_cell(v, &p, "", v.service_time.*p.value),
                      latency_cell(v, &p, "", v.ttfb.*p.value)});
    any_untrusted = any_untrusted || ((v.latency.*p.value).has_value() && untrusted(v, p));
  }
  for (const auto& [label, member] :
       {std::pair{"max", &Latency::max}, std::pair{"mean", &Latency::mean}}) {
    out += table_row({label, latency_cell(v, nullptr, label, v.latency.*member),
                      latency_cell(v, nullptr, "", v.service_time.*member),
                      latency_cell(v, nullptr, "", v.ttfb.*member)});
  }
  out += "\n";
  if (any_untrusted) {
    out += "\\* fewer than 10 responses at or beyond this percentile: shown, not trusted.\n\n";
  }
  out +=
      "Latency runs from a request's intended start (its scheduled time in open loop, the "
      "moment its connection was ready in closed loop) to the last byte of the answer, so it "
      "includes any wait for a turn. Service time runs from the first byte written, and hides "
      "that wait; time to first byte ends at the answer's first byte. Percentiles are "
      "nearest-rank" +
      (v.requests ? " over " + plural(*v.requests, "response", "responses") : std::string()) +
      "; " + kDash + ": not measured.\n\n";
  return out;
}

std::string outcomes_table(const RunRecord& v) {
  if (v.outcomes.empty()) return "## Outcomes\n\nOutcomes not recorded.\n\n";
  const std::optional<double> started = v.started();
  std::string out = "## Outcomes\n\n" + table_row({"outcome", "requests", "share", "of"}) +
                    table_row({"---", "---:", "---:", "---"});
  for (const auto& [name, count] : v.outcomes) {
    if (name == "never_started") continue;
    if (count == 0 && name != "success") continue;
    const std::string metric = name == "success" ? "" : "rate(" + name + ")";
    // (A plain string, not an optional share: GCC 12 at -O3 misreads the optional as unset.)
    std::string share_cell = kDash;
    if (started && *started > 0) share_cell = share_text(v, metric, count / *started);
    out += table_row({outcome_words(name), count_text(count), share_cell,
                      started ? count_text(*started) + " started" : kDash});
  }
  const double never = v.outcome("never_started").value_or(0);
  out += table_row(
      {"never started", count_text(never),
       v.never_started_share ? share_text(v, "never_started", *v.never_started_share) : kDash,
       v.arrivals || v.intended ? offered_text(v) : kDash});
  out += "\nErrors: " + (v.errors ? count_text(*v.errors) : kDash) + " of " +
         (started ? count_text(*started) : kDash) + " started requests (" +
         (v.error_rate ? share_text(v, "errors", *v.error_rate) : kDash) +
         "): every outcome but success and never started. Never started: due, but no connection "
         "was free in time; counted per arrival (a single request or a whole flow), against the "
         "arrivals offered, and in no latency.";
  std::vector<std::string> codes;
  for (const auto& [code, count] : v.status_codes)
    codes.push_back(code + " × " + count_text(count));
  out +=
      " Status codes: " + (codes.empty() ? std::string("none received") : list_text(codes)) + ".";
  if (v.bytes_in && v.bytes_out) {
    out += " " + count_text(*v.bytes_in) + " bytes in, " + count_text(*v.bytes_out) + " out";
    if (v.connects) out += "; " + plural(*v.connects, "connection", "connections") + " opened";
    out += ".";
  }
  return out + "\n\n";
}

// HTTP/2: the streams asked for and allowed, and the GOAWAYs that moved them.
std::string h2_sentence(const RunRecord& v) {
  std::string out = "Up to " + (v.spec.h2_streams ? count_text(*v.spec.h2_streams) : kDash) +
                    " streams on each connection";
  if (v.h2_server_max_streams) {
    out += "; the server allowed " + count_text(*v.h2_server_max_streams) +
           " (SETTINGS_MAX_CONCURRENT_STREAMS)";
    if (v.spec.h2_streams && *v.h2_server_max_streams < *v.spec.h2_streams) {
      out += ", so that many were used";
    }
  }
  out += ".";
  if (v.h2_goaways && *v.h2_goaways == 0) out += " No GOAWAY from the server.";
  if (v.h2_goaways && *v.h2_goaways > 0) {
    out += " " + plural(*v.h2_goaways, "GOAWAY", "GOAWAYs") +
           " from the server: each connection closed after its last streams, and the streams "
           "the server had not taken count as refused.";
  }
  return out;
}

std::string connections_section(const RunRecord& v) {
  if (!v.connect_time.p50 && !v.spec.tls) return "";  // a file from before, or nothing connected
  const std::string protocol = v.spec.protocol.get() == "h2" ? "HTTP/2" : "HTTP/1.1";
  std::string out = "## Connections\n\n" + protocol + " over ";
  if (!v.spec.tls) {
    out += "plain TCP.";
  } else {
    const std::string version = v.spec.tls->version.value_or("");
    const std::string alpn = v.spec.tls->alpn.value_or("");
    out += (version.empty() ? std::string("TLS") : version) +
           (alpn.empty() ? ", no ALPN protocol agreed." : " (ALPN " + alpn + ").");
  }
  out += "\n\n" + table_row({"", "count", "p50 ms", "p90 ms", "p99 ms", "max ms"}) +
         table_row({"---", "---:", "---:", "---:", "---:", "---:"});
  auto row = [&](const char* label, const std::string& count, const Latency& l) {
    return table_row({label, count, latency_cell(v, nullptr, "", l.p50),
                      latency_cell(v, nullptr, "", l.p90), latency_cell(v, nullptr, "", l.p99),
                      latency_cell(v, nullptr, "", l.max)});
  };
  out += row("TCP connect", v.connects ? count_text(*v.connects) : kDash, v.connect_time);
  if (v.spec.tls) {
    std::string count = v.tls_handshakes ? count_text(*v.tls_handshakes) : kDash;
    if (v.tls_handshakes && v.tls_resumed && *v.tls_handshakes > 0) {
      count += " (" + count_text(*v.tls_resumed) + " resumed, " +
               percent_text(static_cast<double>(*v.tls_resumed) / *v.tls_handshakes, 1) + ")";
    }
    out += row("TLS handshake", count, v.tls_handshake);
  }
  if (v.spec.protocol.get() == "h2") out += "\n" + h2_sentence(v) + "\n";
  out += "\nConnect runs from the connect call to the connected socket";
  if (v.spec.tls) out += ", the handshake from there to its end";
  out += "; a request that had to open a connection counts that time in its latency.";
  if (!v.tls_first_error.empty()) {
    out += " First TLS failure: " + table_cell(v.tls_first_error) + ".";
  }
  return out + "\n\n";
}

std::string named_table(const RunRecord& v) {
  if (v.named.empty()) return "";
  double all = 0;
  for (const NamedRequest& n : v.named) all += n.requests.value_or(0);
  std::string out =
      "## By request\n\n" +
      table_row({"request", "requests", "share of mix", "errors", "error rate", "responses/s",
                 "p50 ms", "p90 ms", "p99 ms"}) +
      table_row({"---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"});
  for (const NamedRequest& n : v.named) {
    auto ms = [&](const char* p, std::optional<double> value) {
      return value ? ms_number(v, std::string(p) + "(" + n.name + ")", *value) : kDash;
    };
    out += table_row(
        {table_cell(n.name), count_or_dash(n.requests),
         n.requests && all > 0 ? percent_text(*n.requests / all, 1) : kDash,
         count_or_dash(n.errors),
         n.error_rate ? share_text(v, "errors(" + n.name + ")", *n.error_rate) : kDash,
         n.throughput_rps ? rps_number(v, "rps(" + n.name + ")", *n.throughput_rps) : kDash,
         ms("p50", n.latency.p50), ms("p90", n.latency.p90), ms("p99", n.latency.p99)});
  }
  return out +
         "\nrequests: ended requests of that name (every outcome). share of mix: of the named "
         "requests that ended. error rate: of that request's own. Requests that failed before one "
         "was picked (never started, or no connection while queued) are in the totals only.\n\n";
}

std::string flows_table(const RunRecord& v) {
  if (v.flows.empty()) return "";
  std::string out = "## Flows\n\n" +
                    table_row({"flow", "started", "succeeded", "failed", "abandoned", "success",
                               "p50 ms", "p99 ms"}) +
                    table_row({"---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"});
  for (const FlowRecord& f : v.flows) {
    out += table_row({table_cell(f.name), count_or_dash(f.started), count_or_dash(f.succeeded),
                      count_or_dash(f.failed), count_or_dash(f.abandoned),
                      f.success_rate
                          ? share_text(v, "rate(flow_success, " + f.name + ")", *f.success_rate)
                          : kDash,
                      f.duration.p50 ? ms_number(v, "", *f.duration.p50) : kDash,
                      f.duration.p99 ? ms_number(v, "", *f.duration.p99) : kDash});
  }
  return out +
         "\nFlows have their own denominator: success is the flows that succeeded of those that "
         "finished (succeeded + failed); abandoned flows, cut short by the end of the run, are in "
         "neither. A flow that fails at its second step is one failed flow, and one successful "
         "and one failed request. p50, p99: whole-flow time of successful flows, think times "
         "included.\n\n";
}

std::string thresholds_table(const RunRecord& v) {
  if (v.thresholds.empty()) return "";
  std::string out = "## Thresholds\n\n" + table_row({"threshold", "observed", "verdict"}) +
                    table_row({"---", "---", "---"});
  for (const ThresholdRecord& t : v.thresholds) {
    const std::string verdict = !t.passed ? "not recorded" : *t.passed ? "passed" : "FAILED";
    out +=
        table_row({table_cell(inline_code(t.expression)), table_cell(observed_words(t)), verdict});
  }
  const size_t failed = failed_thresholds(v).size();
  out += fmt::format("\n{} of {} passed", v.thresholds.size() - failed, v.thresholds.size());
  return out + (failed > 0 ? "; a failed threshold makes the exit code 99.\n\n" : ".\n\n");
}

std::string observed_table(const RunRecord& v) {
  if (!v.observed_recorded) return "";
  std::string out = "## Observed\n\n" +
                    table_row({"source", "spec", "samples", "gaps", "figures"}) +
                    table_row({"---", "---", "---:", "---:", "---"});
  for (const SourceRecord& s : v.sources) {
    std::string gaps = count_or_dash(s.gaps);
    if (!s.error.empty()) gaps += " (last: " + s.error + ")";
    out += table_row({s.is_generator() ? "self (the generator)" : table_cell(s.label),
                      s.source.empty() ? kDash : table_cell(inline_code(s.source)),
                      count_or_dash(s.samples), table_cell(gaps), table_cell(figures_words(s))});
  }
  out +=
      "\nOver the measured part: CPU in cores (1.00 is one core busy all the time), CPU per "
      "completed request, memory in MiB (1,048,576 bytes). A gap is a sample that failed: the "
      "figures have no value there rather than a wrong one.";
  if (v.server && (!v.server->cpu_source.empty() || !v.server->cgroup_source.empty())) {
    const ServerRecord& s = *v.server;
    std::vector<std::string> parts;
    if (!s.cpu_source.empty()) {
      std::string cpu = "its CPU from " + cpu_sources_text(s);
      if (!s.cpu_also_measured_by.empty()) {
        std::vector<std::string> others;
        for (const std::string& o : s.cpu_also_measured_by) others.push_back(inline_code(o));
        cpu += " (" + list_text(others) + " measured it too, not used)";
      }
      parts.push_back(cpu);
    }
    if (!s.cgroup_source.empty()) {
      parts.push_back("its throttling and quota from " + inline_code(s.cgroup_source));
    }
    out += " The server is read by what each source measures, whatever the order of --observe: " +
           list_text(parts) + ".";
  }
  return out + "\n\n";
}

}  // namespace proofload::report::run
