// The windows a run's report.html draws, thinned as they are read so that a run of any length
// is held in bounded memory and drawn as a page a browser can open. A run of up to
// kMaxDrawnPoints windows is drawn window by window, exactly. A longer one (a day of 1 s windows,
// a million windows of a long soak run) is drawn in groups of consecutive windows, at most
// kMaxDrawnPoints of them: the group size doubles each time the points would pass the bound, so
// the groups are equal (the last may be short). A group never mixes the warm-up, the measured part
// and the drain. How a group reads (a chart's point stays honest about what it covers):
//   - start_s is its first window's, duration_s the windows' sum;
//   - counts (intended, never_started, each outcome) are added;
//   - throughput_rps and the observed figures are averaged over the group's time, except an
//     observed `*_peak`, which is the group's highest;
//   - latency and stream percentiles (latency_ms, streams) are the group's highest: a spike in
//     one window stays visible.
// Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace proofload::report {

class DrawnWindows {
 public:
  static constexpr size_t kMaxDrawnPoints = 8192;

  // One window of result.json's windows[], in order; only the fields report.html draws
  // (html::kWindowFields) are kept. A window that is not an object is skipped.
  void add(nlohmann::json window);

  int64_t windows() const { return windows_; }  // added so far
  size_t group() const { return group_; }       // windows a point stands for, at most

  // The points, in order (each a window, or a group read as above).
  nlohmann::json take();

 private:
  struct Point {
    nlohmann::json window;
    size_t windows = 1;
    // The seconds each observed figure's mean covers ("source\nname"), once windows are merged
    // (a window's own figures cover its duration_s).
    std::map<std::string, double> observed_s;
  };
  static double observed_seconds(const Point& point, const std::string& key);
  static void merge(Point& into, Point&& next);
  static bool same_phase(const nlohmann::json& a, const nlohmann::json& b);

  std::vector<Point> points_;
  size_t group_ = 1;
  int64_t windows_ = 0;
};

}  // namespace proofload::report
