// Compiling and running response checks (see check.h).
#include "workload/check.h"

#include <algorithm>

#include "common/usage_error.h"

namespace proofload::workload {
namespace {

std::string quoted(const std::string& text) { return "'" + text + "'"; }

std::string default_description(const CheckSpec& spec) {
  switch (spec.kind) {
    case CheckSpec::Kind::kStatusIn: {
      std::string out = "status ";
      for (size_t i = 0; i < spec.statuses.size(); ++i) {
        if (i > 0) out += ", ";
        out += std::to_string(spec.statuses[i]);
      }
      return out;
    }
    case CheckSpec::Kind::kStatusRange:
      return "status " + std::to_string(spec.status_min) + "-" + std::to_string(spec.status_max);
    case CheckSpec::Kind::kBodyContains:
      return "body contains " + quoted(spec.text);
    case CheckSpec::Kind::kBodyMatches:
      return "body matches " + quoted(spec.text);
    case CheckSpec::Kind::kJsonEquals:
      return "json " + spec.path + " == " + spec.json_value;
  }
  return "check";
}

}  // namespace

CompiledCheck CompiledCheck::compile(const CheckSpec& spec) {
  CompiledCheck check;
  check.kind_ = spec.kind;
  check.description_ = spec.description.empty() ? default_description(spec) : spec.description;
  switch (spec.kind) {
    case CheckSpec::Kind::kStatusIn:
      if (spec.statuses.empty()) throw UsageError("status check with no status to accept");
      check.statuses_ = spec.statuses;
      break;
    case CheckSpec::Kind::kStatusRange:
      if (spec.status_min > spec.status_max) {
        throw UsageError("status range " + std::to_string(spec.status_min) + "-" +
                         std::to_string(spec.status_max) + " is empty (min > max)");
      }
      check.status_min_ = spec.status_min;
      check.status_max_ = spec.status_max;
      break;
    case CheckSpec::Kind::kBodyContains:
      check.text_ = spec.text;
      break;
    case CheckSpec::Kind::kBodyMatches:
      check.regex_ = Pattern::compile(spec.text);
      break;
    case CheckSpec::Kind::kJsonEquals:
      check.pointer_ = JsonPointer::parse(spec.path);
      check.expected_ = nlohmann::json::parse(spec.json_value, /*cb=*/nullptr,
                                              /*allow_exceptions=*/false);
      if (check.expected_.is_discarded()) {
        throw UsageError("expected value " + quoted(spec.json_value) + " is not JSON");
      }
      break;
  }
  return check;
}

CheckResult CompiledCheck::evaluate(const ResponseView& response, JsonBodyCache& json) const {
  const auto verdict = [](bool passed) {
    return passed ? CheckResult::kPassed : CheckResult::kFailed;
  };
  switch (kind_) {
    case CheckSpec::Kind::kStatusIn:
      return verdict(std::find(statuses_.begin(), statuses_.end(), response.status) !=
                     statuses_.end());
    case CheckSpec::Kind::kStatusRange:
      return verdict(response.status >= status_min_ && response.status <= status_max_);
    case CheckSpec::Kind::kBodyContains:
      if (response.body.find(text_) != std::string_view::npos) return CheckResult::kPassed;
      return response.body_truncated ? CheckResult::kBodyTruncated : CheckResult::kFailed;
    case CheckSpec::Kind::kBodyMatches:
      if (response.body_truncated) return CheckResult::kBodyTruncated;
      return verdict(regex_->search(response.body));
    case CheckSpec::Kind::kJsonEquals: {
      if (response.body_truncated) return CheckResult::kBodyTruncated;
      const nlohmann::json* document = json.document(response);
      if (document == nullptr) return CheckResult::kFailed;
      const nlohmann::json* value = pointer_->resolve(*document);
      return verdict(value != nullptr && *value == expected_);
    }
  }
  return CheckResult::kFailed;
}

bool CompiledCheck::needs_body() const {
  return kind_ == CheckSpec::Kind::kBodyContains || kind_ == CheckSpec::Kind::kBodyMatches ||
         kind_ == CheckSpec::Kind::kJsonEquals;
}

}  // namespace proofload::workload
