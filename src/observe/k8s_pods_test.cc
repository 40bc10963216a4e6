// The k8s: observer's reading of kubectl's answers, on recorded `kubectl get pods -o json` lists
// (testdata/k8s) and `kubectl top` lines: quantities, timestamps, and the counters that must only
// count up however pods come and go.
#include "observe/k8s_pods.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "common/clock.h"

namespace proofload::observe {
namespace {

std::string recorded(const std::string& name) {
  std::ifstream in(std::string(PL_K8S_TESTDATA_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<K8sPod> pods_of(const std::string& name) {
  std::vector<K8sPod> pods;
  std::string error;
  EXPECT_TRUE(parse_pod_list(recorded(name), pods, error)) << name << ": " << error;
  return pods;
}

double reading(const std::vector<Reading>& readings, const std::string& name) {
  for (const Reading& r : readings) {
    if (r.name == name) return r.value;
  }
  ADD_FAILURE() << "no reading " << name;
  return -1;
}

TEST(K8sQuantity, ParsesWhatKubectlTopPrints) {
  EXPECT_DOUBLE_EQ(*parse_quantity("250m"), 0.25);
  EXPECT_DOUBLE_EQ(*parse_quantity("1"), 1);
  EXPECT_DOUBLE_EQ(*parse_quantity("1500u"), 0.0015);
  EXPECT_DOUBLE_EQ(*parse_quantity("12n"), 12e-9);
  EXPECT_DOUBLE_EQ(*parse_quantity("128Mi"), 128.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*parse_quantity("1Gi"), 1024.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*parse_quantity("512Ki"), 512.0 * 1024);
  EXPECT_DOUBLE_EQ(*parse_quantity("1.5G"), 1.5e9);
  EXPECT_DOUBLE_EQ(*parse_quantity("2k"), 2000);
  EXPECT_DOUBLE_EQ(*parse_quantity("1e3"), 1000);
  EXPECT_DOUBLE_EQ(*parse_quantity("1E"), 1e18);  // exa, not an exponent
  for (const char* bad : {"", "m", "12x", "1.2.3Mi", "-1", "Mi", "1 Mi", "1e"}) {
    EXPECT_FALSE(parse_quantity(bad)) << bad;
  }
}

TEST(K8sTop, SumsThePods) {
  auto usage = parse_top_pods(recorded("top.txt"));
  ASSERT_TRUE(usage);
  EXPECT_EQ(usage->pods, 2);
  EXPECT_DOUBLE_EQ(usage->cpu_cores, 1.25);
  EXPECT_DOUBLE_EQ(usage->memory_bytes, 128.0 * 1024 * 1024 + 512 * 1024);
  // --containers puts the container's name before the figures.
  auto by_container = parse_top_pods("web-1   app   100m   1Gi\nweb-1   proxy   5m   20Mi\n");
  ASSERT_TRUE(by_container);
  EXPECT_DOUBLE_EQ(by_container->cpu_cores, 0.105);
  // Each pod's own figures, a pod's containers summed.
  ASSERT_EQ(usage->by_pod.size(), 2u);
  EXPECT_EQ(usage->by_pod[0].name, "dns-v3-7f9c4d8b6-2xk9p");
  EXPECT_DOUBLE_EQ(usage->by_pod[0].memory_bytes, 128.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(usage->by_pod[1].cpu_cores, 1);
  ASSERT_EQ(by_container->by_pod.size(), 1u);
  EXPECT_DOUBLE_EQ(by_container->by_pod[0].memory_bytes, 1024.0 * 1024 * 1024 + 20 * 1024 * 1024);
  EXPECT_FALSE(parse_top_pods(""));
  EXPECT_FALSE(parse_top_pods("web-1 250m\n"));
  EXPECT_FALSE(parse_top_pods("NAME CPU(cores) MEMORY(bytes)\n"));  // a header is no figure
}

TEST(K8sPodList, ReadsRecordedPods) {
  std::vector<K8sPod> pods = pods_of("terminating.json");
  ASSERT_EQ(pods.size(), 3u);
  EXPECT_EQ(pods[0].uid, "0c6d3f1e-8a4b-4d2e-9f17-3b5a7c9e1d20");
  EXPECT_TRUE(pods[0].ready);
  EXPECT_EQ(pods[0].node_name, "node-a");
  EXPECT_FALSE(pods[0].deletion_requested_unix_ns);
  // deletionTimestamp 10:40:30 is the end of its 30 s grace period: deleted at 10:40:00.
  ASSERT_TRUE(pods[1].deletion_requested_unix_ns);
  EXPECT_EQ(*pods[1].deletion_requested_unix_ns, *parse_rfc3339_unix_ns("2024-05-01T10:40:00Z"));
  EXPECT_FALSE(pods[1].ready);
  ASSERT_EQ(pods[1].containers.size(), 1u);
  EXPECT_EQ(pods[1].containers[0].restart_count, 2);
  EXPECT_EQ(pods[1].containers[0].oom_killed_terminations.size(), 1u);
  EXPECT_EQ(pods[2].node_name, "");  // Pending, unschedulable
  EXPECT_TRUE(pods[2].containers.empty());
}

TEST(K8sPodList, RejectsWhatIsNotAListOfPods) {
  std::vector<K8sPod> pods;
  std::string error;
  EXPECT_FALSE(parse_pod_list("error: the server doesn't have a resource type", pods, error));
  EXPECT_EQ(error, "not JSON");
  EXPECT_FALSE(parse_pod_list(R"({"kind":"Pod","metadata":{}})", pods, error));
  EXPECT_EQ(error, "not a list of pods (kind 'Pod')");
  EXPECT_FALSE(parse_pod_list(R"({"kind":"List","items":[{"kind":"Service"}]})", pods, error));
  EXPECT_EQ(error, "not a list of pods (an item of kind 'Service')");
  EXPECT_TRUE(parse_pod_list(recorded("no_pods.json"), pods, error));
  EXPECT_TRUE(pods.empty());
}

TEST(K8sTally, CountsReadinessNodesAndTerminating) {
  PodTally tally;
  const int64_t at = *parse_rfc3339_unix_ns("2024-05-01T10:40:12Z");
  std::vector<Reading> r = tally.readings(pods_of("terminating.json"), at);
  EXPECT_EQ(reading(r, "pods"), 3);
  EXPECT_EQ(reading(r, "ready_pods"), 1);
  EXPECT_EQ(reading(r, "unready_pods"), 2);
  EXPECT_EQ(reading(r, "terminating_pods"), 1);
  EXPECT_DOUBLE_EQ(reading(r, "terminating_longest_seconds"), 12);
  EXPECT_EQ(reading(r, "nodes"), 2);
  EXPECT_EQ(reading(r, "pods_per_node_max"), 1);
  r = tally.readings(pods_of("one_node.json"), at);
  EXPECT_EQ(reading(r, "nodes"), 1);
  EXPECT_EQ(reading(r, "pods_per_node_max"), 2);
  EXPECT_EQ(reading(r, "terminating_longest_seconds"), 0);
}

TEST(K8sTally, CountersNeverGoDownWhenAPodIsReplaced) {
  PodTally tally;
  std::vector<K8sPod> pods = pods_of("oom_killed.json");
  std::vector<Reading> r = tally.readings(pods, 0);
  EXPECT_EQ(reading(r, "restarts"), 2);
  EXPECT_EQ(reading(r, "oom_kills"), 1);
  // The restarted pod is replaced by a new one with no restarts: the sum of restartCount would
  // fall from 2 to 0, which a counter must not.
  pods[1].uid = "a-new-pod";
  pods[1].containers[0].restart_count = 0;
  pods[1].containers[0].oom_killed_terminations.clear();
  r = tally.readings(pods, 0);
  EXPECT_EQ(reading(r, "restarts"), 2);
  EXPECT_EQ(reading(r, "oom_kills"), 1);
  pods[1].containers[0].restart_count = 1;
  r = tally.readings(pods, 0);
  EXPECT_EQ(reading(r, "restarts"), 3);
}

TEST(K8sTally, AnOomKillStillTerminatedIsNotCountedAgainOnceRestarted) {
  // restartPolicy Always: first seen in state.terminated, then in lastState after the restart;
  // the container's ID makes both the same kill.
  const std::string terminated =
      R"({"terminated":{"containerID":"containerd://abc","reason":"OOMKilled","exitCode":137}})";
  auto list = [&](int restarts, const std::string& state, const std::string& last) {
    return R"({"kind":"List","items":[{"kind":"Pod","metadata":{"uid":"u1"},"status":{)"
           R"("containerStatuses":[{"name":"app","restartCount":)" +
           std::to_string(restarts) + R"(,"state":)" + state + R"(,"lastState":)" + last + "}]}}]}";
  };
  PodTally tally;
  std::vector<K8sPod> pods;
  std::string error;
  ASSERT_TRUE(parse_pod_list(list(0, terminated, "{}"), pods, error)) << error;
  EXPECT_EQ(reading(tally.readings(pods, 0), "oom_kills"), 1);
  ASSERT_TRUE(parse_pod_list(list(1, R"({"running":{}})", terminated), pods, error)) << error;
  EXPECT_EQ(reading(tally.readings(pods, 0), "oom_kills"), 1);
}

}  // namespace
}  // namespace proofload::observe
