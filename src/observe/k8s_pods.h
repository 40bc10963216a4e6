// What the `k8s:` observer makes of kubectl's answers, with no process run: the pods of
// `kubectl get pods -o json`, the usage lines of `kubectl top pods --no-headers`, Kubernetes
// quantities and timestamps, and the tally that turns each sample's pods into readings (keeping
// restarts and OOM kills counting up across samples). Pure functions and one stateful tally;
// a PodTally belongs to one sampler (not thread-safe).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/wall_time.h"
#include "observe/sampler.h"

namespace proofload::observe {

struct K8sContainer {
  std::string name;
  int64_t restart_count = 0;  // status.containerStatuses[].restartCount
  // IDs ("containerd://...", else "#<restartCount>") of its terminations whose reason was
  // OOMKilled: the one in lastState, and the one in state when it is still terminated.
  std::vector<std::string> oom_killed_terminations;
};

struct K8sPod {
  std::string uid;        // metadata.uid (its name when absent): one pod across samples
  std::string node_name;  // spec.nodeName; "" while unscheduled
  bool ready = false;     // its Ready condition is "True"
  // When its deletion was asked for (Unix ns): deletionTimestamp minus
  // deletionGracePeriodSeconds, since the API server sets deletionTimestamp to the end of the
  // grace period. Set: the pod is Terminating.
  std::optional<int64_t> deletion_requested_unix_ns;
  std::vector<K8sContainer> containers;
};

// Parses `kubectl get pods -o json`: an object of kind List (or PodList) whose items are Pods.
// False, with `error` in one line, when it is not JSON or not such a list.
bool parse_pod_list(std::string_view json, std::vector<K8sPod>& pods, std::string& error);

// A Kubernetes quantity as a plain number: "250m" 0.25, "1" 1, "128Mi" 134217728, "1G" 1e9,
// "512Ki" 524288, "1e3" 1000, "1500u" 0.0015. nullopt when it is none.
std::optional<double> parse_quantity(std::string_view text);

// The sums of `kubectl top pods --no-headers`: a line per pod, its last two fields its CPU and
// memory ("web-1  250m  128Mi"). nullopt when a line is malformed or there is no line.
struct PodUsage {
  double cpu_cores = 0;
  double memory_bytes = 0;
  int pods = 0;
  // Each pod's own (kubectl top's first field), in the order listed; a pod listed once per
  // container (--containers) is summed.
  struct OnePod {
    std::string name;
    double cpu_cores = 0;
    double memory_bytes = 0;
  };
  std::vector<OnePod> by_pod;
};
std::optional<PodUsage> parse_top_pods(std::string_view text);

// Turns the pods of each sample into the observer's readings (names and kinds in
// k8s_sampler.h). Counters count up across samples, as window_figures expects of a counter:
// `restarts` keeps each (pod, container)'s highest restartCount seen, so a pod that is replaced
// (a rollout) does not make it go down; `oom_kills` counts each OOM-killed termination once,
// however many samples show it. Memory grows with the pods and OOM kills seen, not with samples.
class PodTally {
 public:
  std::vector<Reading> readings(const std::vector<K8sPod>& pods, int64_t wall_now_ns);

 private:
  std::map<std::string, int64_t> restarts_by_container_;  // "uid/container" -> highest count
  std::set<std::string> oom_kills_seen_;                  // "uid/container/termination"
};

}  // namespace proofload::observe
