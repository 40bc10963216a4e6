// The files a scenario needs in a pod: the scenario itself and every data file it names (`file:`,
// `csv:`, a word list, a stream fixture), each at its path relative to the scenario's directory,
// where the pod's mount (job_manifest.h's kScenarioDir) puts it. Configuration time only.
#pragma once

#include <string>
#include <vector>

#include "k8s/job_manifest.h"

namespace proofload::k8s {

// Loads `scenario_path` with the scenario parser (so a bad file is the same one-line error as
// `proofload run` gives) and reads the files it names, plus `extra_files` (--data-file, relative
// to the current directory). The scenario comes first. Throws UsageError for a file the pod
// could not find at the same relative path: one outside the scenario's directory.
std::vector<MountedFile> scenario_files(const std::string& scenario_path,
                                        const std::vector<std::string>& extra_files);

}  // namespace proofload::k8s
