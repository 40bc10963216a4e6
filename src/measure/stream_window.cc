// See stream_window.h.
#include "measure/stream_window.h"

namespace proofload::measure {

void StreamWindow::merge(const StreamWindow& other) {
  completed += other.completed;
  cut_short += other.cut_short;
  idle_timeout += other.idle_timeout;
  malformed += other.malformed;
  fixture_mismatch += other.fixture_mismatch;
  events += other.events;
  content_events += other.content_events;
  bytes += other.bytes;
  tokens += other.tokens;
  goodput += other.goodput;
  ttfb_us.merge(other.ttfb_us);
  ttfe_us.merge(other.ttfe_us);
  ttfce_us.merge(other.ttfce_us);
  tpot_us.merge(other.tpot_us);
  duration_us.merge(other.duration_us);
  inter_event_us.merge(other.inter_event_us);
}

void StreamWindow::clear() {
  completed = cut_short = idle_timeout = malformed = fixture_mismatch = 0;
  events = content_events = bytes = tokens = goodput = 0;
  ttfb_us.reset();
  ttfe_us.reset();
  ttfce_us.reset();
  tpot_us.reset();
  duration_us.reset();
  inter_event_us.reset();
}

}  // namespace proofload::measure
