// burn_cpu: the calling thread's CPU time advances by the amount asked (at least it, and within
// 10% or 1.5 ms over, whichever is more), measured by the same per-thread clock a CPU limit acts
// on. A round of work is 1-2 us; what the kernel counts to the thread while it is interrupted (an
// interrupt's handler, a virtual machine's host) can add a millisecond under a loaded sanitizer
// run (5.84 ms for 5 once), which says nothing of the burner.
#include "serve/behaviour/cpu_burner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

namespace proofload::serve {
namespace {

void expect_burns(int64_t cpu_ns) {
  int64_t before_ns = thread_cpu_ns();
  burn_cpu(cpu_ns);
  int64_t used_ns = thread_cpu_ns() - before_ns;
  EXPECT_GE(used_ns, cpu_ns);
  EXPECT_LE(used_ns, cpu_ns + std::max<int64_t>(cpu_ns / 10, 1'500'000));
}

TEST(CpuBurnerTest, FiveMillisecondsOfThreadCpu) { expect_burns(5'000'000); }

TEST(CpuBurnerTest, FiftyMillisecondsOfThreadCpu) { expect_burns(50'000'000); }

TEST(CpuBurnerTest, ZeroOrNegativeReturnsAtOnce) {
  int64_t before_ns = thread_cpu_ns();
  burn_cpu(0);
  burn_cpu(-5);
  EXPECT_LT(thread_cpu_ns() - before_ns, 1'000'000);
}

TEST(CpuBurnerTest, CountsOnlyTheCallingThread) {
  // Two threads burning at once each get their own amount: the clock is per thread, so one
  // thread's work does not end the other's early.
  int64_t used_ns[2] = {0, 0};
  auto work = [&used_ns](int index) {
    int64_t before_ns = thread_cpu_ns();
    burn_cpu(20'000'000);
    used_ns[index] = thread_cpu_ns() - before_ns;
  };
  std::thread a(work, 0);
  std::thread b(work, 1);
  a.join();
  b.join();
  for (int64_t used : used_ns) {
    EXPECT_GE(used, 20'000'000);
    EXPECT_LE(used, 22'000'000);
  }
}

}  // namespace
}  // namespace proofload::serve
