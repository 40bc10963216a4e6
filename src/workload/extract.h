// Extraction of a variable from a response (JSON pointer, regex capture group, header) for the
// later steps of a flow; compiled once from the scenario's ExtractSpec and run on the engine's
// thread after each response of a request that extracts. A CompiledExtract is immutable after
// compile(): one may be shared by several threads, each with its own JsonBodyCache.
#pragma once

#include <optional>
#include <string>

#include "workload/json_body.h"
#include "workload/pattern.h"
#include "workload/response_view.h"
#include "workload/scenario.h"

namespace proofload::workload {

class CompiledExtract {
 public:
  // Throws UsageError for an invalid regex or JSON pointer, a group the regex does not have
  // (group 0 is the whole match), or an empty or malformed header name. The message names the
  // problem in one line without a location; the caller prefixes spec.where.
  static CompiledExtract compile(const ExtractSpec& spec);

  // Writes the value into `out` (assigned, so its capacity is reused) and returns true; returns
  // false, leaving `out` unspecified, when nothing is found: no regex match (or the group took
  // no part in it), a missing pointer, a body that is not JSON, an absent header, a body
  // extraction from a truncated body (a value cut at the cap would be silently wrong).
  // A JSON string comes out unquoted and unescaped; numbers, booleans, null, objects and arrays
  // as compact JSON text ("42", "true", "null", "{\"a\":1}"). Never throws for any response.
  // No allocation beyond growing `out`, except for JSON floats, objects and arrays (serialized
  // through a temporary).
  bool extract(const ResponseView& response, JsonBodyCache& json, std::string& out) const;

  bool needs_body() const;     // JSON and regex extractions
  bool needs_headers() const;  // header extractions
  const std::string& variable() const { return variable_; }
  ExtractSpec::Kind kind() const { return kind_; }

 private:
  bool extract_json(const ResponseView& response, JsonBodyCache& json, std::string& out) const;
  bool extract_regex(const ResponseView& response, std::string& out) const;

  std::string variable_;
  ExtractSpec::Kind kind_ = ExtractSpec::Kind::kJsonPointer;
  std::optional<JsonPointer> pointer_;  // kJsonPointer
  std::optional<Pattern> regex_;        // kRegex
  int group_ = 1;                       // kRegex
  std::string header_name_;             // kHeader
};

}  // namespace proofload::workload
