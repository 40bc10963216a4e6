// `k8s:NAMESPACE/SELECTOR`: the pods a label selector picks in a Kubernetes namespace, as kubectl
// sees them (`k8s:company-dns/app=v3`, `k8s:web/app.kubernetes.io/name=api,tier!=canary`). For a
// soak: are the pods ready, restarting, OOM-killed, stuck terminating, piled on one node, and how
// much CPU and memory they use. Every sample runs kubectl (found on PATH when the sampler is made,
// with the current kubeconfig context), without a shell, bounded in time and output. A sampler
// belongs to the sampler thread (not thread-safe); the factory functions are stateless.
//
// Readings, from `kubectl get pods --namespace=NS --selector=SEL -o json`:
//   pods (gauge)                         pods listed
//   ready_pods (gauge)                   pods whose Ready condition is True
//   unready_pods (gauge)                 pods - ready_pods: its peak shows a dip in readiness
//                                        that ready_pods' end value and peak would hide
//   terminating_pods (gauge)             pods with metadata.deletionTimestamp set
//   terminating_longest_seconds (gauge)  the longest any of them has been Terminating: from its
//                                        deletion request (deletionTimestamp, which the API
//                                        server sets to the end of the grace period, minus
//                                        deletionGracePeriodSeconds) to the sample's wall time;
//                                        0 when none. The two clocks are the API server's and
//                                        this host's; their offset is not corrected.
//   nodes (gauge)                        distinct spec.nodeName of the pods scheduled
//   pods_per_node_max (gauge)            the most pods on one node
//   restarts (counter)                   containerStatuses' restartCount, each (pod, container)'s
//                                        highest seen, summed over every pod seen (see PodTally)
//   oom_kills (counter)                  container terminations with reason OOMKilled, each once
// and, from `kubectl top pods --namespace=NS --selector=SEL --no-headers`, when it answers:
//   cpu_cores (gauge)                    the pods' CPU summed (metrics-server's recent average)
//   memory_bytes (gauge)                 the pods' working-set memory summed
// A failing `kubectl top` (no metrics API) is not a gap: the two readings are left out, it is
// tried again a minute later, and metrics_note() says why.
//
// A gap: `kubectl get` exits non-zero, is killed at the timeout, writes more than 16 MiB, or
// writes something that is not JSON or not a list of pods; its reason names which, with the
// first line of kubectl's error ("kubectl get pods failed: exit 1: error: You must be logged in
// to the server (Unauthorized)").
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "observe/bounded_command.h"
#include "observe/k8s_pods.h"
#include "observe/sampler.h"

namespace proofload::observe {

// kubectl starts in about 0.1 s and then asks the API server, maybe far away: a timeout under a
// couple of seconds would make a slow cluster all gaps; over a few, a hanging one would hold
// back the other observers (they share the sampler thread) for too long.
constexpr int64_t kK8sMinTimeoutNs = 2 * kNsPerS;
constexpr int64_t kK8sMaxTimeoutNs = 5 * kNsPerS;

// 80% of the sampling period, within [kK8sMinTimeoutNs, kK8sMaxTimeoutNs]. A sample runs
// kubectl at most twice (get, then top), so it takes at most twice this.
int64_t k8s_timeout_ns(int64_t period_ns);

struct K8sTarget {
  std::string name_space;  // "company-dns"
  std::string selector;    // "app=v3": passed to kubectl as one argument, never through a shell
};

// Splits `k8s:NAMESPACE/SELECTOR` at the first '/' (a selector's keys may hold one:
// app.kubernetes.io/name=x). Throws UsageError when the '/', the namespace or the selector is
// missing, or the namespace is not a Kubernetes name (lowercase letters, digits, '-').
K8sTarget parse_k8s_spec(std::string_view spec);

struct K8sOptions {
  std::string kubectl;  // the program's path; "" finds "kubectl" on PATH
  int64_t timeout_ns = kK8sMinTimeoutNs;
  int64_t top_retry_ns = 60 * kNsPerS;  // after `kubectl top` fails, the wait before trying again
  std::function<int64_t()> wall_clock = wall_clock_ns;  // Unix ns; tests set their own
};

class K8sSampler final : public Sampler {
 public:
  K8sSampler(std::string spec, const K8sTarget& target, K8sOptions options);

  const std::string& spec() const override { return spec_; }
  Sample sample(int64_t now_ns) override;

  // Why cpu_cores and memory_bytes are missing ("kubectl top pods failed: exit 1: error:
  // Metrics API not available"); "" once `kubectl top` has answered, or before it was tried.
  const std::string& metrics_note() const { return metrics_note_; }

  // Runs `kubectl get pods` once: the pods, or false with the reason as a gap would give it.
  bool get_pods(std::vector<K8sPod>& pods, std::string& error) const;

 private:
  void add_usage(int64_t now_ns, std::vector<Reading>& readings);

  std::string spec_;
  K8sOptions options_;
  CommandLimits limits_;
  std::vector<std::string> get_command_;
  std::vector<std::string> top_command_;
  PodTally tally_;
  int64_t next_top_ns_ = INT64_MIN;  // monotonic; `kubectl top` is not tried before then
  std::string metrics_note_;
};

// The sampler for `spec` when it starts with "k8s:"; nullptr for any other spec. Throws
// UsageError, before any load is sent, for a malformed spec, "kubectl not found on PATH", a
// first `kubectl get pods` that fails ("k8s:ns/app=x: kubectl get pods failed: exit 1: ...") and
// a selector that matches no pod ("k8s:company-dns/app=v3 matches 0 pods").
std::unique_ptr<K8sSampler> make_k8s_sampler(std::string_view spec, K8sOptions options = {});

}  // namespace proofload::observe
