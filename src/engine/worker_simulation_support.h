// What worker_simulation_test's files share: one worker's whole run against the simulated
// server (engine/simulated_io.h), and the loads and checks its cases are written in.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "engine/simulated_io.h"
#include "engine/window_mailbox.h"
#include "engine/worker.h"

namespace proofload::engine::simulation {

// The lead before the schedule starts, as the engine gives it (connections opened up front).
constexpr int64_t kLeadNs = 50 * kNsPerMs;

struct Result {
  measure::WindowStats measured;              // the totals of the measured part
  std::vector<measure::WindowStats> windows;  // as the coordinator merges them
  simulated::ServerStats server;
  std::string failure;
};

inline LoadSpec open_loop(double rate_per_s, int64_t duration_ns, int pool, int most) {
  LoadSpec spec;
  spec.executor = Executor::kOpenLoop;
  spec.profile = schedule::Profile::constant(rate_per_s, duration_ns);
  spec.connections = pool;
  spec.max_connections = most;
  return spec;
}

inline LoadSpec closed_loop(int users, int64_t duration_ns) {
  LoadSpec spec;
  spec.executor = Executor::kClosedLoop;
  spec.profile = schedule::Profile::constant(users, duration_ns);
  spec.connections = users;
  spec.max_connections = users;
  return spec;
}

// One worker's whole run against the simulated server.
inline Result run_worker(LoadSpec spec, const simulated::ServerModel& model) {
  simulated::World world(model);
  spec.workload = workload::Workload::fixed("GET / HTTP/1.1\r\nHost: sim\r\n\r\n", false);
  RunControl control;
  WindowMailbox mailbox(1);
  Result result;
  {
    Worker worker(spec, 0, world.now() + kLeadNs, control, mailbox);
    worker.run();
    result.failure = worker.failure();
  }  // its connections close into the world
  while (std::optional<measure::WindowStats> window = mailbox.next_merged()) {
    result.windows.push_back(*window);
  }
  result.measured = mailbox.measured_total();
  result.server = world.stats();
  return result;
}

// HdrHistogram's 3 significant digits: a recorded value reads back within 0.1%.
inline void expect_latency_us(int64_t measured_us, int64_t truth_us) {
  EXPECT_NEAR(static_cast<double>(measured_us), static_cast<double>(truth_us),
              static_cast<double>(truth_us) * 0.001 + 1)
      << "truth " << truth_us << " us";
}

}  // namespace proofload::engine::simulation
