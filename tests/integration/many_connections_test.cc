// Many connections end to end (label `heavy`: ten thousand sockets take minutes under the
// sanitizers, whose runs leave it out).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "process.h"

namespace proofload::testing {
namespace {

using nlohmann::json;

// Ten thousand connections on one worker, from a soft file-descriptor limit of 1,024 that
// proofload raises itself, over each backend: every connection opens and every request is
// answered; the connections close on the worker's thread (an io_uring loop admits no other), and
// more of them than the ring's queue holds close in one go. From 127.0.0.2 (one worker, one
// source): ten thousand ports of 127.0.0.1 in use or waiting out TIME_WAIT would leave other
// tests' servers, which pick their ports on 127.0.0.1, finding theirs taken.
TEST(ManyConnections, TenThousandOnOneWorkerOverEachBackend) {
  ServeProcess server;
  for (const char* io : {"uring", "epoll"}) {
    const std::string out = make_temp_dir(std::string("io-10k-") + io);
    const Completed run = run_to_completion(
        {"/usr/bin/prlimit", "--nofile=1024:", proofload_binary(), "run", server.url(), "-c",
         "10000", "--sources", "127.0.0.2", "-d", "3s", "--io", io, "-q", "--out", out},
        std::chrono::seconds(100));
    ASSERT_EQ(run.exit_code, 0) << run.err;
    // Bounded by time, not by -n: 20,000 requests could all be answered on the connections that
    // opened first (9,392 had, on a loaded machine) before the last ones opened.
    const json summary = json::parse(read_file(out + "/result.json"))["summary"];
    EXPECT_EQ(summary["connects"], 10000) << io;
    EXPECT_GE(summary["outcomes"]["success"].get<int64_t>(), 10000) << io;
    EXPECT_EQ(summary["outcomes"]["success"], summary["requests"]) << summary.dump();
  }
}

}  // namespace
}  // namespace proofload::testing
