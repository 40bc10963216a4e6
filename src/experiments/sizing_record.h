// What a sizing records of each configuration, read off that configuration's ladder (its
// result.json and its levels' runs), and the sizing directory's files (result.json, summary.md)
// written atomically. Shared by `proofload sizing` and `proofload report`, so that a report is
// rendered the same way from the same data. One caller at a time per directory.
#pragma once

#include <filesystem>

#include "result/ladder_result.h"
#include "result/sizing_result.h"

namespace proofload::experiments {

// The configuration's figures from its ladder: best sustained (and per core, when its cores are
// known), peak and knee from the ladder's analysis; the highest throttled share, server CPU and
// generator flag over its levels; the highest memory any observer other than the generator and
// the host saw in a level's run (read from `ladder_dir`/LEVEL/result.json; a run that cannot be
// read adds nothing). Leaves name, cores and targets as they are.
void fill_config_figures(result::SizingConfigRecord& config, const result::LadderResult& ladder,
                         const std::filesystem::path& ladder_dir);

// Each configuration's figures again from its ladder directory under `directory` (a ladder that
// cannot be read keeps what was recorded): what `proofload report` runs before rendering.
void refresh_config_figures(const std::filesystem::path& directory, result::SizingResult& sizing);

// Writes result.json and summary.md into `directory`, each atomically. Throws
// std::runtime_error on I/O failure.
void write_sizing_directory(const std::filesystem::path& directory,
                            const result::SizingResult& sizing);

}  // namespace proofload::experiments
