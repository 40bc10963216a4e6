// Injected failures for a route: for each request, none or one kind of failure, drawn with
// the configured probabilities; and the windows of its faults scheduled at stated times. Immutable
// after construction; share it between threads, each drawing with its own Rng (make_rng), no lock.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "common/rng.h"

namespace proofload::serve {

enum class Failure : uint8_t {
  kNone,
  kStatus500,        // answer 500 Internal Server Error
  kStatus503,        // answer 503 Service Unavailable
  kReset,            // close the connection without answering (RST)
  kGarbage,          // bytes that are not HTTP instead of a response
  kTrickle,          // a correct response whose body arrives slowly
  kOversizedHeader,  // a response header larger than clients accept
};
constexpr size_t kFailureKinds = 6;  // kinds besides kNone

// The name used in route files and reports: "none", "500", "503", "reset", "garbage",
// "trickle", "oversized_header".
std::string_view failure_name(Failure failure);

struct FailProbabilities {
  double status_500 = 0;
  double status_503 = 0;
  double reset = 0;
  double garbage = 0;
  double trickle = 0;
  double oversized_header = 0;
};

class FailPicker {
 public:
  FailPicker() = default;  // never fails
  // Each probability in [0, 1] and their sum at most 1 (UsageError otherwise).
  explicit FailPicker(const FailProbabilities& probabilities);

  bool enabled() const { return thresholds_.back() > 0; }

  // One 64-bit draw and at most six comparisons; no allocation.
  Failure pick(Rng& rng) const {
    uint64_t draw = rng() >> 11;  // uniform on [0, 2^53)
    for (size_t i = 0; i < kFailureKinds; ++i) {
      if (draw < thresholds_[i]) return static_cast<Failure>(i + 1);
    }
    return Failure::kNone;
  }

 private:
  // Cumulative probabilities scaled to 2^53: kind i is picked when the draw falls in
  // [thresholds_[i-1], thresholds_[i]).
  std::array<uint64_t, kFailureKinds> thresholds_{};
};

// When a scheduled fault is in force: [begin_ns, end_ns) from the server's time zero.
struct FaultWindow {
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
};

// The index of the first window that holds `elapsed_ns`, or -1: faults listed first win where
// they overlap. A pure function of elapsed time (tests need no clock); a linear scan, as a
// route has a handful of faults.
inline int first_fault_at(std::span<const FaultWindow> windows, int64_t elapsed_ns) {
  for (size_t i = 0; i < windows.size(); ++i) {
    if (elapsed_ns >= windows[i].begin_ns && elapsed_ns < windows[i].end_ns) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace proofload::serve
