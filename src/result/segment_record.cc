// See segment_record.h.
#include "result/segment_record.h"

#include <algorithm>

#include "result/json_values.h"

namespace proofload::result {

using nlohmann::json;

json segment_json(const SegmentRecord& s) {
  return {
      {"index", s.index},
      {"count", s.count},
      {"host", s.host},
      {"start_at_unix_ns", optional_json(s.start_at_unix_ns)},
      {"start_unix_ns", s.start_unix_ns},
      {"start_skew_ms", optional_json(s.start_skew_ms)},
      {"clock",
       {{"synchronized", s.clock_synchronized},
        {"offset_ms", optional_json(s.clock_offset_ms)},
        {"error_ms", optional_json(s.clock_error_ms)},
        {"description", s.clock}}},
      {"directory", text_or_null(s.directory)},
  };
}

SegmentRecord segment_from_json(const JsonReader& r) {
  SegmentRecord s;
  s.index = static_cast<int>(r.count("index").value_or(0));
  s.count = static_cast<int>(r.count("count").value_or(1));
  s.host = r.text("host");
  s.start_at_unix_ns = r.count("start_at_unix_ns");
  s.start_unix_ns = r.count("start_unix_ns").value_or(0);
  s.start_skew_ms = r.number("start_skew_ms");
  const JsonReader clock = r.object("clock");
  s.clock_synchronized = clock.boolean("synchronized").value_or(false);
  s.clock_offset_ms = clock.number("offset_ms");
  s.clock_error_ms = clock.number("error_ms");
  s.clock = clock.text("description");
  s.directory = r.text("directory");
  return s;
}

double MergeRecord::start_spread_ms() const {
  if (segments.empty()) return 0;
  const auto [first, last] = std::minmax_element(
      segments.begin(), segments.end(), [](const SegmentRecord& a, const SegmentRecord& b) {
        return a.start_unix_ns < b.start_unix_ns;
      });
  return static_cast<double>(last->start_unix_ns - first->start_unix_ns) / 1e6;
}

std::optional<double> MergeRecord::clock_error_ms() const {
  double largest = 0;
  for (const SegmentRecord& s : segments) {
    if (!s.clock_synchronized || !s.clock_error_ms) return std::nullopt;
    largest = std::max(largest, *s.clock_error_ms);
  }
  return largest;
}

std::string MergeRecord::missing_sentence() const {
  if (missing.empty()) return "";
  std::string which;
  for (size_t i = 0; i < missing.size(); ++i) {
    if (i > 0) which += i + 1 == missing.size() ? " and " : ", ";
    which += std::to_string(missing[i].index);
  }
  const int present = count - static_cast<int>(missing.size());
  return (missing.size() > 1 ? "segments " : "segment ") + which + " of " + std::to_string(count) +
         " missing: figures are for " + std::to_string(present) + "/" + std::to_string(count) +
         " of the load.";
}

json merge_json(const MergeRecord& m) {
  json segments = json::array();
  for (const SegmentRecord& s : m.segments) segments.push_back(segment_json(s));
  json missing = json::array();
  for (const MissingSegment& s : m.missing) {
    missing.push_back({{"index", s.index}, {"reason", s.reason}});
  }
  return {{"count", m.count},
          {"segments", segments},
          {"missing", missing},
          {"start_spread_ms", m.start_spread_ms()}};
}

MergeRecord merge_from_json(const JsonReader& r) {
  MergeRecord m;
  m.count = static_cast<int>(r.count("count").value_or(0));
  for (const JsonReader& s : r.objects("segments")) m.segments.push_back(segment_from_json(s));
  for (const JsonReader& s : r.objects("missing")) {
    m.missing.push_back({static_cast<int>(s.count("index").value_or(0)), s.text("reason")});
  }
  return m;
}

}  // namespace proofload::result
