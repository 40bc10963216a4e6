// Bad input gives one clear line on stderr and exit code 2, before anything is sent; a bad
// server's answers are counted as outcomes, never a crash.
#include <gtest/gtest.h>
#include <sched.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <memory>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "process.h"
#include "raw_server.h"

namespace proofload::testing {
namespace {

using nlohmann::json;

// Runs proofload with `args` and expects exit 2 with a single "proofload: error: ..." line
// that mentions `expected`.
void expect_usage_error(const std::vector<std::string>& args, const std::string& expected) {
  std::vector<std::string> command = {proofload_binary()};
  command.insert(command.end(), args.begin(), args.end());
  // Refused, never hanging; 60 s because a sanitizer build reads a 256 MiB file up to its
  // limit about fifteen times slower than a release one (20 s ran out under TSan).
  auto run = run_to_completion(command, std::chrono::seconds(60));
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_EQ(run.err.rfind("proofload: error: ", 0), 0u) << run.err;
  EXPECT_NE(run.err.find(expected), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
}

TEST(BadInput, MalformedUrl) { expect_usage_error({"run", "http//nohost"}, "URL"); }
TEST(BadInput, UnsupportedScheme) { expect_usage_error({"run", "ftp://127.0.0.1/"}, "ftp"); }
TEST(BadInput, UnknownFlag) {
  expect_usage_error({"run", "http://127.0.0.1:1/", "--no-such-flag"}, "--no-such-flag");
}
TEST(BadInput, NobodyListens) {
  // Port 1 on loopback: nothing listens there on a test machine.
  expect_usage_error({"run", "http://127.0.0.1:1/", "-d", "1s"}, "cannot connect to 127.0.0.1:1");
}
TEST(BadInput, NameDoesNotResolve) {
  expect_usage_error({"run", "http://no-such-host.invalid:8080/", "-d", "1s"}, "cannot resolve");
}
TEST(BadInput, ZeroConnections) {
  expect_usage_error({"run", "http://127.0.0.1:1/", "-c", "0"}, "-c must be at least 1");
}
TEST(BadInput, NegativeRate) {
  expect_usage_error({"run", "http://127.0.0.1:1/", "--rate=-5"}, "rate");
}
TEST(BadInput, RateWithAClosedLoop) {
  expect_usage_error({"run", "http://127.0.0.1:1/", "--executor", "closed", "--rate", "5"},
                     "open-loop");
}
TEST(BadInput, BadDuration) { expect_usage_error({"run", "http://127.0.0.1:1/", "-d", "ten"}, "ten"); }
TEST(BadInput, BadStages) {
  expect_usage_error({"run", "http://127.0.0.1:1/", "--stages", "10s"}, "stage");
}
TEST(BadInput, BadHeader) {
  expect_usage_error({"run", "http://127.0.0.1:1/", "-H", "no colon here"}, "header");
}
TEST(BadInput, MissingBodyFile) {
  expect_usage_error({"run", "http://127.0.0.1:1/", "--body-file", "/no/such/file"}, "/no/such/file");
}
TEST(BadInput, NoSubcommand) { expect_usage_error({}, "subcommand"); }

// Every way of asking for a load meets the same caps, and numbers that do not fit are refused.
TEST(BadInput, StageTargetsAreCappedAsRatesAndConnectionsAre) {
  expect_usage_error({"run", "http://127.0.0.1:1/", "--executor", "open", "--stages", "1s:1e18"},
                     "above 1000000000 requests/s");
  expect_usage_error({"run", "http://127.0.0.1:1/", "--stages", "1s:1e18"},
                     "above 1000000 connections");
  expect_usage_error({"run", "http://127.0.0.1:1/", "-c", "2000000"}, "-c must be at most 1000000");
}

TEST(BadInput, NumbersThatDoNotFitAreRefusedNotBent) {
  // -n 0 once meant "no limit", a seed past 2^64 saturated, a long run overflowed.
  expect_usage_error({"run", "http://127.0.0.1:1/", "-n", "0"}, "-n must be at least 1");
  expect_usage_error({"run", "http://127.0.0.1:1/", "--seed", "18446744073709551616"},
                     "--seed must be a whole number");
  expect_usage_error({"run", "http://127.0.0.1:1/", "--seed", "-1"}, "--seed must be");
  expect_usage_error({"run", "http://127.0.0.1:1/", "-d", "9223372036s", "--warmup", "2s"},
                     "at most ten years");
}

TEST(BadInput, AHeaderWithAControlCharacterIsRefusedWithoutItsValue) {
  for (const char* header : {"Authorization: Bearer s3cret\x01", "X-Token: s3cret\x7f",
                             "Authorization: s3cret\x1b[2J"}) {
    auto run = run_to_completion({proofload_binary(), "run", "http://127.0.0.1:1/", "-H", header},
                                 std::chrono::seconds(20));
    EXPECT_EQ(run.exit_code, 2) << header;
    EXPECT_NE(run.err.find("control character"), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("s3cret"), std::string::npos) << "the value was echoed: " << run.err;
  }
  auto no_colon = run_to_completion(
      {proofload_binary(), "run", "http://127.0.0.1:1/", "-H", "Authorization Bearer s3cret"},
      std::chrono::seconds(20));
  EXPECT_EQ(no_colon.exit_code, 2);
  EXPECT_EQ(no_colon.err.find("s3cret"), std::string::npos) << no_colon.err;
}

// A file the user names is read up to a stated size: /dev/zero once read until bad_alloc (exit 1),
// a 1 GB one-line file took 5.2 GB; a directory is one clear line.
TEST(BadInput, FilesAreReadUpToAStatedSizeAndADirectoryIsNoFile) {
  expect_usage_error({"run", "http://127.0.0.1:1/", "-m", "POST", "--body-file", "/dev/zero"},
                     "--body-file '/dev/zero' is larger than 64 MiB");
  const std::string dir = make_temp_dir("file-is-dir");
  expect_usage_error({"run", "http://127.0.0.1:1/", "-m", "POST", "--body-file", dir},
                     "cannot read --body-file '" + dir + "': it is a directory");
  expect_usage_error({"analyze", "/dev/zero"}, "table '/dev/zero' is larger than 64 MiB");
  expect_usage_error({"analyze", dir}, "it is a directory");
  const std::string scenario = dir + "/zero.yaml";
  write_file(scenario, "requests:\n  r: {path: /, body: '${file:/dev/zero}'}\n");
  expect_usage_error({"run", scenario, "http://127.0.0.1:1/"},
                     "secret file '/dev/zero' is larger than 64 KiB");
  write_file(scenario, "data:\n  x: {file: /dev/zero}\nrequests:\n  r: {path: '/${x}'}\n");
  expect_usage_error({"run", scenario, "http://127.0.0.1:1/"},
                     "data file '/dev/zero' is larger than 256 MiB");
  write_file(scenario, "data:\n  x: {file: " + dir + "}\nrequests:\n  r: {path: '/${x}'}\n");
  expect_usage_error({"run", scenario, "http://127.0.0.1:1/"}, "it is a directory");
  expect_usage_error({"serve", "--routes", "/dev/zero"},
                     "routes file '/dev/zero' is larger than 16 MiB");
}

// --plan checks everything and reaches nothing: every command that sends load refuses an
// observer it could never make, and takes one that names what is not there (yet): a pid, a
// cgroup, a name that does not resolve, a cluster with no kubectl. (--plan let a misspelt
// observer through, to fail only when the load was about to start.)
TEST(BadInput, PlanChecksEveryObserversFormAndLooksAtNothing) {
  const std::string dir = make_temp_dir("plan-observe");
  write_file(dir + "/matrix.yaml", "checks:\n  lookup: {path: /lookup}\nrun: {duration: 1s}\n");
  const std::string url = "http://127.0.0.1:1/";
  const std::vector<std::vector<std::string>> commands = {
      {"run", url},
      {"ladder", url, "--rates", "10,20"},
      {"soak", url, "--rate", "10", "-d", "3m"},
      {"probe", url, "--sources", "2"},
      {"compare", dir + "/matrix.yaml", "--a", url, "--b", "http://127.0.0.1:2/"},
      {"sizing", url, "--configs", "a,b", "--apply", "true", "--concurrency", "2"}};
  for (const std::vector<std::string>& command : commands) {
    SCOPED_TRACE(command[0]);
    auto with = [&](std::initializer_list<std::string> more) {
      std::vector<std::string> args = command;
      args.insert(args.end(), more);
      args.push_back("--plan");
      return args;
    };
    expect_usage_error(with({"--observe", "bogus:thing"}), "unknown observer 'bogus:thing'");
    expect_usage_error(with({"--observe", "pid:abc"}), "is not a process id");
    expect_usage_error(with({"--observe", "prom:"}), "needs a URL");
    expect_usage_error(with({"--observe", "k8s:no-selector"}), "k8s:");
    expect_usage_error(with({"--observe", "cgroup:"}), "needs a path");
    std::vector<std::string> named = {proofload_binary()};
    for (const std::string& arg :
         with({"--observe", "pid:999999999", "--observe", "pidfile:" + dir + "/none.pid",
               "--observe", "cgroup:/no/such/group", "--observe",
               "prom:http://nowhere.invalid:9090/metrics", "--observe", "k8s:shop/app=none"})) {
      named.push_back(arg);
    }
    const Completed plan = run_to_completion(named, std::chrono::seconds(60));
    EXPECT_EQ(plan.exit_code, 0) << plan.err;
    EXPECT_NE(plan.out.find("Nothing was sent (--plan)."), std::string::npos) << plan.out;
  }
  // compare's observers of one side are observers too.
  expect_usage_error({"compare", dir + "/matrix.yaml", "--a", url, "--b", "http://127.0.0.1:2/",
                      "--a-observe", "bogus:thing", "--plan"},
                     "unknown observer 'bogus:thing'");
}

TEST(BadInput, ATableOfMoreRowsThanALadderHasIsRefusedAtTheRowPastTheLimit) {
  const std::string dir = make_temp_dir("table-rows");
  std::string table = "level,achieved_rps,error_rate,p99_ms\n";
  for (int i = 1; i <= 10'001; ++i) table += std::to_string(i) + "," + std::to_string(i) + ",0,5\n";
  write_file(dir + "/levels.csv", table);
  expect_usage_error({"analyze", dir + "/levels.csv", "--slo", "p99<100ms", "--out", dir + "/a"},
                     "levels.csv:10002: more than 10000 rows");
  // A number past 1e15 overflowed every sum (analyze printed inf/s and -nan%).
  write_file(dir + "/big.csv", "level,achieved_rps,error_rate,p99_ms\n1,1e300,0,5\n");
  expect_usage_error({"analyze", dir + "/big.csv", "--slo", "p99<100ms", "--out", dir + "/b"},
                     "is above 1e15");
}

// The disk fills up during a run (a tmpfs with room for the reserve and a few pages, in a mount
// namespace of this test's own, which the proofload it starts inherits). The run once ended
// with result.json "running", no summary printed and the error as "Input/output error".
TEST(BadDisk, AFullDiskStopsTheRunWithTheSummaryPrintedAndResultJsonFinished) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs (CI runs as root)";
  ASSERT_EQ(::unshare(CLONE_NEWNS), 0) << std::strerror(errno);
  ASSERT_EQ(::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr), 0) << std::strerror(errno);
  const std::string disk = make_temp_dir("full-disk");
  // The reserve (1 MiB) and four pages: result.json, windows.csv and latency.hlog take one each.
  const std::string size = "size=" + std::to_string((1 << 20) + 4 * 4096);
  ASSERT_EQ(::mount("tmpfs", disk.c_str(), "tmpfs", 0, size.c_str()), 0) << std::strerror(errno);
  ServeProcess server;
  const std::string out = disk + "/out";
  // -q: off a terminal, progress is a line per window; the failure is what must be one line.
  const Completed run = run_to_completion({proofload_binary(), "run", server.url(), "-c", "1",
                                           "--workers", "1", "-d", "60s", "-q", "-o", out},
                                          std::chrono::seconds(50));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_NE(run.err.find("No space left on device; the run stopped there"), std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find("Input/output error"), std::string::npos) << run.err;
  EXPECT_NE(run.out.find("INTERRUPTED"), std::string::npos) << "no summary printed: " << run.out;
  const json result = json::parse(read_file(out + "/result.json"));
  EXPECT_EQ(result["status"], "interrupted");
  EXPECT_TRUE(result["end_reason"].get<std::string>().starts_with("stopped: cannot write "))
      << result["end_reason"];
  EXPECT_FALSE(read_file(out + "/summary.md").empty());
  EXPECT_EQ(run_to_completion({proofload_binary(), "report", out}).exit_code, 0);
  ::umount2(disk.c_str(), MNT_DETACH);
}

// `proofload serve --port 0 FLAGS` under a shell's `ulimit ULIMIT`; its port from the first line.
struct LimitedServe {
  LimitedServe(const std::string& ulimit, const std::string& flags)
      : process({"/bin/sh", "-c", "ulimit " + ulimit + " && exec " + proofload_binary() +
                                      " serve --port 0 " + flags}) {
    const auto line = process.read_stdout_line(std::chrono::seconds(10));
    const std::string prefix = "listening on 127.0.0.1:";
    if (line && line->starts_with(prefix)) port = std::stoi(line->substr(prefix.size()));
  }
  // The soft limit of open files the server runs with, from /proc.
  long soft_fd_limit() const {
    std::ifstream limits("/proc/" + std::to_string(process.pid()) + "/limits");
    std::string line;
    while (std::getline(limits, line)) {
      if (line.starts_with("Max open files")) return std::stol(line.substr(26));
    }
    return -1;
  }
  // Everything it wrote on stderr, once stopped.
  std::string stop() {
    process.signal(SIGTERM);
    process.wait(std::chrono::seconds(10));
    return process.err();
  }
  Process process;
  int port = 0;
};

// A connected socket to 127.0.0.1:port that has sent one GET and read its answer's first bytes.
int answered_connection(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const std::string get = "GET / HTTP/1.1\r\nHost: t\r\n\r\n";
  timeval timeout{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  char answer[16];
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::send(fd, get.data(), get.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(get.size()) ||
      ::recv(fd, answer, sizeof answer, 0) <= 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// At a soft limit of 1,024 the server held about 1,017 connections; it raises its own limit,
// as run does, and says so when the hard limit is lower than its connection cap.
TEST(ServeLimits, TheServerRaisesItsFileLimitAndSaysWhenTheHardLimitCapsIt) {
  LimitedServe raised("-Sn 256", "");
  ASSERT_GT(raised.port, 0) << raised.process.err();
  EXPECT_GE(raised.soft_fd_limit(), 10'000);
  std::vector<int> open;
  for (int i = 0; i < 600; ++i) {
    const int fd = answered_connection(raised.port);
    if (fd < 0) break;
    open.push_back(fd);
  }
  EXPECT_EQ(open.size(), 600u) << "connections past the old soft limit are served";
  for (int fd : open) ::close(fd);
  EXPECT_EQ(raised.stop().find("file-descriptor limit"), std::string::npos);

  LimitedServe capped("-n 256", "");
  ASSERT_GT(capped.port, 0) << capped.process.err();
  EXPECT_NE(capped.stop().find("serve: the file-descriptor limit (ulimit -n 256) allows 222 "
                               "connections, not 10000: serving at most 222"),
            std::string::npos);
}

TEST(ServeLimits, ConnectionsClosedAtTheCapAreLogged) {
  LimitedServe serve("-n 1024", "--max-connections 2 --idle-timeout 30s");
  ASSERT_GT(serve.port, 0) << serve.process.err();
  const int a = answered_connection(serve.port);
  const int b = answered_connection(serve.port);
  EXPECT_GE(a, 0);
  EXPECT_GE(b, 0);
  EXPECT_LT(answered_connection(serve.port), 0) << "the third is closed at once";
  const std::string err = serve.stop();
  EXPECT_NE(err.find("serve: at the connection cap (2 open on thread 0, --max-connections): "
                     "closed 1 new connection at once"),
            std::string::npos)
      << err;
  ::close(a);
  ::close(b);
}

// Runs 40 requests against a misbehaving server; returns result.json's summary.
json run_against(const RawServer& server, const std::string& name) {
  std::string out = make_temp_dir(name);
  auto run = run_to_completion({proofload_binary(), "run", server.url(), "-c", "2", "-n", "40",
                                "--timeout", "2s", "--workers", "1", "--out", out});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return json::parse(read_file(out + "/result.json"))["summary"];
}

TEST(BadServer, GarbageIsAProtocolError) {
  RawServer server("SSH-2.0-OpenSSH\r\n\r\n", true);
  json summary = run_against(server, "garbage");
  EXPECT_EQ(summary["outcomes"]["protocol_error"], 40) << summary.dump();
  EXPECT_EQ(summary["requests"], 0);
}

TEST(BadServer, CloseMidResponseIsAReset) {
  RawServer server("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nonly a part", true);
  json summary = run_against(server, "cut");
  EXPECT_EQ(summary["outcomes"]["reset"], 40) << summary.dump();
}

TEST(BadServer, CloseWithoutAnsweringIsAReset) {
  RawServer server("", true);
  json summary = run_against(server, "silent-close");
  EXPECT_EQ(summary["outcomes"]["reset"], 40) << summary.dump();
}

TEST(BadServer, HugeHeaderIsAProtocolErrorWithBoundedMemory) {
  std::string reply = "HTTP/1.1 200 OK\r\nX-Big: " + std::string(1 << 20, 'a') +
                      "\r\nContent-Length: 0\r\n\r\n";
  RawServer server(reply, true);
  json summary = run_against(server, "huge-header");
  EXPECT_EQ(summary["outcomes"]["protocol_error"], 40) << summary.dump();
}

TEST(BadServer, TimeoutWhenTheServerNeverAnswers) {
  RawServer server("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab", false);  // body never ends
  std::string out = make_temp_dir("timeout");
  auto run = run_to_completion({proofload_binary(), "run", server.url(), "-c", "2", "-d", "1s",
                                "--timeout", "300ms", "--workers", "1", "--out", out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  json summary = json::parse(read_file(out + "/result.json"))["summary"];
  EXPECT_GE(summary["outcomes"]["timeout"].get<int64_t>(), 4) << summary.dump();
  EXPECT_EQ(summary["requests"], 0);
}

TEST(BadServer, ConnectionCloseAndHttp10AreFollowedByAReconnect) {
  RawServer server("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", true);
  json summary = run_against(server, "http10");
  EXPECT_EQ(summary["outcomes"]["success"], 40) << summary.dump();
  EXPECT_GE(summary["connects"].get<int64_t>(), 40);
}

}  // namespace
}  // namespace proofload::testing
