// `proofload run --observe k8s:...` as a user runs it, against the built-in server, with the stub
// kubectl first on PATH (the child inherits it): the pods' figures reach result.json per window
// and in the run's totals.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "observe/k8s_stub_kubectl.h"
#include "process.h"

namespace proofload::observe {
namespace {

using nlohmann::json;
using proofload::testing::proofload_binary;
using proofload::testing::read_file;
using proofload::testing::run_to_completion;
using proofload::testing::ServeProcess;

TEST(K8sRun, PodFiguresReachTheResult) {
  testing::StubKubectl stub;
  // The creation's check, then samples every 100 ms: one pod becomes ready after ~0.3 s and
  // the other restarts after ~0.6 s (a run has no warm-up unless asked, so all of it counts).
  stub.plan_get({"file starting.json", "file starting.json", "file starting.json",
                 "file starting.json", "file ready.json", "file ready.json", "file ready.json",
                 "file ready.json", "file restarted.json"});
  stub.plan_top({"file top.txt"});
  ServeProcess server;
  const std::string out = stub.dir() + "/out";
  auto run = run_to_completion(
      {proofload_binary(), "run", server.url(), "-d", "2s", "--workers", "1", "--rate", "50",
       "--observe", "k8s:company-dns/app=v3", "--observe-every", "100ms", "-q", "-o", out},
      std::chrono::seconds(30));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const json result = json::parse(read_file(out + "/result.json"));
  const json& k8s = result["observed"]["k8s"];
  ASSERT_TRUE(k8s.is_object()) << result["observed"].dump(2);
  EXPECT_EQ(k8s["source"], "k8s:company-dns/app=v3");
  EXPECT_EQ(k8s["gaps"], 0) << k8s.dump(2);
  EXPECT_EQ(k8s["pods_end"], 2) << k8s.dump(2);
  EXPECT_EQ(k8s["ready_pods_end"], 2) << k8s.dump(2);
  EXPECT_EQ(k8s["unready_pods_peak"], 1) << k8s.dump(2);
  EXPECT_EQ(k8s["restarts"], 1) << k8s.dump(2);
  EXPECT_EQ(k8s["oom_kills"], 0) << k8s.dump(2);
  EXPECT_EQ(k8s["nodes_end"], 2) << k8s.dump(2);
  EXPECT_DOUBLE_EQ(k8s["memory_bytes_end"].get<double>(), 128.0 * 1024 * 1024 + 512 * 1024);
  EXPECT_DOUBLE_EQ(k8s["cpu_cores_max"].get<double>(), 1.25);
  // And window by window.
  int windows_with_pods = 0;
  for (const json& window : result["windows"]) {
    const json& figures = window["observed"]["k8s"];
    if (figures.is_object() && figures.contains("pods")) ++windows_with_pods;
  }
  EXPECT_GE(windows_with_pods, 1) << result["windows"].dump(2);
  // windows.csv has the pods' columns, second by second.
  const std::string csv = read_file(out + "/windows.csv");
  const std::string header = csv.substr(0, csv.find('\n'));
  for (const char* column : {"k8s.pods", "k8s.ready_pods", "k8s.unready_pods_peak", "k8s.restarts",
                             "k8s.terminating_longest_seconds_peak"}) {
    EXPECT_NE(header.find(column), std::string::npos) << column << " in " << header;
  }
}

TEST(K8sRun, ASoakStatesKubectlFailingInTheWindowsItFailedIn) {
  testing::StubKubectl stub;
  // The soak's own check before anything is sent, the run's when it makes its sampler, and the
  // samples of the first seconds answer; from then on kubectl fails.
  stub.plan_get({"file ready.json", "file ready.json", "file ready.json", "file ready.json",
                 "file ready.json",
                 "fail 1 error: You must be logged in to the server (Unauthorized)"});
  stub.plan_top({"file top.txt"});
  ServeProcess server;
  const std::string out = stub.dir() + "/soak";
  auto soak = run_to_completion(
      {proofload_binary(), "soak", server.url(), "--rate", "20", "--hold", "6s", "--window", "1s",
       "--workers", "1", "--observe", "k8s:company-dns/app=v3", "-q", "-o", out},
      std::chrono::seconds(30));
  ASSERT_EQ(soak.exit_code, 0) << soak.err;  // a gap is stated, not a miss of the bar
  const json result = json::parse(read_file(out + "/result.json"));
  const json& windows = result["soak"]["windows"];
  ASSERT_GE(windows.size(), 4u);
  EXPECT_EQ(windows[0]["observer_gaps"], 0) << windows[0].dump();
  const json& last = windows[windows.size() - 1];
  EXPECT_GE(last["observer_gaps"].get<int>(), 1) << last.dump();
  EXPECT_NE(last["observer_gap"].get<std::string>().find("You must be logged in"),
            std::string::npos)
      << last.dump();
  const std::string summary = read_file(out + "/summary.md");
  EXPECT_NE(summary.find("| observer gaps |"), std::string::npos) << summary;
  EXPECT_NE(summary.find("The observers had gaps in"), std::string::npos) << summary;
  // Memory per pod, from kubectl top, over the soak.
  bool pod_memory = false;
  for (const json& m : result["soak"]["server"]) {
    if (m["figure"] != "memory_bytes{pod=\"dns-v3-7f9c4d8b6-2xk9p\"}") continue;
    pod_memory = true;
    EXPECT_EQ(m["source"], "k8s:company-dns/app=v3");
    EXPECT_DOUBLE_EQ(m["peak_bytes"].get<double>(), 128.0 * 1024 * 1024);
    EXPECT_DOUBLE_EQ(m["first_bytes"].get<double>(), 128.0 * 1024 * 1024);
  }
  EXPECT_TRUE(pod_memory) << result["soak"]["server"].dump();
  EXPECT_NE(
      summary.find("| `k8s:company-dns/app=v3` | `memory_bytes{pod=\"dns-v3-7f9c4d8b6-2xk9p\"}` "
                   "| 128.0 MiB | 128.0 MiB | 128.0 MiB |"),
      std::string::npos)
      << summary;
}

TEST(K8sRun, ASoakRefusesASelectorThatMatchesNoPod) {
  testing::StubKubectl stub;
  stub.plan_get({"file no_pods.json"});
  const int port = proofload::testing::unused_loopback_port();
  auto soak = run_to_completion(
      {proofload_binary(), "soak", "http://127.0.0.1:" + std::to_string(port) + "/", "--rate", "10",
       "--hold", "2m", "--observe", "k8s:company-dns/app=v3", "-q", "-o", stub.dir() + "/soak"},
      std::chrono::seconds(30));
  EXPECT_EQ(soak.exit_code, 2) << soak.err;
  EXPECT_NE(soak.err.find("k8s:company-dns/app=v3 matches 0 pods"), std::string::npos) << soak.err;
}

}  // namespace
}  // namespace proofload::observe
