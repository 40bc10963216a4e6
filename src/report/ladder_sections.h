// The prose sections of a ladder's summary.md: the title and scope, findings and what this does
// not show. Internal to ladder_report.cc. Pure; thread-safe.
#pragma once

#include <string>

#include "report/ladder_facts.h"

namespace proofload::report::ladder {

std::string header_section(const LadderResult& v);
std::string findings_section(const LadderResult& v);
std::string limits_section(const LadderResult& v);
// "Streams by level" (ladder_streams.cc): only when a level streamed.
std::string streams_by_level(const LadderResult& v);

}  // namespace proofload::report::ladder
