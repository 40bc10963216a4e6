// See level_row.h.
#include "analyze/level_row.h"

namespace proofload::analyze {

double LevelRow::goodput() const {
  if (goodput_rps) return *goodput_rps;
  if (error_rate && *error_rate >= 0 && *error_rate <= 1) return achieved_rps * (1 - *error_rate);
  return achieved_rps;
}

double LevelRow::achieved_in_target_unit() const {
  return arrivals_rps ? *arrivals_rps : achieved_rps;
}

}  // namespace proofload::analyze
