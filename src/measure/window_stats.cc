// Merging and counting helpers for WindowStats.
#include "measure/window_stats.h"

namespace proofload::measure {

int64_t WindowStats::ended() const {
  int64_t n = 0;
  for (int64_t c : outcomes) n += c;
  return n;
}

int64_t WindowStats::responses() const {
  int64_t n = 0;
  for (int i = 0; i < kOutcomeCount; ++i) {
    if (outcome_has_response(static_cast<Outcome>(i))) n += outcomes[i];
  }
  return n;
}

int64_t WindowStats::errors() const {
  int64_t n = 0;
  for (int i = 0; i < kOutcomeCount; ++i) {
    if (outcome_is_error(static_cast<Outcome>(i))) n += outcomes[i];
  }
  return n;
}

std::optional<double> WindowStats::never_started_share() const {
  if (arrivals <= 0) return std::nullopt;
  return static_cast<double>(count(Outcome::kNeverStarted)) / static_cast<double>(arrivals);
}

void ConnectionTimes::merge(const ConnectionTimes& other) {
  connect_us.merge(other.connect_us);
  handshake_us.merge(other.handshake_us);
  handshakes += other.handshakes;
  resumed += other.resumed;
  goaways += other.goaways;
}

void ConnectionTimes::clear() {
  connect_us.reset();
  handshake_us.reset();
  handshakes = resumed = goaways = 0;
}

SourceWindow WindowStats::limit_counts() const {
  SourceWindow counts;
  for (int code = 200; code < 300; ++code) counts.let_through += status[code];
  counts.limited = status[429];
  counts.other = ended() - counts.let_through - counts.limited;
  return counts;
}

void WindowStats::merge(const WindowStats& other) {
  latency_us.merge(other.latency_us);
  service_us.merge(other.service_us);
  ttfb_us.merge(other.ttfb_us);
  send_lag_us.merge(other.send_lag_us);
  for (int i = 0; i < kOutcomeCount; ++i) outcomes[i] += other.outcomes[i];
  for (int i = 0; i < kStatusSlots; ++i) status[i] += other.status[i];
  intended += other.intended;
  arrivals += other.arrivals;
  bytes_in += other.bytes_in;
  bytes_out += other.bytes_out;
  connects += other.connects;
  connection.merge(other.connection);
  in_flight_end += other.in_flight_end;
  queued_end += other.queued_end;
  if (sources.size() < other.sources.size()) sources.resize(other.sources.size());
  for (size_t i = 0; i < other.sources.size(); ++i) sources[i].merge(other.sources[i]);
  streams.merge(other.streams);
  if (request_outcomes.size() < other.request_outcomes.size()) {
    request_outcomes.resize(other.request_outcomes.size());
  }
  for (size_t r = 0; r < other.request_outcomes.size(); ++r) {
    for (int i = 0; i < kOutcomeCount; ++i) request_outcomes[r][i] += other.request_outcomes[r][i];
  }
}

void WindowStats::clear() {
  latency_us.reset();
  service_us.reset();
  ttfb_us.reset();
  send_lag_us.reset();
  connection.clear();
  outcomes.fill(0);
  status.fill(0);
  intended = arrivals = bytes_in = bytes_out = connects = in_flight_end = queued_end = 0;
  for (SourceWindow& source : sources) source = SourceWindow{};  // keeps the vector's size
  streams.clear();
  for (auto& counts : request_outcomes) counts.fill(0);  // keeps the vector's size
}

}  // namespace proofload::measure
