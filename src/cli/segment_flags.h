// --segment I/N and --start-at TIME (docs/distributed.md): registered on run, ladder, soak and
// probe, the experiments that one load over several machines can be made of, and read into the
// RunSpec. Throws UsageError with one line.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "cli/run_flags.h"
#include "plan/run_spec.h"

namespace proofload::cli {

void add_segment_flags(CLI::App* app, RunFlags& flags);

// "I/N" with I from 0 to N-1 (so that a Kubernetes Job's $JOB_COMPLETION_INDEX is passed as it
// is); the range against N is plan::check_segment's.
void parse_segment(const std::string& text, int& index, int& count);

// An RFC 3339 time ("2026-12-03T10:00:00Z", "...+01:00") or "+DURATION" from `now_wall_ns`
// ("+30s"), as Unix ns. A time more than a day past or a year ahead is a mistake, not a plan.
int64_t parse_start_at(const std::string& text, int64_t now_wall_ns);

// Sets the spec's segment and start from the flags (nothing when they were not given).
void apply_segment_flags(const RunFlags& flags, plan::RunSpec& spec);

}  // namespace proofload::cli
