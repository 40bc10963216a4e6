// See segment_codec.h.
#include "experiments/segment_codec.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "measure/hlog.h"
#include "measure/outcome.h"

namespace proofload::experiments {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& key, const std::string& what) {
  throw std::runtime_error("segment file: '" + key + "' " + what);
}

const json& member(const json& j, const char* key) {
  if (!j.is_object()) fail(key, "is inside something that is not an object");
  auto it = j.find(key);
  if (it == j.end()) fail(key, "is missing");
  return *it;
}

int64_t count_of(const json& value, const std::string& key) {
  if (value.is_number_unsigned()) {
    if (value.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) fail(key, "is too large");
    return static_cast<int64_t>(value.get<uint64_t>());
  }
  if (!value.is_number_integer() || value.get<int64_t>() < 0) fail(key, "is not a count");
  return value.get<int64_t>();
}

int64_t count(const json& j, const char* key) { return count_of(member(j, key), key); }

bool flag(const json& j, const char* key) {
  const json& value = member(j, key);
  if (!value.is_boolean()) fail(key, "is not true or false");
  return value.get<bool>();
}

std::string text(const json& j, const char* key) {
  const json& value = member(j, key);
  if (!value.is_string()) fail(key, "is not text");
  return value.get<std::string>();
}

const json& array(const json& j, const char* key) {
  const json& value = member(j, key);
  if (!value.is_array()) fail(key, "is not an array");
  return value;
}

json outcomes_json(const std::array<int64_t, measure::kOutcomeCount>& outcomes) {
  json out = json::object();
  for (int i = 0; i < measure::kOutcomeCount; ++i) {
    if (outcomes[i] != 0) out[std::string(measure::kOutcomeNames[i])] = outcomes[i];
  }
  return out;
}

void outcomes_from_json(const json& j, std::array<int64_t, measure::kOutcomeCount>& outcomes) {
  if (!j.is_object()) fail("outcomes", "is not an object");
  for (const auto& [name, value] : j.items()) {
    int i = 0;
    while (i < measure::kOutcomeCount && measure::kOutcomeNames[i] != name) ++i;
    if (i == measure::kOutcomeCount) fail("outcomes." + name, "is no outcome");
    outcomes[i] = count_of(value, "outcomes." + name);
  }
}

// The streams' counts and histograms, by name, for both directions.
constexpr std::pair<const char*, int64_t measure::StreamWindow::*> kStreamCounts[] = {
    {"completed", &measure::StreamWindow::completed},
    {"cut_short", &measure::StreamWindow::cut_short},
    {"idle_timeout", &measure::StreamWindow::idle_timeout},
    {"malformed", &measure::StreamWindow::malformed},
    {"fixture_mismatch", &measure::StreamWindow::fixture_mismatch},
    {"events", &measure::StreamWindow::events},
    {"content_events", &measure::StreamWindow::content_events},
    {"bytes", &measure::StreamWindow::bytes},
    {"tokens", &measure::StreamWindow::tokens},
    {"goodput", &measure::StreamWindow::goodput},
};
constexpr std::pair<const char*, measure::HdrHistogram measure::StreamWindow::*>
    kStreamHistograms[] = {
        {"ttfb_us", &measure::StreamWindow::ttfb_us},
        {"ttfe_us", &measure::StreamWindow::ttfe_us},
        {"ttfce_us", &measure::StreamWindow::ttfce_us},
        {"tpot_us", &measure::StreamWindow::tpot_us},
        {"duration_us", &measure::StreamWindow::duration_us},
        {"inter_event_us", &measure::StreamWindow::inter_event_us},
};

json streams_json(const measure::StreamWindow& s) {
  json out = json::object();
  for (const auto& [name, field] : kStreamCounts) out[name] = s.*field;
  for (const auto& [name, field] : kStreamHistograms) out[name] = histogram_json(s.*field);
  return out;
}

void streams_from_json(const json& j, measure::StreamWindow& s) {
  for (const auto& [name, field] : kStreamCounts) s.*field = count(j, name);
  for (const auto& [name, field] : kStreamHistograms)
    histogram_from_json(member(j, name), s.*field);
}

constexpr std::pair<const char*, int64_t measure::SpanStreams::*> kSpanStreamCounts[] = {
    {"completed", &measure::SpanStreams::completed}, {"events", &measure::SpanStreams::events},
    {"bytes", &measure::SpanStreams::bytes},         {"tokens", &measure::SpanStreams::tokens},
    {"goodput", &measure::SpanStreams::goodput},
};

json span_streams_json(const measure::SpanStreams& s) {
  json out = json::object();
  for (const auto& [name, field] : kSpanStreamCounts) out[name] = s.*field;
  return out;
}

measure::SpanStreams span_streams_from_json(const json& j) {
  measure::SpanStreams s;
  for (const auto& [name, field] : kSpanStreamCounts) s.*field = count(j, name);
  return s;
}

json sources_json(const std::vector<measure::SourceWindow>& sources) {
  json out = json::array();
  for (const measure::SourceWindow& s : sources) {
    json headers = json::array();
    for (const measure::LimitHeader& h : s.headers) {
      headers.push_back({{"name", h.name}, {"first", h.first}, {"last", h.last}});
    }
    out.push_back(
        {{"let_through", s.let_through},
         {"limited", s.limited},
         {"other", s.other},
         {"let_through_before_first_429",
          s.let_through_before_first_429 ? json(*s.let_through_before_first_429) : json(nullptr)},
         {"headers", headers}});
  }
  return out;
}

std::vector<measure::SourceWindow> sources_from_json(const json& j) {
  std::vector<measure::SourceWindow> out;
  for (const json& s : j) {
    measure::SourceWindow w;
    w.let_through = count(s, "let_through");
    w.limited = count(s, "limited");
    w.other = count(s, "other");
    if (const json& first = member(s, "let_through_before_first_429"); !first.is_null()) {
      w.let_through_before_first_429 = count_of(first, "let_through_before_first_429");
    }
    const json& headers = array(s, "headers");
    if (headers.size() > measure::kMaxLimitHeaders) fail("headers", "holds too many headers");
    for (const json& h : headers) {
      w.headers.push_back({text(h, "name"), text(h, "first"), text(h, "last")});
    }
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace

json histogram_json(const measure::HdrHistogram& h) {
  if (h.total_count() == 0) return nullptr;
  const std::vector<uint8_t> bytes = h.encode_compressed();
  const measure::HdrHistogram::ExactTotals exact = h.exact_totals();
  return {{"hdr", measure::base64_encode(bytes.data(), bytes.size())},
          {"sum", {exact.sum_high, exact.sum_low}},
          {"clamped", exact.clamped}};
}

void histogram_from_json(const json& j, measure::HdrHistogram& h) {
  // `h` arrives with its field's configuration (a default-constructed WindowStats' or totals').
  if (j.is_null()) {
    h.reset();
    return;
  }
  const std::vector<uint8_t> bytes = measure::base64_decode(text(j, "hdr"));
  measure::HdrHistogram decoded =
      measure::HdrHistogram::decode_compressed(bytes.data(), bytes.size());
  // Merged with what the run recorded into the same field: it must have that field's range.
  if (!decoded.same_configuration(h)) fail("hdr", "is not of this histogram's range and precision");
  h = std::move(decoded);
  const json& sum = array(j, "sum");
  if (sum.size() != 2 || !sum[0].is_number_integer() || !sum[1].is_number_unsigned()) {
    fail("sum", "is not two whole numbers");
  }
  if (!h.restore_exact_totals(
          {sum[0].get<int64_t>(), sum[1].get<uint64_t>(), count(j, "clamped")})) {
    fail("sum", "does not fit the histogram's counts");
  }
}

json window_stats_json(const measure::WindowStats& w) {
  json status = json::object();
  for (int code = 0; code < measure::kStatusSlots; ++code) {
    if (w.status[code] != 0) status[std::to_string(code)] = w.status[code];
  }
  json named = json::array();
  for (const auto& outcomes : w.request_outcomes) named.push_back(outcomes_json(outcomes));
  return {{"index", w.index},
          {"start_ns", w.start_ns},
          {"duration_ns", w.duration_ns},
          {"warmup", w.warmup},
          {"drain", w.drain},
          {"latency_us", histogram_json(w.latency_us)},
          {"service_us", histogram_json(w.service_us)},
          {"ttfb_us", histogram_json(w.ttfb_us)},
          {"send_lag_us", histogram_json(w.send_lag_us)},
          {"outcomes", outcomes_json(w.outcomes)},
          {"status", status},
          {"intended", w.intended},
          {"arrivals", w.arrivals},
          {"bytes_in", w.bytes_in},
          {"bytes_out", w.bytes_out},
          {"connects", w.connects},
          {"connection",
           {{"connect_us", histogram_json(w.connection.connect_us)},
            {"handshake_us", histogram_json(w.connection.handshake_us)},
            {"handshakes", w.connection.handshakes},
            {"resumed", w.connection.resumed},
            {"goaways", w.connection.goaways}}},
          {"in_flight_end", w.in_flight_end},
          {"queued_end", w.queued_end},
          {"sources", sources_json(w.sources)},
          {"streams", streams_json(w.streams)},
          {"request_outcomes", named}};
}

measure::WindowStats window_stats_from_json(const json& j) {
  measure::WindowStats w;
  w.index = count(j, "index");
  w.start_ns = count(j, "start_ns");
  w.duration_ns = count(j, "duration_ns");
  w.warmup = flag(j, "warmup");
  w.drain = flag(j, "drain");
  histogram_from_json(member(j, "latency_us"), w.latency_us);
  histogram_from_json(member(j, "service_us"), w.service_us);
  histogram_from_json(member(j, "ttfb_us"), w.ttfb_us);
  histogram_from_json(member(j, "send_lag_us"), w.send_lag_us);
  outcomes_from_json(member(j, "outcomes"), w.outcomes);
  const json& status = member(j, "status");
  if (!status.is_object()) fail("status", "is not an object");
  for (const auto& [code, value] : status.items()) {
    size_t used = 0;
    int slot = -1;
    try {
      slot = std::stoi(code, &used);
    } catch (const std::exception&) {
    }
    if (used != code.size() || slot < 0 || slot >= measure::kStatusSlots) {
      fail("status." + code, "is no status slot");
    }
    w.status[slot] = count_of(value, "status." + code);
  }
  w.intended = count(j, "intended");
  // A segment file from before arrivals were counted apart: its arrivals were its intended.
  w.arrivals = j.contains("arrivals") ? count(j, "arrivals") : w.intended;
  w.bytes_in = count(j, "bytes_in");
  w.bytes_out = count(j, "bytes_out");
  w.connects = count(j, "connects");
  const json& connection = member(j, "connection");
  histogram_from_json(member(connection, "connect_us"), w.connection.connect_us);
  histogram_from_json(member(connection, "handshake_us"), w.connection.handshake_us);
  w.connection.handshakes = count(connection, "handshakes");
  w.connection.resumed = count(connection, "resumed");
  w.connection.goaways = count(connection, "goaways");
  w.in_flight_end = count(j, "in_flight_end");
  w.queued_end = count(j, "queued_end");
  w.sources = sources_from_json(array(j, "sources"));
  streams_from_json(member(j, "streams"), w.streams);
  for (const json& outcomes : array(j, "request_outcomes")) {
    outcomes_from_json(outcomes, w.request_outcomes.emplace_back());
  }
  return w;
}

json span_json(const measure::MeasuredSpan& span) {
  const measure::SpanCounts& c = span.counts;
  return {{"responses", c.responses},
          {"successes", c.successes},
          {"iterations", c.iterations},
          {"iterations_succeeded", c.iterations_succeeded},
          {"flows", c.flows},
          {"flows_succeeded", c.flows_succeeded},
          {"streams", span_streams_json(c.streams)},
          {"duration_ns", span.duration_ns},
          {"extended_to_last_response", span.extended_to_last_response}};
}

measure::MeasuredSpan span_from_json(const json& j) {
  measure::MeasuredSpan span;
  measure::SpanCounts& c = span.counts;
  c.responses = count(j, "responses");
  c.successes = count(j, "successes");
  c.iterations = count(j, "iterations");
  c.iterations_succeeded = count(j, "iterations_succeeded");
  c.flows = count(j, "flows");
  c.flows_succeeded = count(j, "flows_succeeded");
  c.streams = span_streams_from_json(member(j, "streams"));
  span.duration_ns = count(j, "duration_ns");
  span.extended_to_last_response = flag(j, "extended_to_last_response");
  return span;
}

json named_totals_json(const measure::NamedTotals& named) {
  json requests = json::array();
  for (const measure::RequestStats& r : named.requests) {
    requests.push_back({{"latency_us", histogram_json(r.latency_us)},
                        {"outcomes", outcomes_json(r.outcomes)},
                        {"span_responses", r.span_responses},
                        {"span_successes", r.span_successes},
                        {"streams", r.streams ? streams_json(*r.streams) : json(nullptr)},
                        {"span_streams", span_streams_json(r.span_streams)}});
  }
  json flows = json::array();
  for (const measure::FlowStats& f : named.flows) {
    flows.push_back({{"started", f.started},
                     {"succeeded", f.succeeded},
                     {"failed", f.failed},
                     {"abandoned", f.abandoned},
                     {"duration_us", histogram_json(f.duration_us)}});
  }
  return {{"requests", requests}, {"flows", flows}};
}

measure::NamedTotals named_totals_from_json(const json& j) {
  measure::NamedTotals named;
  for (const json& r : array(j, "requests")) {
    measure::RequestStats& stats = named.requests.emplace_back();
    histogram_from_json(member(r, "latency_us"), stats.latency_us);
    outcomes_from_json(member(r, "outcomes"), stats.outcomes);
    stats.span_responses = count(r, "span_responses");
    stats.span_successes = count(r, "span_successes");
    if (const json& streams = member(r, "streams"); !streams.is_null()) {
      streams_from_json(streams, stats.streams.emplace());
    }
    stats.span_streams = span_streams_from_json(member(r, "span_streams"));
  }
  for (const json& f : array(j, "flows")) {
    measure::FlowStats& stats = named.flows.emplace_back();
    stats.started = count(f, "started");
    stats.succeeded = count(f, "succeeded");
    stats.failed = count(f, "failed");
    stats.abandoned = count(f, "abandoned");
    histogram_from_json(member(f, "duration_us"), stats.duration_us);
  }
  return named;
}

json sampler_figures_json(const std::vector<observe::SamplerFigures>& figures) {
  json out = json::array();
  for (const observe::SamplerFigures& s : figures) {
    json values = json::object();
    for (const observe::Figure& f : s.figures.figures) values[f.name] = f.value;
    json counters = json::array();
    for (const observe::CounterSpan& c : s.figures.counters) {
      counters.push_back({{"name", c.name}, {"start", c.start}, {"end", c.end}});
    }
    out.push_back({{"spec", s.spec},
                   {"samples", s.figures.samples},
                   {"gaps", s.figures.gaps},
                   {"last_error", s.figures.last_error},
                   {"figures", values},
                   {"counters", counters}});
  }
  return out;
}

std::vector<observe::SamplerFigures> sampler_figures_from_json(const json& j) {
  if (!j.is_array()) fail("observed", "is not an array");
  std::vector<observe::SamplerFigures> out;
  for (const json& s : j) {
    observe::SamplerFigures& f = out.emplace_back();
    f.spec = text(s, "spec");
    f.figures.samples = static_cast<int>(count(s, "samples"));
    f.figures.gaps = static_cast<int>(count(s, "gaps"));
    f.figures.last_error = text(s, "last_error");
    const json& values = member(s, "figures");
    if (!values.is_object()) fail("figures", "is not an object");
    for (const auto& [name, value] : values.items()) {
      if (!value.is_number()) fail("figures." + name, "is not a number");
      f.figures.figures.push_back({name, value.get<double>()});
    }
    for (const json& c : array(s, "counters")) {
      const json& start = member(c, "start");
      const json& end = member(c, "end");
      if (!start.is_number() || !end.is_number()) fail("counters", "hold a value not a number");
      f.figures.counters.push_back({text(c, "name"), start.get<double>(), end.get<double>()});
    }
  }
  return out;
}

}  // namespace proofload::experiments
