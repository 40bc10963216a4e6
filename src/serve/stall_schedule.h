// When the built-in server pauses, like a garbage collector: stalls of a fixed length that begin
// at start + first, then every `every` after. A pure function of time, so tests use fake clocks.
// Immutable after construction; safe to share between threads.
#pragma once

#include <cstdint>

namespace proofload::serve {

class StallSchedule {
 public:
  StallSchedule() = default;  // never stalls
  // Precondition (checked by ServerOptions::validate): 0 < length_ns < every_ns, first_ns >= 0.
  StallSchedule(int64_t start_ns, int64_t first_ns, int64_t every_ns, int64_t length_ns)
      : first_begin_ns_(start_ns + first_ns), every_ns_(every_ns), length_ns_(length_ns) {}

  bool enabled() const { return length_ns_ > 0; }

  // The end of the stall window that contains `now_ns`, or 0 when `now_ns` is outside every
  // stall (windows are half-open: [begin, begin + length)).
  int64_t stall_end_ns(int64_t now_ns) const {
    if (!enabled() || now_ns < first_begin_ns_) return 0;
    int64_t since_first_ns = now_ns - first_begin_ns_;
    int64_t begin_ns = now_ns - since_first_ns % every_ns_;
    int64_t end_ns = begin_ns + length_ns_;
    return now_ns < end_ns ? end_ns : 0;
  }

 private:
  int64_t first_begin_ns_ = 0;
  int64_t every_ns_ = 1;
  int64_t length_ns_ = 0;
};

}  // namespace proofload::serve
