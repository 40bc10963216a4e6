// See merge_experiment.h.
#include "merge/merge_experiment.h"

#include "common/usage_error.h"
#include "experiments/segment_file.h"
#include "merge/merge_run.h"

namespace proofload::merge {

namespace fs = std::filesystem;

MergeSummary merge_segments(const std::vector<fs::path>& directories, const fs::path& out) {
  if (directories.empty()) throw UsageError("merge needs the segments' directories");
  for (const fs::path& d : directories) {
    std::error_code ignored;
    if (fs::weakly_canonical(d, ignored) == fs::weakly_canonical(out, ignored))
      throw UsageError("merge: --out " + out.string() + " is a segment");
  }
  return {"run", merge_runs(directories, out)};
}

}  // namespace proofload::merge
