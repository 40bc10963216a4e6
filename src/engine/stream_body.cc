// See stream_body.h.
#include "engine/stream_body.h"

#include <cmath>

namespace proofload::engine {
namespace {

void record_us(measure::HdrHistogram& h, const std::optional<int64_t>& ns) {
  if (ns) h.record(*ns / 1000);
}

}  // namespace

void StreamBody::begin(const workload::StreamRules& rules, int64_t origin_ns,
                       std::array<measure::StreamWindow*, 3> windows) {
  tracker_.start(rules, origin_ns, this);
  if (goodput_ != nullptr) goodput_->reset(tally_);
  windows_ = windows;
  origin_ns_ = origin_ns;
  now_ns_ = origin_ns;
  last_read_ns_ = origin_ns;
  active_ = true;
}

void StreamBody::on_content_gap(int64_t gap_ns) {
  if (goodput_ != nullptr) goodput_->add_gap(tally_, gap_ns);
  for (measure::StreamWindow* w : windows_) {
    if (w != nullptr) w->inter_event_us.record(gap_ns / 1000);
  }
}

void StreamBody::end(workload::StreamEnd how, int64_t now_ns, measure::SpanStreams* span,
                     measure::SpanStreams* named_span) {
  if (!active_) return;
  active_ = false;
  const int64_t duration_ns = now_ns - origin_ns_;
  const workload::StreamFigures& f = tracker_.figures();
  const bool met = how == workload::StreamEnd::kCompleted && goodput_ != nullptr &&
                   goodput_->met(f, duration_ns, tally_);
  for (measure::StreamWindow* w : windows_) {
    if (w != nullptr) record_stream(*w, how, f, duration_ns, met);
  }
  if (how != workload::StreamEnd::kCompleted) return;
  for (measure::SpanStreams* s : {span, named_span}) {
    if (s == nullptr) continue;
    ++s->completed;
    s->events += f.events;
    s->bytes += f.bytes;
    s->tokens += f.tokens;
    if (met) ++s->goodput;
  }
}

void record_stream(measure::StreamWindow& w, workload::StreamEnd end,
                   const workload::StreamFigures& f, int64_t duration_ns, bool met_slo) {
  switch (end) {
    case workload::StreamEnd::kCutShort: ++w.cut_short; return;
    case workload::StreamEnd::kIdleTimeout: ++w.idle_timeout; return;
    case workload::StreamEnd::kMalformed: ++w.malformed; return;
    case workload::StreamEnd::kFixtureMismatch: ++w.fixture_mismatch; return;
    case workload::StreamEnd::kCompleted: break;
  }
  ++w.completed;
  if (met_slo) ++w.goodput;
  w.events += f.events;
  w.content_events += f.content_events;
  w.bytes += f.bytes;
  w.tokens += f.tokens;
  record_us(w.ttfb_us, f.first_byte_ns);
  record_us(w.ttfe_us, f.first_event_ns);
  record_us(w.ttfce_us, f.first_content_ns);
  if (const std::optional<double> tpot = f.tpot_ns()) {
    w.tpot_us.record(static_cast<int64_t>(std::llround(*tpot / 1000)));
  }
  w.duration_us.record(duration_ns / 1000);
}

}  // namespace proofload::engine
