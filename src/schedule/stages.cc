// See stages.h.
#include "schedule/stages.h"

#include <limits>
#include <string>

#include "common/text.h"
#include "common/units.h"
#include "common/usage_error.h"

namespace proofload::schedule {

std::vector<Stage> parse_stages(std::string_view text) {
  const std::string_view all = trim(text);
  if (all.empty()) {
    throw UsageError("invalid stages \"\": expected DURATION:TARGET pairs, like 10s:100,30s:1000");
  }
  std::vector<Stage> stages;
  int64_t total_ns = 0;
  std::string_view rest = all;
  for (int index = 1;; ++index) {
    const size_t comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    const std::string where = "stage " + std::to_string(index) + " \"" + std::string(item) +
                              "\" in \"" + std::string(all) + "\"";
    const size_t colon = item.find(':');
    if (item.empty() || colon == std::string_view::npos) {
      throw UsageError("invalid " + where + ": expected DURATION:TARGET, like 30s:1000");
    }
    Stage stage{};
    try {
      stage.duration_ns = parse_duration_ns(item.substr(0, colon));
      stage.target = parse_scaled_number(item.substr(colon + 1), "target");
    } catch (const UsageError& e) {
      throw UsageError("invalid " + where + ": " + e.what());
    }
    if (stage.duration_ns > std::numeric_limits<int64_t>::max() - total_ns) {
      throw UsageError("invalid stages \"" + std::string(all) + "\": total duration too large");
    }
    total_ns += stage.duration_ns;
    stages.push_back(stage);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (total_ns == 0) {
    throw UsageError("invalid stages \"" + std::string(all) + "\": the total duration is zero");
  }
  return stages;
}

}  // namespace proofload::schedule
