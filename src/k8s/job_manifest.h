// A distributed proofload as Kubernetes objects: an Indexed Job whose N pods each run one segment
// (`--segment I/N`) of the same experiment from one shared start (`--start-at`), and the
// ConfigMap that carries a scenario file and its data files to them. Plain data in, YAML text
// out: `check_job_spec` refuses what the API server would (or what would not do what the user
// meant) as one line, and `render_job_yaml` emits only a checked spec. Stateless, thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace proofload::k8s {

// At most this many segments (pods) in one Job.
constexpr int kMaxSegments = 1000;
// A ConfigMap's data is stored in etcd whole; the API server refuses one over 1 MiB.
constexpr size_t kMaxConfigMapBytes = size_t{1} << 20;

// Where a pod finds things. The scenario and its data files are mounted read-only at
// kScenarioDir (also the working directory, so paths relative to the scenario resolve); each
// segment writes kResultsDir/segment-I.
constexpr std::string_view kScenarioDir = "/scenario";
constexpr std::string_view kResultsDir = "/results";
constexpr std::string_view kContainerName = "proofload";
// The user the image runs as (Dockerfile), whose group a results claim is made writable for.
constexpr int kImageUserId = 10001;

// The pod annotations `k8s collect` reads back from the pods (how the results leave the pod,
// the claim they are on, how many segments there are).
constexpr std::string_view kResultsAnnotation = "proofload/results";
constexpr std::string_view kPvcAnnotation = "proofload/pvc";
constexpr std::string_view kSegmentsAnnotation = "proofload/segments";
// The annotation the Job controller sets on every pod of an Indexed Job.
constexpr std::string_view kIndexAnnotation = "batch.kubernetes.io/job-completion-index";

// A file the pods read: the scenario or a data file it names.
struct MountedFile {
  std::string path;     // relative to kScenarioDir, normalized, never absolute or with ".."
  std::string content;  // its bytes (text goes in the ConfigMap's data, the rest in binaryData)
};

// A header whose value must reach the pods without being written in the Job (plan/redaction.h's
// sensitive headers): it goes in a Secret, the container reads it into an environment variable
// (secretKeyRef), and Kubernetes puts it in the header's -H argument ($(VAR)) when the pod starts.
struct SecretHeader {
  std::string name;   // as the user wrote it: "Authorization"
  std::string value;  // never in render_job_yaml's text; only in render_secret_yaml's
};

enum class ResultsMode {
  kLog,     // the pod prints its segment as a base64 gzip tarball on stdout, between markers
  kVolume,  // the pod writes kResultsDir/segment-I on a PersistentVolumeClaim
};

struct JobSpec {
  std::string name = "proofload";        // the Job's (and the ConfigMap's prefix): a DNS-1123 label
  std::string namespace_name;            // "" : kubectl's current namespace
  std::string image;                     // e.g. "registry.example.com/proofload:0.1.0"
  std::string experiment = "run";        // run, ladder, soak or probe
  std::string target;                    // a URL, or the scenario's path in the pod
  int segments = 1;                      // completions = parallelism = segments
  std::string start_at;                  // RFC 3339, the same in every pod
  std::vector<std::string> passthrough;  // the experiment's own flags, verbatim
  std::vector<SecretHeader> secret_headers;  // -H flags taken out of passthrough, passed after it
  ResultsMode results = ResultsMode::kLog;
  std::string pvc;  // kVolume: the claim's name
  // Kubernetes quantities ("500m", "2", "512Mi"); "" leaves it unset.
  std::string cpu_request;
  std::string memory_request;
  std::string cpu_limit;
  std::string memory_limit;
  std::vector<std::pair<std::string, std::string>> node_selector;
  bool allow_same_node = false;    // anti-affinity preferred rather than required
  std::vector<MountedFile> files;  // empty for a URL target
};

// Throws UsageError naming the first bad field: segments outside 1..kMaxSegments, a name or
// namespace not a DNS-1123 label, a claim name not a DNS-1123 subdomain, a quantity Kubernetes
// would not parse (or a request over its limit), a node selector's key or value that is not a
// label's, an empty image, volume results without a claim, files over kMaxConfigMapBytes.
void check_job_spec(const JobSpec& spec);

// The YAML documents (the ConfigMap first when there are files, then the Job), checked first.
// A secret header's value is not in them: the Job names the Secret below.
std::string render_job_yaml(const JobSpec& spec);

// The Secret that carries `spec.secret_headers` (stringData, a key a header), for a file of its
// own; and its name and each header's key, for a `kubectl create secret` of the user's.
std::string render_secret_yaml(const JobSpec& spec);
std::string secret_name(const JobSpec& spec);        // NAME-headers
std::vector<std::string> secret_keys(const JobSpec& spec);  // "authorization", "x-api-key", ...

// The `sh -c` script of a pod with ResultsMode::kLog: runs `proofload "$@"`, forwards SIGTERM to
// it, then prints $PROOFLOAD_RESULTS/segment-$JOB_COMPLETION_INDEX as a tarball between the
// markers below, and exits with the experiment's exit code.
std::string log_results_script();
std::string tarball_begin_marker(int index);  // "==== proofload segment-3 tar.gz base64 begin ===="
std::string tarball_end_marker(int index);    // "==== proofload segment-3 end ===="

// Checks used by the command line too.
bool is_dns1123_label(std::string_view text);
bool is_dns1123_subdomain(std::string_view text);
// A Kubernetes quantity as a number ("500m" = 0.5, "1Gi" = 2^30); -1 when it is not one, or not
// positive.
double quantity_value(std::string_view text);

}  // namespace proofload::k8s
