// `proofload merge DIR... --out DIR`: one load's segments, each a directory written with
// --segment on its own machine, into one ordinary result directory (docs/distributed.md): its
// result.json, windows.csv, latency.hlog, summary.md and report.html as if one generator had sent
// the whole load, with what was missing said. It exits 99 when the merge fails what the
// experiment exits 99 for, judged on the whole load (a run's thresholds, a ladder's CI bar, a
// soak's bar, a probe's verdict). A ladder's, a soak's and a probe's segments merge
// level by level, window by window, source by source (src/merge).
#include <cstdio>

#include "cli/subcommand.h"
#include "common/usage_error.h"
#include "merge/merge_experiment.h"

namespace proofload::cli {

Subcommand add_merge_command(CLI::App& parent) {
  auto directories = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  CLI::App* app = parent.add_subcommand(
      "merge",
      "Merge the segments of one load (directories written with --segment I/N) into one "
      "result directory, without loss");
  app->add_option("directories", *directories, "The segments' result directories")->required();
  app->add_option("-o,--out", *out, "The merged result directory (created)")->required();
  return {app, [=] {
            std::vector<std::filesystem::path> paths(directories->begin(), directories->end());
            const merge::MergeSummary merged = merge::merge_segments(paths, *out);
            std::printf("merge: %s of %d segments into %s (%s)\n",
                        std::to_string(merged.record.segments.size()).c_str(), merged.record.count,
                        out->c_str(), merged.kind.c_str());
            if (const std::string missing = merged.record.missing_sentence(); !missing.empty()) {
              std::printf("merge: %s\n", missing.c_str());
            }
            std::printf("report in %s/summary.md, charts in %s/report.html\n", out->c_str(),
                        out->c_str());
            return merged.held ? kExitOk : kExitThresholds;
          }};
}

}  // namespace proofload::cli
