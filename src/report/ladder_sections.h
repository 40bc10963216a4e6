// The sections of a ladder's summary.md beside its short version: the title and scope, the levels
// table, findings and what this does not show. Internal to ladder_report.cc. Pure; thread-safe.
#pragma once

#include <string>

#include "report/ladder_facts.h"

namespace proofload::report::ladder {

std::string header_section(const LadderResult& v);
// "Levels" (ladder_levels.cc): the table of every level, and the notes under it.
std::string levels_table(const LadderResult& v);
std::string findings_section(const LadderResult& v);
std::string limits_section(const LadderResult& v);
// "Streams by level" (ladder_streams.cc): only when a level streamed.
std::string streams_by_level(const LadderResult& v);
// "Each request by level" (ladder_routes.cc): only when a scenario names two requests or more.
std::string routes_by_level(const LadderResult& v);
// "By request: `write` is flat from level 400 and `read` still gains +40.2% at level 800.", or ""
// when the table above is not shown.
std::string route_plateaus_text(const LadderResult& v);

}  // namespace proofload::report::ladder
