// `proofload merge` of ladders run over segments (`ladder --rates ... --segment I/N --start-at
// T`): every level's segment runs merged into levels/NAME of the merged directory (merge_run.h),
// a row made of each merged level as the ladder makes one of its run, and the ladder analysis
// (verdicts, knee, best sustained) run on those rows, so the verdicts are the whole load's. The
// merge ran as far as its least finished segment. Throws UsageError for ladders that are not
// one load's segments.
#pragma once

#include <filesystem>
#include <vector>

#include "result/segment_record.h"

namespace proofload::merge {

result::MergeRecord merge_ladders(const std::vector<std::filesystem::path>& directories,
                                  const std::filesystem::path& out);

}  // namespace proofload::merge
