// One load run as N segments (docs/distributed.md): a segment's own facts, `segment` in its
// result.json (where and when it started, how far its clock can be trusted), and a merge's,
// `merged` in the merged result.json (which segments it holds, which are missing and why). Each a
// typed value with its paired to_json / from_json, shared by the run's, the ladder's, the soak's
// and the probe's files. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "result/json_reader.h"

namespace proofload::result {

struct SegmentRecord {
  int index = 0;  // 0 .. count-1
  int count = 1;
  std::string host;
  std::optional<int64_t> start_at_unix_ns;  // the agreed start (--start-at); nullopt: none
  int64_t start_unix_ns = 0;                // when this segment's load started
  std::optional<double> start_skew_ms;      // started minus agreed: late is positive
  // The machine's clock as the kernel saw it (common/wall_time.h's ClockStatus).
  bool clock_synchronized = false;
  std::optional<double> clock_offset_ms, clock_error_ms;
  std::string clock;      // one line: "synchronized by NTP (adjtimex)", "unknown: ..."
  std::string directory;  // in a merge: where the segment was read from
};
nlohmann::json segment_json(const SegmentRecord& s);
SegmentRecord segment_from_json(const JsonReader& s);

struct MissingSegment {
  int index = 0;
  std::string reason;  // "no directory given", "its run did not finish", ...
};

struct MergeRecord {
  int count = 0;                         // the segments the load was split into
  std::vector<SegmentRecord> segments;   // those merged, by index
  std::vector<MissingSegment> missing;   // by index
  // Latest start minus earliest, ms: how far apart the merged segments began.
  double start_spread_ms() const;
  // Of the clocks, the largest estimated error when every one is synchronized; nullopt when any
  // clock is unknown (the spread is then only as good as the clocks were set).
  std::optional<double> clock_error_ms() const;
  // What a report opens with when segments are missing: "segment 2 of 3 missing: figures are for
  // 2/3 of the load." ("" when none is).
  std::string missing_sentence() const;
};
nlohmann::json merge_json(const MergeRecord& m);
MergeRecord merge_from_json(const JsonReader& m);

}  // namespace proofload::result
