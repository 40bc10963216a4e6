// Monotonic time in nanoseconds: the one clock every part of a run measures with.
// Thread-safe (clock_gettime through the vDSO, no system call).
#pragma once

#include <time.h>

#include <cstdint>

namespace proofload {

constexpr int64_t kNsPerUs = 1'000;
constexpr int64_t kNsPerMs = 1'000'000;
constexpr int64_t kNsPerS = 1'000'000'000;

// A duration in ns as whole microseconds (truncated), the unit the histograms record.
constexpr int64_t micros_of(int64_t ns) { return ns / kNsPerUs; }

// A duration in ns as seconds, for results and messages.
constexpr double seconds_of(int64_t ns) { return static_cast<double>(ns) / kNsPerS; }

inline int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * kNsPerS + ts.tv_nsec;
}

inline int64_t wall_clock_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * kNsPerS + ts.tv_nsec;
}

}  // namespace proofload
