// See collect.h. The merge runs as a child with this process's stdout and stderr: its messages
// are the user's to read, and it is proofload's own binary, so its time is not bounded here.
#include "k8s/collect.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>

#include "common/text.h"
#include "common/unique_fd.h"
#include "common/usage_error.h"
#include "k8s/job_manifest.h"
#include "k8s/segment_tarball.h"
#include "observe/bounded_command.h"

extern char** environ;

// The missing segments said one a line up to this many, then as a count: a Job of a thousand
// pods that never ran is one screen, not a thousand lines.
constexpr int kMissingLinesShown = 10;

namespace proofload::k8s {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string text_at(const json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

int number_or(const std::string& text, int fallback) {
  if (text.empty() || text.size() > 6 || !std::all_of(text.begin(), text.end(), ::isdigit)) {
    return fallback;
  }
  return std::stoi(text);
}

std::vector<std::string> kubectl_args(const CollectSpec& spec, std::vector<std::string> args) {
  args.insert(args.begin(), spec.kubectl);
  if (!spec.namespace_name.empty()) {
    args.push_back("-n");
    args.push_back(spec.namespace_name);
  }
  return args;
}

std::string kubectl(const CollectSpec& spec, const std::vector<std::string>& args,
                    size_t max_bytes) {
  observe::CommandLimits limits;
  limits.timeout_ns = spec.kubectl_timeout_ns;
  limits.max_stdout_bytes = max_bytes;
  observe::CommandOutcome outcome = observe::run_bounded(kubectl_args(spec, args), limits);
  if (!outcome.succeeded()) throw std::runtime_error("kubectl " + args[0] + ": " + outcome.failure());
  return std::move(outcome.out);
}

// The pod's log, written to `file` as kubectl gives it (a log can be hundreds of MB: it is never
// held in memory). Returns "" or why it could not be had.
std::string save_log(const CollectSpec& spec, const SegmentPod& pod, const fs::path& file) {
  UniqueFd fd(::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (fd.get() < 0) return "cannot write " + file.string() + ": " + std::strerror(errno);
  observe::CommandLimits limits;
  limits.timeout_ns = spec.kubectl_timeout_ns;
  limits.max_stdout_bytes = spec.max_log_bytes;
  limits.stdout_fd = fd.get();
  const observe::CommandOutcome outcome = observe::run_bounded(
      kubectl_args(spec, {"logs", pod.name, "-c", std::string(kContainerName)}), limits);
  return outcome.succeeded() ? "" : "kubectl logs: " + outcome.failure();
}

int run_merge(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ);
  if (spawned != 0) {
    throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(spawned));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The segments are on a claim the pods have finished with: a finished pod cannot be copied from,
// so the way out is a pod of one's own that mounts the claim.
int explain_volume(const CollectSpec& spec, const SegmentPod& pod, std::ostream& say) {
  const std::string ns = spec.namespace_name.empty() ? "" : " -n " + spec.namespace_name;
  const std::string helper = spec.job + "-copy";
  say << "segments are on PersistentVolumeClaim '" << pod.pvc << "' (" << kResultsDir
      << "/segment-I), not in the logs; copy them with a pod that mounts it, then merge:\n"
      << "  kubectl run " << helper << ns << " --image=" << pod.image
      << " --restart=Never --overrides='{\"spec\":{\"containers\":[{\"name\":\"copy\",\"image\":\""
      << pod.image << "\",\"command\":[\"sleep\",\"3600\"],\"volumeMounts\":[{\"name\":\"r\","
      << "\"mountPath\":\"" << kResultsDir << "\"}]}],\"volumes\":[{\"name\":\"r\","
      << "\"persistentVolumeClaim\":{\"claimName\":\"" << pod.pvc << "\"}}]}}'\n"
      << "  kubectl wait" << ns << " --for=condition=Ready pod/" << helper << "\n"
      << "  kubectl cp" << ns << " " << helper << ":" << kResultsDir << " " << spec.out
      << "/segments\n"
      << "  kubectl delete" << ns << " pod/" << helper << "\n"
      << "  proofload merge " << spec.out << "/segments/segment-* --out " << spec.out
      << "/merged\n";
  return kExitOk;
}

}  // namespace

std::vector<SegmentPod> parse_job_pods(const std::string& json_text) {
  const json list = json::parse(json_text, nullptr, false);
  if (list.is_discarded() || !list.is_object() || !list.contains("items") ||
      !list["items"].is_array()) {
    throw std::runtime_error("kubectl get pods: not a list of pods");
  }
  std::vector<SegmentPod> pods;
  for (const json& item : list["items"]) {
    const json& meta = item.is_object() ? item.value("metadata", json::object()) : json::object();
    const json annotations =
        meta.is_object() ? meta.value("annotations", json::object()) : json::object();
    SegmentPod pod;
    // A count or an index past what `k8s job` makes is not the Job's: left out, so that a
    // hostile or mistaken annotation cannot make collect wait on a million segments.
    pod.index = number_or(text_at(annotations, std::string(kIndexAnnotation).c_str()), -1);
    if (pod.index < 0 || pod.index >= kMaxSegments) continue;
    pod.name = text_at(meta, "name");
    pod.phase = text_at(item.value("status", json::object()), "phase");
    pod.results = text_at(annotations, std::string(kResultsAnnotation).c_str());
    pod.pvc = text_at(annotations, std::string(kPvcAnnotation).c_str());
    pod.segments = number_or(text_at(annotations, std::string(kSegmentsAnnotation).c_str()), 0);
    if (pod.segments > kMaxSegments) pod.segments = 0;
    const json containers = item.value("spec", json::object()).value("containers", json::array());
    if (containers.is_array() && !containers.empty()) pod.image = text_at(containers[0], "image");
    if (pod.name.empty()) continue;
    pods.push_back(std::move(pod));
  }
  std::stable_sort(pods.begin(), pods.end(),
                   [](const SegmentPod& a, const SegmentPod& b) { return a.index < b.index; });
  return pods;
}

int collect_job(const CollectSpec& spec, std::ostream& say) {
  const std::vector<SegmentPod> pods =
      parse_job_pods(kubectl(spec, {"get", "pods", "-l", "job-name=" + spec.job, "-o", "json"},
                             spec.max_pods_json_bytes));
  if (pods.empty()) {
    throw UsageError("no pods of Job '" + spec.job + "'" +
                     (spec.namespace_name.empty() ? "" : " in namespace " + spec.namespace_name) +
                     " (deleted, or another namespace: --namespace)");
  }
  if (pods.front().results == "volume") return explain_volume(spec, pods.front(), say);
  int segments = 0;
  for (const SegmentPod& pod : pods) segments = std::max({segments, pod.segments, pod.index + 1});
  std::map<int, std::string> why_missing;
  for (int index = 0; index < segments; ++index) why_missing[index] = "no pod";

  const fs::path segments_dir = fs::path(spec.out) / "segments";
  fs::create_directories(segments_dir);
  for (const SegmentPod& pod : pods) {
    if (why_missing[pod.index].empty()) continue;  // a pod of this index already gave it
    // The pod's name and phase are the cluster's words: quoted before they reach a terminal.
    const std::string where = "pod " + printable(pod.name) + " " + printable(pod.phase) + ": ";
    if (pod.phase != "Succeeded" && pod.phase != "Failed") {
      why_missing[pod.index] = where + "not finished";
      continue;
    }
    const std::string name = "segment-" + std::to_string(pod.index);
    const fs::path log_file = segments_dir / (name + ".log");
    std::string why = save_log(spec, pod, log_file);
    if (why.empty()) {
      std::ifstream log(log_file, std::ios::binary);
      const fs::path destination = segments_dir / name;
      fs::remove_all(destination);
      why = log ? unpack_segment_log(log, pod.index, destination) : "cannot read its saved log";
    }
    std::error_code ignored;
    fs::remove(log_file, ignored);
    why_missing[pod.index] = why.empty() ? "" : where + why;
  }

  std::vector<std::string> merge = {spec.proofload, "merge"};
  int missing = 0;
  for (const auto& [index, why] : why_missing) {
    if (!why.empty()) {
      if (++missing <= kMissingLinesShown) say << "segment " << index << " missing: " << why << "\n";
    } else {
      merge.push_back((segments_dir / ("segment-" + std::to_string(index))).string());
    }
  }
  if (missing > kMissingLinesShown) {
    say << "and " << missing - kMissingLinesShown << " more segments missing\n";
  }
  const size_t collected = merge.size() - 2;
  say << "collected " << collected << " of " << segments << " segments into "
      << segments_dir.string() << "\n";
  if (collected == 0) return kExitFailure;
  merge.push_back("--out");
  merge.push_back((fs::path(spec.out) / "merged").string());
  say << "merging:";
  for (const std::string& arg : merge) say << " " << arg;
  say << std::endl;
  const int merged = run_merge(merge);
  if (merged != 0) return merged;
  return collected < static_cast<size_t>(segments) ? kExitFailure : kExitOk;
}

}  // namespace proofload::k8s
