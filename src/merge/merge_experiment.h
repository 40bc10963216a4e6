// `proofload merge`'s one entry: which experiment the segments' directories hold (a run's, a
// ladder's, a soak's or a probe's, each run with --segment), checked to be one kind, and merged
// by that experiment's merge, as the registry (registry/experiment_kinds.h) has them. Throws
// UsageError with one line for directories that are not one load's segments.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "result/segment_record.h"

namespace proofload::merge {

struct MergeSummary {
  std::string kind;  // the registry's name of the kind (registry/experiment_kinds.h): "run", ...
  result::MergeRecord record;
  // The merge met what the experiment itself exits 0 for (a run's thresholds, a ladder's CI bar,
  // a soak's bar, a probe's verdict), judged on the whole load: `merge` exits 99 when not.
  bool held = true;
};

MergeSummary merge_segments(const std::vector<std::filesystem::path>& directories,
                            const std::filesystem::path& out);

}  // namespace proofload::merge
