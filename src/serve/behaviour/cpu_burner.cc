// burn_cpu: integer work in short rounds between reads of the thread's CPU clock.
// Thread-safe; no shared state.
#include "serve/behaviour/cpu_burner.h"

#include <time.h>

namespace proofload::serve {
namespace {

// One round of work: about 1-2 us on a current core, short enough that the overshoot past
// the target is small, long enough that the clock reads (system calls) are a minor share.
constexpr int kStepsPerRound = 2048;

// The result of the work goes here so the compiler cannot drop it.
thread_local volatile uint64_t burn_sink = 0;

}  // namespace

int64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

void burn_cpu(int64_t cpu_ns) {
  if (cpu_ns <= 0) return;
  const int64_t end_ns = thread_cpu_ns() + cpu_ns;
  uint64_t x = burn_sink | 1;
  do {
    for (int i = 0; i < kStepsPerRound; ++i) {
      // xorshift: a dependency chain the CPU cannot skip or vectorise away.
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
    }
    burn_sink = x;
  } while (thread_cpu_ns() < end_ns);
}

}  // namespace proofload::serve
