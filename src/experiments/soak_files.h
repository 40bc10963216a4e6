// The files a soak streams as it runs, so that a soak killed at any moment leaves what
// `proofload report` needs to rebuild its report: soak-plan.json (its settings, written once at
// the start), windows.csv (a line per finished window), canaries.csv (a line per canary answer)
// and marks.log (a line per mark, appended by the soak or by `proofload mark` from another
// process). Each line is written whole and flushed; a reader skips an unfinished last line.
// Writers belong to one thread each; the readers are pure.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/soak_analysis.h"
#include "experiments/canaries.h"
#include "report/line_file.h"

namespace proofload::experiments {

using report::LineFile;

inline constexpr const char* kSoakPlanJson = "soak-plan.json";
inline constexpr const char* kSoakWindowsCsv = "windows.csv";
inline constexpr const char* kCanariesCsv = "canaries.csv";
inline constexpr const char* kMarksLog = "marks.log";

// windows.csv: a header and a line per window.
std::string soak_windows_csv_header();
std::string soak_windows_csv_line(const analyze::SoakWindowRow& row);
// Every complete line of a windows.csv (a torn last line is skipped). Throws std::runtime_error
// for a line that is complete but not a window.
std::vector<analyze::SoakWindowRow> parse_soak_windows_csv(std::string_view text);

// canaries.csv: at_s (from the hold's start), name, right, retried, reason.
std::string canaries_csv_header();
std::string canaries_csv_line(const CanaryResult& result, double at_s);
struct RecordedCanary {
  double at_s = 0;
  std::string name;
  bool right = false;
  bool retried = false;
  std::string reason;
};
std::vector<RecordedCanary> parse_canaries_csv(std::string_view text);

// marks.log: "UNIX_NS<TAB>SOURCE<TAB>LABEL" lines; SOURCE is scheduled or external.
struct LoggedMark {
  int64_t wall_ns = 0;
  std::string source;
  std::string label;
};
// Appends one mark with a single write() on an O_APPEND descriptor, so marks from several
// processes never interleave. Tabs and line breaks in the label become spaces. Throws
// std::runtime_error when the file cannot be written.
void append_mark(const std::filesystem::path& directory, const std::string& source,
                 const std::string& label, int64_t wall_ns);
// The complete lines of `text` from byte `offset` on; advances `offset` past them.
std::vector<LoggedMark> read_marks(std::string_view text, size_t& offset);


}  // namespace proofload::experiments
