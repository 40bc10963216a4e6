// `proofload merge` of the experiments made of one long step, run over segments: a soak's (its
// run's segments merged as a run, the merged 1 s windows folded into the soak's windows and
// judged against its bar, drift and marks on the whole load; every segment's canaries counted)
// and a probe's (each segment's own sources side by side, as if one machine had held every
// address, the correlations and verdict run on all of them; the variants are segment 0's). The
// merge ran as far as its least finished segment. Throw UsageError for directories that are not
// one load's segments.
#pragma once

#include <filesystem>
#include <vector>

#include "result/segment_record.h"

namespace proofload::merge {

result::MergeRecord merge_soaks(const std::vector<std::filesystem::path>& directories,
                                const std::filesystem::path& out);

result::MergeRecord merge_probes(const std::vector<std::filesystem::path>& directories,
                                 const std::filesystem::path& out);

}  // namespace proofload::merge
