// See scenario_files.h. Secrets (${file:PATH}) are never gathered: a ConfigMap is not the place
// for them (docs/distributed.md says to mount a Secret).
#include "k8s/scenario_files.h"

#include <filesystem>
#include <set>

#include "common/file_text.h"
#include "common/usage_error.h"
#include "workload/scenario_yaml.h"

namespace proofload::k8s {
namespace {

namespace fs = std::filesystem;

// Data files are read up to this size by the scenario parser too; the ConfigMap's own bound
// (1 MiB) is checked on the whole set.
constexpr int64_t kMaxFileBytes = int64_t{256} << 20;

void named_by(const workload::DataSpec& data, std::vector<std::string>& paths) {
  if (!data.path.empty()) paths.push_back(data.path);
  for (const workload::DataSpec& inner : data.pool_of) named_by(inner, paths);
}

// `path` as the pod sees it under the mount: relative to the scenario's directory.
std::string relative_in_pod(const fs::path& scenario_dir, const fs::path& path,
                            const std::string& as_written) {
  const fs::path absolute = fs::weakly_canonical(path.is_absolute() ? path : scenario_dir / path);
  const fs::path relative = absolute.lexically_relative(fs::weakly_canonical(scenario_dir));
  if (relative.empty() || *relative.begin() == ".." || relative.is_absolute()) {
    throw UsageError("'" + as_written +
                     "' is outside the scenario's directory: the pods see only files under it, "
                     "at the same relative paths (move it there)");
  }
  return relative.lexically_normal().string();
}

}  // namespace

std::vector<MountedFile> scenario_files(const std::string& scenario_path,
                                        const std::vector<std::string>& extra_files) {
  const workload::Scenario scenario = workload::load_scenario_file(scenario_path);
  const fs::path scenario_dir = fs::path(scenario_path).parent_path().empty()
                                    ? fs::path(".")
                                    : fs::path(scenario_path).parent_path();
  std::vector<std::string> named;  // as written, relative to the scenario's directory
  for (const workload::DataSpec& data : scenario.data) named_by(data, named);
  for (const auto* requests : {&scenario.requests, &scenario.canaries}) {
    for (const workload::RequestSpec& request : *requests) {
      if (request.stream && !request.stream->fixture_path.empty()) {
        named.push_back(request.stream->fixture_path);
      }
    }
  }
  std::vector<MountedFile> files;
  files.push_back({fs::path(scenario_path).filename().string(),
                   read_bounded_file(scenario_path, "scenario file", kMaxFileBytes)});
  std::set<std::string> seen = {files.front().path};
  auto add = [&](const fs::path& on_disk, const std::string& as_written) {
    std::string in_pod = relative_in_pod(scenario_dir, on_disk, as_written);
    if (!seen.insert(in_pod).second) return;
    const fs::path source = on_disk.is_absolute() ? on_disk : scenario_dir / on_disk;
    files.push_back({in_pod, read_bounded_file(source.string(), "data file", kMaxFileBytes)});
  };
  for (const std::string& path : named) add(path, path);
  // --data-file is a path from here; the pod finds it at its place relative to the scenario.
  for (const std::string& extra : extra_files) add(fs::absolute(extra), extra);
  return files;
}

}  // namespace proofload::k8s
