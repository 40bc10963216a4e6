// See ladder_steps.h.
#include "analyze/ladder_steps.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "common/text.h"
#include "words/numbers.h"

namespace proofload::analyze::steps {

std::string signed_gain_text(double gain, double floor) {
  const bool flat = std::abs(gain) < floor;
  std::string digits;
  for (int decimals = 1; decimals <= 4; ++decimals) {
    digits = fmt::format("{:.{}f}", std::abs(gain) * 100, decimals);
    if ((std::strtod(digits.c_str(), nullptr) / 100 < floor) == flat) break;
  }
  return (gain < 0 ? "-" : "+") + group_thousands(digits) + "%";
}

std::optional<double> gain(double previous_goodput, double goodput) {
  if (previous_goodput > 0) return goodput / previous_goodput - 1;
  if (goodput == 0) return 0.0;  // nothing, then nothing: flat
  return std::nullopt;
}

std::string gain_text(std::optional<double> gain, double floor) {
  if (!gain) return "grows from nothing (the level before had no goodput)";
  const std::string shown = signed_gain_text(*gain, floor);
  const std::string floor_text = words::percent_text(floor, 1);
  if (std::abs(*gain) < floor) return shown + ": flat, inside the " + floor_text + " noise floor";
  return shown + (*gain < 0 ? ": falls" : ": grows") + ", beyond the " + floor_text +
         " noise floor";
}

std::optional<size_t> plateau_start(const std::vector<std::optional<double>>& gains, double floor) {
  // Scan back from the last step while each stops growing.
  std::optional<size_t> from;
  for (size_t i = gains.size(); i-- > 1;) {
    if (!gains[i] || *gains[i] >= floor) break;
    from = i - 1;
  }
  return from;
}

}  // namespace proofload::analyze::steps
