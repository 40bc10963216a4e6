// `proofload k8s collect`: a Job's segments brought home. The pods are listed with kubectl, each
// finished pod's log is read and its tarball unpacked (segment_tarball.h) into
// OUT/segments/segment-I, a segment that cannot be had is reported by its index, and the rest are
// merged by `proofload merge` into OUT/merged. Everything read from kubectl is bounded in time
// and size (observe/bounded_command.h). Not thread-safe (one collection at a time per OUT).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace proofload::k8s {

// A pod of the Job, as `kubectl get pods -o json` shows it.
struct SegmentPod {
  int index = -1;  // its completion index
  std::string name;
  std::string phase;    // Pending, Running, Succeeded, Failed, Unknown
  std::string results;  // "log" or "volume" (the pod's proofload/results annotation)
  std::string pvc;      // volume: the claim
  std::string image;    // its container's image
  int segments = 0;     // the Job's segment count (its proofload/segments annotation)
};

// The pods of a `kubectl get pods -o json` list, sorted by index (a pod without the index
// annotation is left out). Throws std::runtime_error when the text is not such a list.
std::vector<SegmentPod> parse_job_pods(const std::string& json_text);

struct CollectSpec {
  std::string job;
  std::string namespace_name;  // "" : kubectl's current namespace
  std::string kubectl;         // its path
  std::string out;             // OUT: segments/ and merged/ go here
  std::string proofload;       // the binary that merges (/proc/self/exe)
  int64_t kubectl_timeout_ns = int64_t{120} * 1'000'000'000;
  size_t max_pods_json_bytes = size_t{64} << 20;
  size_t max_log_bytes = size_t{4} << 30;  // a pod's whole log, saved to a file as it comes
};

// Collects and merges; says what it does on `say` (one line for each missing segment, the first
// ten: "segment 2 missing: pod NAME Failed: no tarball in its log", then "and N more segments
// missing"). A pod's log is saved as OUT/segments/segment-I.log while it is unpacked, then removed. Returns the exit code: the
// merge's when it fails, else 1 when a segment is missing, else 0. Throws UsageError for a Job
// with no pods and std::runtime_error when kubectl fails.
int collect_job(const CollectSpec& spec, std::ostream& say);

}  // namespace proofload::k8s
