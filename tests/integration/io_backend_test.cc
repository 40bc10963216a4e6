// `--io` end to end: the run records the backend it used; io_uring denied (a seccomp profile, as
// containers have) falls back to epoll with one line and the run goes on; PROOFLOAD_IO sets the
// default; a bad value is one line and exit 2. The rest of the suite runs over each backend (CI:
// `make test` over the default, epoll; the sanitizer runs with PROOFLOAD_IO=uring).
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "process.h"

namespace proofload::testing {
namespace {

using nlohmann::json;

json read_result(const std::string& dir) { return json::parse(read_file(dir + "/result.json")); }

constexpr const char* kFallbackNote =
    "proofload: io_uring cannot be used here (Operation not permitted): using epoll";

// A run of 200 requests, with PROOFLOAD_IO unset (the suite may run with it set).
std::vector<std::string> run_args(const ServeProcess& server, const std::string& out) {
  return {"/usr/bin/env",
          "-u",
          "PROOFLOAD_IO",
          proofload_binary(),
          "run",
          server.url(),
          "-n",
          "200",
          "-c",
          "4",
          "--workers",
          "1",
          "-q",
          "--out",
          out};
}

TEST(IoBackend, TheRunRecordsTheBackendItUsedAndEachAnswersEveryRequest) {
  ServeProcess server;
  for (const char* io : {"uring", "epoll"}) {
    const std::string out = make_temp_dir(std::string("io-") + io);
    std::vector<std::string> args = run_args(server, out);
    args.insert(args.end(), {"--io", io});
    const Completed run = run_to_completion(args);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const json result = read_result(out);
    EXPECT_EQ(result["spec"]["io"], std::string(io) == "uring" ? "io_uring" : "epoll");
    EXPECT_EQ(result["summary"]["outcomes"]["success"], 200);
    // Latency is send lag plus service time, request by request: the means add up.
    const json& s = result["summary"];
    EXPECT_NEAR(s["latency_ms"]["mean"].get<double>(),
                s["send_lag_ms"]["mean"].get<double>() + s["service_time_ms"]["mean"].get<double>(),
                0.002);
    EXPECT_NE(read_file(out + "/summary.md").find("--io " + std::string(io)), std::string::npos)
        << "Reproduce repeats the backend asked for";
  }
}

// TLS over either backend: with io_uring the TLS sockets wait in the epoll set the ring watches,
// reconnecting and resuming too.
TEST(IoBackend, TlsRunsOverEitherBackend) {
  const std::string dir = make_temp_dir("io-tls");
  const std::string ca = dir + "/serve.pem";
  ServeProcess server({"--tls-self-signed", ca});
  const std::string url = "https://127.0.0.1:" + std::to_string(server.port()) + "/";
  for (const char* io : {"default", "uring"}) {
    const std::string out = dir + "/" + io;
    std::vector<std::string> args = {"/usr/bin/env",
                                     "-u",
                                     "PROOFLOAD_IO",
                                     proofload_binary(),
                                     "run",
                                     url,
                                     "-H",
                                     "Connection: close",
                                     "-c",
                                     "2",
                                     "-n",
                                     "100",
                                     "--cacert",
                                     ca,
                                     "-q",
                                     "-o",
                                     out};
    if (std::string(io) == "uring") args.insert(args.end(), {"--io", "uring"});
    const Completed run = run_to_completion(args);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const json result = read_result(out);
    EXPECT_EQ(result["spec"]["io"], std::string(io) == "uring" ? "io_uring" : "epoll");
    EXPECT_EQ(result["summary"]["outcomes"]["success"], 100);
    EXPECT_GE(result["summary"]["tls"]["resumed"].get<int64_t>(), 90);
  }
}

TEST(IoBackend, IoUringDeniedFallsBackToEpollWithOneLine) {
  ServeProcess server;
  for (bool by_env : {false, true}) {
    const std::string out = make_temp_dir("io-denied");
    std::vector<std::string> args = {DENY_IO_URING_BINARY};
    for (const std::string& a : run_args(server, out)) args.push_back(a);
    if (by_env) {
      args[3] = "PROOFLOAD_IO=uring";  // env PROOFLOAD_IO=uring instead of env -u PROOFLOAD_IO
      args.erase(args.begin() + 2);
    } else {
      args.insert(args.end(), {"--io", "uring"});
    }
    const Completed run = run_to_completion(args);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.err, std::string(kFallbackNote) + "\n");
    const json result = read_result(out);
    EXPECT_EQ(result["spec"]["io"], "epoll");
    EXPECT_EQ(result["summary"]["outcomes"]["success"], 200);
  }
}

TEST(IoBackend, EpollByDefaultSaysNothingWhereIoUringIsDenied) {
  ServeProcess server;
  const std::string out = make_temp_dir("io-epoll");
  std::vector<std::string> args = {DENY_IO_URING_BINARY};
  for (const std::string& a : run_args(server, out)) args.push_back(a);
  const Completed run = run_to_completion(args);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  EXPECT_EQ(read_result(out)["spec"]["io"], "epoll");
}

TEST(IoBackend, ProofloadIoSetsTheDefault) {
  ServeProcess server;
  const std::string out = make_temp_dir("io-env");
  const Completed by_env =
      run_to_completion({"/usr/bin/env", "PROOFLOAD_IO=uring", proofload_binary(), "run",
                         server.url(), "-n", "50", "-c", "2", "-q", "--out", out});
  ASSERT_EQ(by_env.exit_code, 0) << by_env.err;
  EXPECT_EQ(read_result(out)["spec"]["io"], "io_uring");
}

TEST(IoBackend, ABadBackendIsOneLineAndExit2) {
  const Completed flag = run_to_completion(
      {proofload_binary(), "run", "http://127.0.0.1:1/", "--io", "kqueue", "-n", "1"});
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_NE(flag.err.find("--io"), std::string::npos) << flag.err;
  const Completed env =
      run_to_completion({"/usr/bin/env", "PROOFLOAD_IO=kqueue", proofload_binary(), "run",
                         "http://127.0.0.1:1/", "-n", "1"});
  EXPECT_EQ(env.exit_code, 2);
  EXPECT_EQ(env.err, "proofload: error: PROOFLOAD_IO is 'kqueue': it must be uring or epoll\n");
}

}  // namespace
}  // namespace proofload::testing
