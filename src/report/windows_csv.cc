// windows.csv rows. Column order is part of the file's contract (scripts index by name, but
// some by position): add columns only at the end.
#include "report/windows_csv.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

namespace proofload::report {
namespace {

using measure::Outcome;

std::string cell(std::optional<double> value, int decimals) {
  return value ? fmt::format("{:.{}f}", *value, decimals) : std::string();
}

}  // namespace

// A streaming run's columns: how streams ended in the window, their rates and times.
constexpr std::string_view kStreamColumns =
    ",streams_completed,streams_cut_short,streams_idle_timeout,streams_malformed,"
    "streams_fixture_mismatch,streams_goodput,events_per_s,stream_bytes_per_s,tokens_per_s,"
    "ttfce_p50_ms,ttfce_p99_ms,inter_event_p50_ms,inter_event_p99_ms,tpot_p50_ms";

std::string windows_csv_header(const std::vector<std::string>& observed_columns, bool streams) {
  std::string observed = streams ? std::string(kStreamColumns) : std::string();
  for (const std::string& column : observed_columns) observed += "," + column;
  return "index,start_s,duration_s,warmup,requests,intended,throughput_rps,errors,never_started,"
         "status_429,status_503,other_4xx,other_5xx,connect_error,timeout,reset,protocol_error,"
         "p50_ms,p90_ms,p99_ms,max_ms,mean_ms,service_p50_ms,service_p99_ms,bytes_in,bytes_out,"
         "in_flight,queued,check_failed,p95_ms,ttfb_p50_ms,ttfb_p95_ms,goodput_rps,drain,tls_error,"
         "connects,connect_p99_ms,tls_handshakes,tls_resumed,tls_handshake_p99_ms,refused,"
         "stream_reset,h2_goaways,arrivals" +
         observed + "\n";
}

namespace {

// "label.figure" -> that figure of that source in the window, if it has one.
std::optional<double> observed_cell(const WindowSummary& w, const std::string& column) {
  const size_t dot = column.find('.');
  if (dot == std::string::npos) return std::nullopt;
  for (const ObservedFigures& o : w.observed) {
    if (o.label == std::string_view(column).substr(0, dot)) return o.value(column.substr(dot + 1));
  }
  return std::nullopt;
}

// Whole numbers (bytes, counts) as they are; shares and cores with 4 decimals.
std::string observed_text(double value) {
  return value == std::floor(value) ? fmt::format("{:.0f}", value) : fmt::format("{:.4f}", value);
}

}  // namespace

std::string windows_csv_row(const WindowSummary& w,
                            const std::vector<std::string>& observed_columns, bool streams) {
  const double duration_s = static_cast<double>(w.duration_ns) / 1e9;
  std::optional<double> throughput;
  std::optional<double> goodput;
  if (duration_s > 0) {
    throughput = static_cast<double>(w.responses()) / duration_s;
    goodput = static_cast<double>(w.count(Outcome::kSuccess)) / duration_s;
  }
  std::string row = fmt::format(
      "{},{:.3f},{:.3f},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},"
      "{}"
      ",{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
      w.index, static_cast<double>(w.start_ns) / 1e9, duration_s, w.warmup ? 1 : 0, w.responses(),
      w.intended, cell(throughput, 1), w.errors(), w.count(Outcome::kNeverStarted),
      w.count(Outcome::kStatus429), w.count(Outcome::kStatus503), w.count(Outcome::kOther4xx),
      w.count(Outcome::kOther5xx), w.count(Outcome::kConnectError), w.count(Outcome::kTimeout),
      w.count(Outcome::kReset), w.count(Outcome::kProtocolError), cell(w.latency.p50_ms, 3),
      cell(w.latency.p90_ms, 3), cell(w.latency.p99_ms, 3), cell(w.latency.max_ms, 3),
      cell(w.latency.mean_ms, 3), cell(w.service.p50_ms, 3), cell(w.service.p99_ms, 3), w.bytes_in,
      w.bytes_out, w.in_flight_end, w.queued_end, w.count(Outcome::kCheckFailed),
      cell(w.latency.p95_ms, 3), cell(w.ttfb.p50_ms, 3), cell(w.ttfb.p95_ms, 3), cell(goodput, 1),
      w.drain ? 1 : 0, w.count(Outcome::kTlsError), w.connects, cell(w.connect.p99_ms, 3),
      w.tls_handshakes, w.tls_resumed, cell(w.tls_handshake.p99_ms, 3), w.count(Outcome::kRefused),
      w.count(Outcome::kStreamReset), w.h2_goaways, w.arrivals);
  if (observed_columns.empty() && !streams) return row;
  row.pop_back();  // the newline: the stream and observed cells follow
  if (streams) {
    const result::StreamsRecord s = w.streams.value_or(result::StreamsRecord{});
    const auto count = [](const std::optional<int64_t>& n) {
      return std::to_string(n.value_or(0));
    };
    row += fmt::format(",{},{},{},{},{},{},{},{},{},{},{},{},{},{}", count(s.completed),
                       count(s.cut_short), count(s.idle_timeout), count(s.malformed),
                       count(s.fixture_mismatch), s.goodput ? std::to_string(*s.goodput) : "",
                       cell(s.events_per_s, 1), cell(s.bytes_per_s, 1), cell(s.tokens_per_s, 1),
                       cell(s.ttfce.p50, 3), cell(s.ttfce.p99, 3), cell(s.inter_event.p50, 3),
                       cell(s.inter_event.p99, 3), cell(s.tpot.p50, 3));
  }
  for (const std::string& column : observed_columns) {
    const std::optional<double> value = observed_cell(w, column);
    row += "," + (value ? observed_text(*value) : std::string());
  }
  return row + "\n";
}

std::string windows_csv(const RunResult& result) {
  const bool streams = result.spec.streams();
  std::string out = windows_csv_header(result.observed_columns, streams);
  for (const WindowSummary& w : result.windows) {
    out += windows_csv_row(w, result.observed_columns, streams);
  }
  return out;
}

}  // namespace proofload::report
