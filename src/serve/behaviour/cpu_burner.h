// Busy CPU work per request: spins until the calling thread's own CPU time has advanced by
// the amount asked, so CPU limits, throttling and contention stretch the wall time just as
// they do for a real CPU-heavy handler. Thread-safe: touches only the caller's thread.
#pragma once

#include <cstdint>

namespace proofload::serve {

// CPU time consumed so far by the calling thread (CLOCK_THREAD_CPUTIME_ID), in ns.
int64_t thread_cpu_ns();

// Burns at least `cpu_ns` of this thread's CPU time (user time mostly; the clock reads are
// system calls and count too), overshooting by a few microseconds at most. Wall time is at
// least cpu_ns, more when the thread is preempted or throttled. cpu_ns <= 0 returns at once.
void burn_cpu(int64_t cpu_ns);

}  // namespace proofload::serve
