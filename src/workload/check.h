// Checks on a response (status set or range, body contains, body matches a regex, JSON value at
// a pointer equals a value), compiled once from the scenario's CheckSpec and run on the engine's
// thread after each response of a request that has checks. A CompiledCheck is immutable after
// compile(): one may be shared by several threads, each with its own JsonBodyCache.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "workload/json_body.h"
#include "workload/pattern.h"
#include "workload/response_view.h"
#include "workload/scenario.h"

namespace proofload::workload {

enum class CheckResult {
  kPassed,
  kFailed,
  // The check reads the body and the body was cut at the capture cap, so it cannot be judged:
  // counted as a failure, with this reason.
  kBodyTruncated,
};

class CompiledCheck {
 public:
  // Throws UsageError for an invalid regex or JSON pointer, a json_value that is not JSON, an
  // empty status set or a range with min > max. The message names the problem in one line
  // without a location; the caller prefixes spec.where.
  static CompiledCheck compile(const CheckSpec& spec);

  // Never throws for any response (a body that is not JSON fails a JSON check).
  // - status checks ignore the body;
  // - `body contains` on a truncated body passes when the text is in the captured part and
  //   otherwise gives kBodyTruncated (the text may lie beyond the cap);
  // - `body matches` and JSON checks on a truncated body give kBodyTruncated (a regex may match
  //   differently on a prefix; a cut body is not JSON). Regexes are RE2's (pattern.h): linear
  //   in the body, whatever the pattern.
  CheckResult evaluate(const ResponseView& response, JsonBodyCache& json) const;
  bool passes(const ResponseView& response, JsonBodyCache& json) const {
    return evaluate(response, json) == CheckResult::kPassed;
  }

  bool needs_body() const;  // body and JSON checks: the engine must capture the body
  // For reports: the spec's description, or one made from the spec when that is empty
  // ("status 200-299", "status 200, 204", "body contains 'ok'", "json /id == 42").
  const std::string& description() const { return description_; }
  CheckSpec::Kind kind() const { return kind_; }

 private:
  CheckSpec::Kind kind_ = CheckSpec::Kind::kStatusIn;
  std::vector<int> statuses_;
  int status_min_ = 0;
  int status_max_ = 0;
  std::string text_;                    // kBodyContains
  std::optional<Pattern> regex_;        // kBodyMatches
  std::optional<JsonPointer> pointer_;  // kJsonEquals
  nlohmann::json expected_;             // kJsonEquals
  std::string description_;
};

}  // namespace proofload::workload
