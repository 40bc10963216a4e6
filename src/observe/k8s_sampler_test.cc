// The k8s: sampler through the stub kubectl (testdata/k8s/kubectl) first on PATH, replaying
// recorded pod lists: what each sample reads as a deployment's pods change, the gaps (a failing,
// hanging or garbled kubectl), the refusal to start, and `kubectl top` present or absent.
#include "observe/k8s_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "common/clock.h"
#include "common/usage_error.h"
#include "common/usage_error_test_support.h"
#include "observe/factory.h"
#include "observe/k8s_stub_kubectl.h"

namespace proofload::observe {
namespace {

using proofload::testing::usage_error_of;
using testing::StubKubectl;

constexpr const char* kSpec = "k8s:company-dns/app=v3";

std::optional<double> reading(const Sample& sample, const std::string& name) {
  for (const Reading& r : sample.readings) {
    if (r.name == name) return r.value;
  }
  return std::nullopt;
}

class K8sSamplerTest : public ::testing::Test {
 protected:
  // A sampler on the stub with the wall clock at `wall_` (Unix ns) and a short timeout.
  std::unique_ptr<K8sSampler> make(const std::string& spec = kSpec,
                                   int64_t timeout_ns = 2 * kNsPerS) {
    K8sOptions options;
    options.timeout_ns = timeout_ns;
    options.wall_clock = [this] { return wall_; };
    return make_k8s_sampler(spec, std::move(options));
  }
  Sample next(K8sSampler& sampler) {
    now_ += kNsPerS;
    return sampler.sample(now_);
  }

  StubKubectl stub_;
  int64_t now_ = 0;
  int64_t wall_ = *parse_rfc3339_unix_ns("2024-05-01T10:40:05Z");
};

TEST_F(K8sSamplerTest, PodsBecomingReady) {
  stub_.plan_get({"file starting.json", "file starting.json", "file ready.json"});
  auto sampler = make();
  Sample first = next(*sampler);
  ASSERT_TRUE(first.ok) << first.error;
  EXPECT_EQ(reading(first, "pods"), 2);
  EXPECT_EQ(reading(first, "ready_pods"), 1);
  EXPECT_EQ(reading(first, "unready_pods"), 1);
  EXPECT_EQ(reading(first, "nodes"), 2);
  EXPECT_EQ(reading(first, "pods_per_node_max"), 1);
  EXPECT_EQ(reading(first, "terminating_pods"), 0);
  EXPECT_EQ(reading(first, "restarts"), 0);
  EXPECT_EQ(reading(first, "oom_kills"), 0);
  Sample second = next(*sampler);
  ASSERT_TRUE(second.ok) << second.error;
  EXPECT_EQ(reading(second, "ready_pods"), 2);
  EXPECT_EQ(reading(second, "unready_pods"), 0);
}

TEST_F(K8sSamplerTest, ARestartCountsUp) {
  stub_.plan_get({"file ready.json", "file ready.json", "file restarted.json"});
  auto sampler = make();
  EXPECT_EQ(reading(next(*sampler), "restarts"), 0);
  Sample after = next(*sampler);
  EXPECT_EQ(reading(after, "restarts"), 1);
  EXPECT_EQ(reading(after, "oom_kills"), 0);  // it exited with an error, not OOM-killed
  for (const Reading& r : after.readings) {
    bool counter = r.name == "restarts" || r.name == "oom_kills";
    EXPECT_EQ(r.kind, counter ? MetricKind::kCounter : MetricKind::kGauge) << r.name;
  }
}

TEST_F(K8sSamplerTest, AnOomKillIsCountedOnceAcrossSamples) {
  stub_.plan_get({"file ready.json", "file ready.json", "file oom_killed.json"});
  auto sampler = make();
  EXPECT_EQ(reading(next(*sampler), "oom_kills"), 0);
  // The same lastState shows in every later list: still one kill.
  for (int i = 0; i < 3; ++i) {
    Sample s = next(*sampler);
    EXPECT_EQ(reading(s, "oom_kills"), 1);
    EXPECT_EQ(reading(s, "restarts"), 2);
  }
}

TEST_F(K8sSamplerTest, APodStuckTerminatingGrowsOlder) {
  stub_.plan_get({"file ready.json", "file terminating.json"});
  auto sampler = make();
  // Deleted at 10:40:00 (deletionTimestamp 10:40:30 minus its 30 s grace period).
  wall_ = *parse_rfc3339_unix_ns("2024-05-01T10:40:10Z");
  Sample early = next(*sampler);
  EXPECT_EQ(reading(early, "terminating_pods"), 1);
  EXPECT_EQ(reading(early, "terminating_longest_seconds"), 10);
  EXPECT_EQ(reading(early, "pods"), 3);
  EXPECT_EQ(reading(early, "ready_pods"), 1);
  wall_ = *parse_rfc3339_unix_ns("2024-05-01T10:45:00Z");
  EXPECT_EQ(reading(next(*sampler), "terminating_longest_seconds"), 300);
}

TEST_F(K8sSamplerTest, AFailingCommandIsAGapWithItsReason) {
  stub_.plan_get({"file ready.json",
                  "fail 1 error: You must be logged in to the server (Unauthorized)",
                  "file ready.json"});
  auto sampler = make();
  Sample gap = next(*sampler);
  EXPECT_FALSE(gap.ok);
  EXPECT_EQ(gap.error,
            "kubectl get pods failed: exit 1: error: You must be logged in to the server "
            "(Unauthorized)");
  EXPECT_TRUE(gap.readings.empty());
  Sample back = next(*sampler);
  EXPECT_TRUE(back.ok) << back.error;
}

TEST_F(K8sSamplerTest, AHangingKubectlIsKilledAtTheTimeout) {
  stub_.plan_get({"file ready.json", "hang"});
  auto sampler = make(kSpec, 300 * kNsPerMs);
  const int64_t started = monotonic_ns();
  Sample gap = next(*sampler);
  const int64_t took_ns = monotonic_ns() - started;
  EXPECT_FALSE(gap.ok);
  EXPECT_EQ(gap.error, "kubectl get pods failed: timed out after 300 ms");
  EXPECT_LT(took_ns, 2 * kNsPerS);
}

TEST_F(K8sSamplerTest, OutputThatIsNotAPodListIsAGap) {
  stub_.plan_get({"file ready.json", "text this is not json", R"(text {"kind":"Pod"})"});
  auto sampler = make();
  EXPECT_EQ(next(*sampler).error, "kubectl get pods: not JSON");
  EXPECT_EQ(next(*sampler).error, "kubectl get pods: not a list of pods (kind 'Pod')");
}

TEST_F(K8sSamplerTest, NoPodsLaterIsNotAGap) {
  // Scaled to zero during the run: that is what is being watched, not a fault of the watching.
  stub_.plan_get({"file ready.json", "file no_pods.json"});
  auto sampler = make();
  Sample s = next(*sampler);
  ASSERT_TRUE(s.ok) << s.error;
  EXPECT_EQ(reading(s, "pods"), 0);
  EXPECT_EQ(reading(s, "nodes"), 0);
}

TEST_F(K8sSamplerTest, RefusesToStartOnNoPods) {
  stub_.plan_get({"file no_pods.json"});
  EXPECT_EQ(usage_error_of([] { make_sampler(kSpec, kNsPerS); }),
            "k8s:company-dns/app=v3 matches 0 pods");
}

TEST_F(K8sSamplerTest, RefusesToStartWhenKubectlFails) {
  stub_.plan_get({"fail 1 error: You must be logged in to the server (Unauthorized)"});
  EXPECT_EQ(usage_error_of([] { make_sampler(kSpec, kNsPerS); }),
            "k8s:company-dns/app=v3: kubectl get pods failed: exit 1: error: You must be logged "
            "in to the server (Unauthorized)");
}

TEST_F(K8sSamplerTest, RefusesToStartWithoutKubectl) {
  const std::string path = getenv("PATH");
  setenv("PATH", stub_.dir().c_str(), 1);  // a directory with no kubectl
  std::string message = usage_error_of([] { make_sampler(kSpec, kNsPerS); });
  setenv("PATH", path.c_str(), 1);
  EXPECT_EQ(message, "k8s:company-dns/app=v3: kubectl not found on PATH");
}

TEST_F(K8sSamplerTest, RefusesBadSpecs) {
  EXPECT_EQ(
      usage_error_of([] { make_sampler("k8s:company-dns", kNsPerS); }),
      "k8s:company-dns: no '/': expected k8s:NAMESPACE/SELECTOR, e.g. k8s:company-dns/app=v3");
  EXPECT_EQ(usage_error_of([] { make_sampler("k8s:/app=v3", kNsPerS); }),
            "k8s:/app=v3: no namespace: expected k8s:NAMESPACE/SELECTOR, e.g. "
            "k8s:company-dns/app=v3");
  EXPECT_EQ(usage_error_of([] { make_sampler("k8s:company-dns/", kNsPerS); }),
            "k8s:company-dns/: no label selector: expected k8s:NAMESPACE/SELECTOR, e.g. "
            "k8s:company-dns/app=v3");
  EXPECT_EQ(usage_error_of([] { make_sampler("k8s:Company DNS/app=v3", kNsPerS); }),
            "k8s:Company DNS/app=v3: 'Company DNS' is not a namespace name (lowercase letters, "
            "digits and '-')");
  EXPECT_TRUE(stub_.calls().empty());  // refused before kubectl was run
  EXPECT_NE(
      usage_error_of([] { make_sampler("kube:x/y", kNsPerS); }).find("k8s:NAMESPACE/SELECTOR"),
      std::string::npos);
}

TEST_F(K8sSamplerTest, PassesTheSelectorAsOneArgument) {
  stub_.plan_get({"file ready.json"});
  auto sampler = make("k8s:web/app.kubernetes.io/name=api,tier!=canary");
  next(*sampler);
  std::vector<std::string> calls = stub_.calls();
  ASSERT_GE(calls.size(), 2u);
  EXPECT_EQ(calls[0],
            "get pods --namespace=web --selector=app.kubernetes.io/name=api,tier!=canary -o json");
  EXPECT_EQ(calls[2],
            "top pods --namespace=web --selector=app.kubernetes.io/name=api,tier!=canary "
            "--no-headers");
}

TEST_F(K8sSamplerTest, WithoutMetricsTheUsageIsLeftOut) {
  stub_.plan_get({"file ready.json"});  // no top.plan: `kubectl top` fails, no metrics API
  auto sampler = make();
  Sample s = next(*sampler);
  ASSERT_TRUE(s.ok) << s.error;
  EXPECT_FALSE(reading(s, "cpu_cores"));
  EXPECT_FALSE(reading(s, "memory_bytes"));
  EXPECT_EQ(sampler->metrics_note(),
            "kubectl top pods failed: exit 1: error: Metrics API not available (cpu_cores and "
            "memory_bytes left out)");
  next(*sampler);  // within the minute: not tried again
  auto calls = stub_.calls();
  EXPECT_EQ(std::count_if(calls.begin(), calls.end(),
                          [](const std::string& c) { return c.starts_with("top"); }),
            1);
}

TEST_F(K8sSamplerTest, WithMetricsTheUsageIsSummed) {
  stub_.plan_get({"file ready.json"});
  stub_.plan_top({"file top.txt"});
  auto sampler = make();
  Sample s = next(*sampler);
  ASSERT_TRUE(s.ok) << s.error;
  EXPECT_DOUBLE_EQ(*reading(s, "cpu_cores"), 1.25);
  EXPECT_DOUBLE_EQ(*reading(s, "memory_bytes"), 128.0 * 1024 * 1024 + 512 * 1024);
  EXPECT_EQ(sampler->metrics_note(), "");
}

TEST(K8sTimeout, FollowsThePeriodWithinBounds) {
  EXPECT_EQ(k8s_timeout_ns(100 * kNsPerMs), kK8sMinTimeoutNs);
  EXPECT_EQ(k8s_timeout_ns(5 * kNsPerS), 4 * kNsPerS);
  EXPECT_EQ(k8s_timeout_ns(60 * kNsPerS), kK8sMaxTimeoutNs);
}

}  // namespace
}  // namespace proofload::observe
