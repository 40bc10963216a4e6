// Why a rate search ended, in words (analyze/rate_search.h holds its facts). Pure; thread-safe.
#pragma once

#include <string>

#include "analyze/rate_search.h"

namespace proofload::words {

// "" while it runs; "converged within 1%: between 148.5/s and 150/s", "held the SLO up to
// --max-rate 5,000/s", "no rate passed down to 1/s", "step limit (40) reached: between 140/s
// and 150/s", "the confirming run at 148.5/s broke the SLO" (confirm_attempts 1), "the
// confirming runs at 506/s, 481/s and 457/s broke the SLO", "converged within 1%: between 506/s
// and 511/s; confirmed at 481/s after the confirming run at 506/s broke the SLO".
std::string search_end_reason(const analyze::RateSearch& search);

}  // namespace proofload::words
