// The opening of a ladder's summary.md (see ladder_sections.h): the title, what was measured and
// how (loop, levels, hold, repeats, protocol), when and with which version, and whether it ended.
#include <fmt/format.h>

#include "report/ladder_sections.h"
#include "report/markdown_text.h"
#include "report/segment_section.h"
#include "words/numbers.h"

namespace proofload::report::ladder {

using namespace markdown;  // tables and code (markdown_text.h)
using namespace words;     // numbers (words/numbers.h)
namespace {

std::string title_of(const LadderResult& v) {
  if (!v.source.target.empty()) return v.source.target;
  if (!v.source.scenario_file.empty()) return v.source.scenario_file;
  if (!v.source.table_file.empty()) return v.source.table_file;
  return "target not recorded";
}

std::string hold_words(const LadderResult& v, std::optional<double> hold_s) {
  if (!hold_s) return "hold not recorded";
  std::string out = "held " + seconds_text(*hold_s);
  if (!v.settings.warmup_s) return out + " (warm-up not recorded)";
  if (*v.settings.warmup_s == 0) return out + " with no warm-up";
  return out + " after " + seconds_text(*v.settings.warmup_s) + " of warm-up";
}

std::string repeat_words(const LadderResult& v) {
  const int runs = runs_per_level(v);
  if (runs <= 1) return "one run per level";
  if (v.settings.repeat_order == "interleaved") {
    return fmt::format("the whole ladder run {} times over (repeat order: interleaved)", runs);
  }
  if (v.settings.repeat_order == "sequence") {
    return fmt::format("each level run {} times in a row (repeat order: sequence)", runs);
  }
  return fmt::format("{} runs per level", runs);
}

std::string scope_of(const LadderResult& v) {
  std::vector<double> levels = v.settings.levels;
  if (levels.empty()) {
    for (const LevelAnalysis& l : levels_of(v)) levels.push_back(l.level);
  }
  const std::string loop = loop_of(v) == "closed" ? "Closed loop"
                           : loop_of(v) == "open" ? "Open loop"
                                                  : "Loop not recorded";
  if (v.kind == "analyze") {
    return fmt::format(
        "Levels read from the table {} ({} rows, {} levels, {}; {}), not measured by proofload. "
        "Hold and warm-up are not recorded.",
        v.source.table_file.empty() ? "(file not recorded)" : inline_code(v.source.table_file),
        count_text(static_cast<double>(v.rows.size())),
        count_text(static_cast<double>(levels_of(v).size())), repeat_words(v),
        loop_of(v).empty() ? "loop not stated" : loop_of(v) + " loop, as stated");
  }
  if (v.kind == "search" && v.search) {
    const result::SearchRecord& s = *v.search;
    std::string out = loop + " rate search: ";
    out += s.start_rps ? "from " + rate_text(*s.start_rps) : "start rate not recorded";
    if (s.growth) out += ", growing ×" + level_text(*s.growth) + " while the SLO held";
    if (s.tolerance) out += ", then bisecting to within " + percent_text(*s.tolerance, 1);
    if (s.max_rps) out += ", never above " + rate_text(*s.max_rps);
    out += "; each step " + hold_words(v, s.step_hold_s) +
           ", then one confirming run at the rate found.";
    return out;
  }
  std::string out = loop;
  out += loop_of(v) == "closed"
             ? ": concurrency levels " + levels_text(levels) + " (requests in flight)"
         : loop_of(v) == "open" ? ": target rates " + levels_text(levels) +
                                      (v.source.scenario_file.empty()
                                           ? " requests/s"
                                           : " arrivals/s (an arrival is one pick of the mix)")
                                : ": levels " + levels_text(levels);
  out += ", each " + hold_words(v, v.settings.hold_s) + "; " + repeat_words(v) + ".";
  const bool h2 = v.source.protocol == "h2";
  if (!v.source.tls_version.empty()) {
    out += std::string(" Over HTTPS: ") + (h2 ? "HTTP/2" : "HTTP/1.1") + " over " +
           v.source.tls_version +
           (v.source.tls_alpn.empty() ? ", no ALPN protocol agreed."
                                      : " (ALPN " + v.source.tls_alpn + ").");
  } else if (h2) {
    out += " Over HTTP/2 without TLS (h2c, by prior knowledge).";
  }
  if (h2 && v.source.h2_streams && *v.source.h2_streams > 1) {
    out +=
        " Each connection carries up to " + count_text(static_cast<double>(*v.source.h2_streams)) +
        " streams" +
        (loop_of(v) == "closed" ? ": at each level that many times its connections are in flight."
                                : ".");
  }
  if (v.settings.stop_on_fail)
    out += " Set to stop at the first level that breaks the SLO (--stop-on-fail).";
  return out;
}

std::string when_of(const LadderResult& v) {
  const std::string version = v.proofload_version.empty() ? "proofload version not recorded"
                                                          : "proofload " + v.proofload_version;
  if (v.kind == "analyze") {
    return "Analysed with " + version + "; when the table was measured is not recorded.";
  }
  std::string out = v.started_at.empty() ? "Start time not recorded" : "Started " + v.started_at;
  if (!v.finished_at.empty()) out += ", finished " + v.finished_at;
  return out + "; " + version + ".";
}

}  // namespace

std::string header_section(const LadderResult& v) {
  std::string out =
      "# Ladder: " + title_of(v) + "\n\n" + scope_of(v) + "\n\n" + when_of(v) + "\n\n" +
      segments_paragraph(v.segment, v.merged);
  if (v.status != "complete") {
    out += "**Not complete (" + v.status +
           ")**: " + (v.end_reason.empty() ? "no reason recorded" : v.end_reason) +
           ". Every figure below covers only the levels that ran";
    const std::vector<double> missing = levels_not_run(v);
    if (!missing.empty()) out += "; not run: level " + levels_text(missing);
    out += ".\n\n";
  }
  return out;
}

}  // namespace proofload::report::ladder
