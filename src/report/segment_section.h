// What a report says of a load run as segments (docs/distributed.md): a segment's paragraph (its
// share, its start against the agreed one, its clock) and a merge's (how many segments, how far
// apart they started, their clocks, and any missing in bold: the figures are then for part of
// the load). Shared by the run's, the ladder's, the soak's and the probe's summary.md. Pure.
#pragma once

#include <optional>
#include <string>

#include "result/segment_record.h"

namespace proofload::report {

// "" when the run was neither a segment nor a merge; else a paragraph ending in a blank line.
std::string segments_paragraph(const std::optional<result::SegmentRecord>& segment,
                               const std::optional<result::MergeRecord>& merged);

}  // namespace proofload::report
