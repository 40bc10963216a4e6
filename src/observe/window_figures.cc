// See window_figures.h. A window's counters run from the last good sample at its start to the
// last good sample at its end; samples are matched to a boundary within a small slack, because a
// sampler aligned to the window grid takes its sample a little after the boundary.
#include "observe/window_figures.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/clock.h"

namespace proofload::observe {
namespace {

constexpr int64_t kMaxSlackNs = 100 * kNsPerMs;

// A sample's readings by name. A Prometheus endpoint's sample holds thousands of readings and a
// window looks each one up in every sample: a linear search made that quadratic (100,000 series
// kept a 6 s run going for 43 s).
class ReadingIndex {
 public:
  explicit ReadingIndex(const Sample& sample) {
    by_name_.reserve(sample.readings.size());
    for (const Reading& r : sample.readings) by_name_.emplace(r.name, &r);
  }
  const Reading* find(const std::string& name) const {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : it->second;
  }

 private:
  std::unordered_map<std::string_view, const Reading*> by_name_;
};

// Counters counted as events (their increase), not as rates.
bool is_event_counter(const std::string& name) { return name == "restarts" || name == "oom_kills"; }

}  // namespace

std::optional<double> WindowFigures::value(const std::string& name) const {
  for (const Figure& f : figures) {
    if (f.name == name) return f.value;
  }
  return std::nullopt;
}

void SampleSeries::add(Sample sample) { samples_.push_back(std::move(sample)); }

WindowFigures SampleSeries::figures(int64_t start_ns, int64_t end_ns, int64_t slack_ns) {
  WindowFigures out;
  out.start_ns = start_ns;
  out.end_ns = end_ns;
  const int64_t slack = std::min(kMaxSlackNs, slack_ns);
  const int64_t low = start_ns + slack;
  const int64_t high = end_ns + slack;
  while (!samples_.empty() && samples_.front().at_ns <= low) {
    if (samples_.front().ok) base_ = std::move(samples_.front());
    samples_.pop_front();
  }
  const Sample* first = nullptr;
  const Sample* top = nullptr;
  for (const Sample& s : samples_) {
    if (s.at_ns > high) break;
    if (!s.ok) {
      ++out.gaps;
      out.last_error = s.error;
      continue;
    }
    ++out.samples;
    if (first == nullptr) first = &s;
    top = &s;
  }
  if (top == nullptr) return out;
  const Sample* base = base_ ? &*base_ : first;

  // Counters: increase from the base to the top sample.
  if (base != top) {
    const ReadingIndex base_readings(*base);
    const double elapsed_s = static_cast<double>(top->at_ns - base->at_ns) / kNsPerS;
    std::optional<double> periods;
    std::optional<double> throttled;
    for (const Reading& r : top->readings) {
      if (r.kind != MetricKind::kCounter) continue;
      // A counter the base sample lacks was born since: a Prometheus series appears at its first
      // increment (a route's request counter on its first request), and counters start at zero,
      // so it counts from 0. Skipping it lost the first window's requests of every such series.
      const Reading* before = base_readings.find(r.name);
      const double base_value = before != nullptr ? before->value : 0.0;
      if (r.value < base_value) continue;  // reset: unknown
      const double increase = r.value - base_value;
      out.counters.push_back({r.name, base_value, r.value});
      if (r.name == "cpu_periods") periods = increase;
      if (r.name == "cpu_throttled_periods") throttled = increase;
      if (is_event_counter(r.name)) {
        out.figures.push_back({r.name, increase});
      } else if (elapsed_s > 0) {
        out.figures.push_back(
            {r.name == "cpu_seconds" ? "cpu_cores" : r.name + "_per_s", increase / elapsed_s});
      }
    }
    if (periods && throttled && *periods > 0) {
      out.figures.push_back({"cpu_throttled_share", *throttled / *periods});
    }
  }
  // Gauges: the value at the end, and the peak over the window's samples.
  std::vector<ReadingIndex> window_readings;
  for (const Sample& s : samples_) {
    if (s.at_ns > high) break;
    if (s.ok) window_readings.emplace_back(s);
  }
  for (const Reading& r : top->readings) {
    if (r.kind != MetricKind::kGauge) continue;
    double peak = r.value;
    double sum = 0;
    int count = 0;
    for (const ReadingIndex& readings : window_readings) {
      if (const Reading* v = readings.find(r.name)) {
        peak = std::max(peak, v->value);
        sum += v->value;
        ++count;
      }
    }
    if (r.name.ends_with("_share")) {
      out.figures.push_back({r.name, sum / count});  // count >= 1: top is among them
      continue;
    }
    out.figures.push_back({r.name, r.value});
    out.figures.push_back({r.name + "_peak", peak});
  }
  return out;
}

}  // namespace proofload::observe
