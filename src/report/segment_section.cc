// See segment_section.h.
#include "report/segment_section.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

namespace proofload::report {
namespace {

std::string ms(double value) { return fmt::format("{:.1f} ms", value); }

std::string clock_words(const result::SegmentRecord& s) {
  if (!s.clock_synchronized) return "its clock's offset is unknown (" + s.clock + ")";
  std::string out = "its clock is synchronized by NTP";
  if (s.clock_error_ms) out += ", estimated error " + ms(*s.clock_error_ms);
  return out;
}

std::string segment_words(const result::SegmentRecord& s) {
  std::string out = fmt::format(
      "Segment {} of {} of one load (`--segment {}/{}`): this machine's share of its connections "
      "and arrivals; `proofload merge` puts the {} segments' directories together.",
      s.index, s.count, s.index, s.count, s.count);
  if (s.start_at_unix_ns && s.start_skew_ms) {
    out += " It started " + ms(std::abs(*s.start_skew_ms)) +
           (*s.start_skew_ms >= 0 ? " after" : " before") + " the agreed start";
  } else {
    out += " It had no agreed start (`--start-at`)";
  }
  out += (s.host.empty() ? "" : " on " + s.host) + "; " + clock_words(s) + ".";
  return out;
}

std::string merge_words(const result::MergeRecord& m) {
  std::string out;
  if (const std::string missing = m.missing_sentence(); !missing.empty()) {
    out += "**" + std::string(1, static_cast<char>(std::toupper(missing[0]))) + missing.substr(1) +
           "**";
    for (const result::MissingSegment& s : m.missing) {
      out += fmt::format(" Segment {}: {}.", s.index, s.reason);
    }
    out += "\n\n";
  }
  std::set<std::string> hosts;
  for (const result::SegmentRecord& s : m.segments) hosts.insert(s.host);
  out += fmt::format("Merged from {} of {} segments (`proofload merge`), on {} host{}",
                     m.segments.size(), m.count, hosts.size(), hosts.size() == 1 ? "" : "s");
  if (hosts.size() <= 8) {
    std::string names;
    for (const std::string& h : hosts) names += (names.empty() ? "" : ", ") + h;
    out += " (" + names + ")";
  }
  out += "; their loads started " + ms(m.start_spread_ms()) + " apart";
  if (const std::optional<double> error = m.clock_error_ms()) {
    out += ", by clocks synchronized by NTP to within " + ms(*error) + ".";
  } else {
    out +=
        ", as their own clocks read them: at least one clock's offset is unknown, so the "
        "spread is only as good as the clocks were set.";
  }
  return out;
}

}  // namespace

std::string segments_paragraph(const std::optional<result::SegmentRecord>& segment,
                               const std::optional<result::MergeRecord>& merged) {
  if (merged) return merge_words(*merged) + "\n\n";
  if (segment && segment->count > 1) return segment_words(*segment) + "\n\n";
  return "";
}

}  // namespace proofload::report
