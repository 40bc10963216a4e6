// See soak_windows.h.
#include "experiments/soak_windows.h"

#include "common/clock.h"

namespace proofload::experiments {
namespace {

// Floor division: a ramp moment (negative) belongs to the window before the hold's first.
int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

std::optional<double> ms_at(const measure::HdrHistogram& h, double percentile) {
  if (h.total_count() == 0) return std::nullopt;
  return static_cast<double>(h.value_at_percentile(percentile)) / 1000;
}

}  // namespace

SoakWindowFolder::SoakWindowFolder(int64_t window_ns, int64_t ramp_ns, bool goodput)
    : window_ns_(window_ns), ramp_ns_(ramp_ns), goodput_(goodput) {}

int64_t SoakWindowFolder::index_of(int64_t since_hold_ns) const {
  return floor_div(since_hold_ns, window_ns_);
}

std::optional<analyze::SoakWindowRow> SoakWindowFolder::add(const measure::WindowStats& w,
                                                            int64_t observer_gaps,
                                                            const std::string& gap_reason) {
  const int64_t since_hold_ns = w.start_ns - ramp_ns_;
  std::optional<analyze::SoakWindowRow> done;
  if (w.drain) {
    // What was in flight when the schedule ended, answered (or timed out) after it: it was
    // started in the window in progress, and the run counts it, so the soak does too. It adds
    // outcomes, not time.
    if (!index_) return done;
  } else {
    const int64_t index = index_of(since_hold_ns);
    if (index_ && *index_ != index) done = take();
    if (!index_) {
      index_ = index;
      start_ns_ = since_hold_ns;
    }
    duration_ns_ += w.duration_ns;
  }
  // Never-started requests are failures of the soak: the schedule wanted them and no answer came.
  requests_ += w.ended();
  errors_ += w.errors() + w.count(measure::Outcome::kNeverStarted);
  status_429_ += w.count(measure::Outcome::kStatus429);
  responses_ += w.responses();
  if (w.latency_us.total_count() > 0 && w.latency_us.max() > slowest_us_) {
    slowest_us_ = w.latency_us.max();
    slowest_at_ns_ = since_hold_ns;
  }
  latency_us_.merge(w.latency_us);
  streams_.merge(w.streams);
  observer_gaps_ += observer_gaps;
  if (observer_gap_.empty()) observer_gap_ = gap_reason;
  return done;
}

std::optional<analyze::SoakWindowRow> SoakWindowFolder::finish() {
  if (!index_ || requests_ == 0) return std::nullopt;
  return take();
}

analyze::SoakWindowRow SoakWindowFolder::take() {
  analyze::SoakWindowRow row;
  row.index = *index_;
  row.ramp = row.index < 0;
  row.start_s = seconds_of(start_ns_);
  row.duration_s = seconds_of(duration_ns_);
  row.requests = requests_;
  row.errors = errors_;
  row.status_429 = status_429_;
  row.p50_ms = ms_at(latency_us_, 50);
  row.p95_ms = ms_at(latency_us_, 95);
  row.p99_ms = ms_at(latency_us_, 99);
  if (slowest_us_ >= 0) {
    row.slowest_ms = static_cast<double>(slowest_us_) / 1000;
    row.slowest_at_s = seconds_of(slowest_at_ns_);
  }
  row.throughput_rps =
      duration_ns_ > 0 ? static_cast<double>(responses_) / seconds_of(duration_ns_) : 0;
  if (streams_.ended() > 0) {
    row.ttft_p95_ms = ms_at(streams_.ttfce_us, 95);
    row.itl_p99_ms = ms_at(streams_.inter_event_us, 99);
    if (duration_ns_ > 0) {
      row.tokens_per_s = static_cast<double>(streams_.tokens) / seconds_of(duration_ns_);
    }
    if (goodput_) {
      row.stream_goodput =
          static_cast<double>(streams_.goodput) / static_cast<double>(streams_.ended());
    }
  }
  streams_.clear();
  row.observer_gaps = observer_gaps_;
  row.observer_gap = std::move(observer_gap_);
  observer_gaps_ = 0;
  observer_gap_.clear();
  index_.reset();
  duration_ns_ = requests_ = errors_ = status_429_ = responses_ = 0;
  slowest_us_ = -1;
  slowest_at_ns_ = 0;
  latency_us_.reset();
  return row;
}

}  // namespace proofload::experiments
