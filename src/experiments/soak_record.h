// A soak's result from what it recorded, one way whether the soak finished or was killed:
// complete_soak judges the windows (their canaries counted from the canaries' answers), the
// summary, drift, the slowest request and the marks; rebuild_soak reads the streamed files of a
// soak that did not write its result.json (soak_files.h) and completes them the same way.
// Pure apart from the files named; one caller at a time per directory.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "analyze/soak_analysis.h"
#include "experiments/soak_files.h"
#include "report/run_result.h"
#include "result/soak_result.h"

namespace proofload::experiments {

// The canaries' answers, counted as they come: per window (by the window their first attempt
// started in) and per canary. A soak keeps this, not each answer: an entry per window.
class CanaryTally {
 public:
  explicit CanaryTally(double window_s) : window_s_(window_s) {}
  void add(const RecordedCanary& canary);
  // {right, wrong} of the window with this index.
  std::pair<int64_t, int64_t> of_window(int64_t index) const;
  const result::CanaryTotals& totals() const { return totals_; }

 private:
  double window_s_;
  std::map<int64_t, std::pair<int64_t, int64_t>> by_window_;
  result::CanaryTotals totals_;
};

// Fills r.ramp and r.windows from `rows` (each window's canaries from `canaries`, each judged
// against r.settings.bar), then the summary, drift, slowest and each mark's verdict.
// r.settings must be set.
void complete_soak(result::SoakResult& r, std::vector<analyze::SoakWindowRow> rows,
                   const CanaryTally& canaries, const std::vector<analyze::Mark>& marks);

// Marks from marks.log, placed against the hold's start; a scheduled one gets its command from
// the settings (its exit status is not in the log).
std::vector<analyze::Mark> marks_from_log(const std::vector<LoggedMark>& logged,
                                          const result::SoakResult& r);

// The canaries' answers a soak streamed to DIRECTORY/canaries.csv, added to `tally` (none when
// there is no file), and the marks of its marks.log.
void add_recorded_canaries(const std::filesystem::path& directory, CanaryTally& tally);
std::vector<LoggedMark> read_marks_log(const std::filesystem::path& directory);

// Every window met the bar, no mark failed and the hold did not drift: what exit 0 says (99
// otherwise).
bool soak_held(const result::SoakResult& r);

// Whether `directory` holds a soak (its soak-plan.json).
bool is_soak_directory(const std::filesystem::path& directory);

// The soak's result: result.json when the soak finished it; else rebuilt from soak-plan.json,
// windows.csv, canaries.csv and marks.log (status "interrupted", rebuilt = true). Throws
// std::runtime_error naming the file that cannot be read.
result::SoakResult read_or_rebuild_soak(const std::filesystem::path& directory);

// The observers' failed samples in one run window, and the first failing source with why ("" when
// none): what the soak's window states as missing on the server side.
std::pair<int64_t, std::string> observer_gaps(const std::vector<report::ObservedFigures>& observed);

// Keeps the memory of each observed process, cgroup and pod (not the generator's or the host's)
// as its first, last and peak over the soak, one window's figures at a time.
void track_server_memory(std::vector<result::ServerMemory>& server,
                         const std::vector<report::ObservedFigures>& observed);

// Writes result.json, windows.csv (every window, as judged) and summary.md, each atomically.
void write_soak_directory(const std::filesystem::path& directory, const result::SoakResult& r);

}  // namespace proofload::experiments
