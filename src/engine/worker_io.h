// The worker's clock, event loop and transport: the seam through which its tests drive the real
// Worker in simulated time. Chosen when the worker's sources are compiled, not at run time:
//   - the engine (pl_engine) builds them against the real ones: CLOCK_MONOTONIC, the load loop
//     (epoll, or io_uring as LoadSpec::io says: net/load_loop.h), and a TCP (or TLS) socket per
//     connection;
//   - the worker's simulation test builds the same sources a second time (pl_engine_simulated,
//     with PROOFLOAD_WORKER_SIMULATION) against engine/simulated_io.h: a simulated clock and
//     sockets to a simulated server whose answers are exact.
// So the hot path keeps plain calls (no virtual call, no template on every member of the worker),
// and the load binary's code is what it was before the seam. No binary links both builds.
#pragma once

#include <cstdint>

#ifdef PROOFLOAD_WORKER_SIMULATION
#include "engine/simulated_io.h"
#else
#include "common/clock.h"
#include "net/load_loop.h"
#include "net/transport.h"
#endif

namespace proofload::engine {

#ifdef PROOFLOAD_WORKER_SIMULATION
using WorkerLoop = simulated::Loop;
using WorkerTransport = simulated::Transport;
inline int64_t worker_now() { return simulated::now(); }
#else
using WorkerLoop = net::LoadLoop;
using WorkerTransport = net::Transport;
inline int64_t worker_now() { return monotonic_ns(); }
#endif

}  // namespace proofload::engine
