// See stream_body.h.
#include "engine/stream_body.h"

#include <cmath>

namespace proofload::engine {
namespace {

void record_us(measure::HdrHistogram& h, const std::optional<int64_t>& ns) {
  if (ns) h.record(*ns / 1000);
}

}  // namespace

void record_stream(measure::StreamWindow& w, workload::StreamEnd end,
                   const workload::StreamFigures& f, int64_t duration_ns) {
  switch (end) {
    case workload::StreamEnd::kCutShort: ++w.cut_short; return;
    case workload::StreamEnd::kMalformed: ++w.malformed; return;
    case workload::StreamEnd::kFixtureMismatch: ++w.fixture_mismatch; return;
    case workload::StreamEnd::kCompleted: break;
  }
  ++w.completed;
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
