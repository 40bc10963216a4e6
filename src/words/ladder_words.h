// A ladder's analysis in words: the noise floor, each step's gain, why the knee is the knee, the
// best sustained level and what the operating target stands on. The analysis
// (analyze/ladder_analysis.h) is numbers and enums; these are its sentences, written once into
// its text fields, which result.json records and the reports quote. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyze/ladder_analysis.h"

namespace proofload::words {

// "+1.3%", "-7.0%": one decimal, more when one would put the gain on the other side of the
// floor than its verdict (4.96% is flat inside 5%, so it is not printed as 5.0%).
std::string signed_gain_text(double gain, double floor);

// A step in a table's cell: "+1.3% flat", "-7.0%".
std::string step_cell_text(double gain, double floor);

// "+1.3%: flat, inside the 6.7% noise floor", "-7.0%: falls, beyond the 5.0% noise floor";
// without a gain, "grows from nothing (the level before had no goodput)".
std::string gain_text(std::optional<double> gain, double floor);

// "6.7% (measured from repeats of 4 levels: a spread of 2.2% between a level's repeats plus
// 4.5% of drift over the time between levels)", "5.0% (default: …)", "6.7% (stated with
// --noise-floor)".
std::string noise_floor_text(const analyze::NoiseFloor& floor);

// "breaks the SLO: p95 = 1,140 ms (bound p95 <= 1s)", "achieved 2,066/s falls short of the
// 2,500/s target by 17.4% (beyond the 5.0% noise floor)", "saturation point: the next level
// gains +1.3% (inside the 5.0% noise floor) while p95 climbs from 184 ms to 317 ms"; "" without
// a knee.
std::string knee_reason(const analyze::LadderAnalysis& a);

// "1,930/s at level 512", or "none: the lowest level was already past it".
std::string best_sustained_text(const analyze::LadderAnalysis& a);

// "50% of the knee (2,066/s at level 6): 2.0x headroom"; "50% of the highest level tested (…;
// no knee reached: the true headroom is larger)"; "none: the lowest level already broke the SLO".
std::string operating_basis_text(const analyze::LadderAnalysis& a);

// Writes every sentence above into `a`'s text fields (the noise floor's, each level's and each
// route level's gain, the knee's reason, the best sustained level's, the operating basis).
void describe_ladder(analyze::LadderAnalysis& a);

// analyze::analyze_ladder with its words: the analysis as a ladder records it.
analyze::LadderAnalysis described_ladder(const std::vector<analyze::LevelRow>& rows,
                                         const analyze::Slo& slo,
                                         const analyze::AnalysisOptions& options);

}  // namespace proofload::words
