// Compiling and running extractions (see extract.h).
#include "workload/extract.h"

#include <charconv>

#include "common/text.h"
#include "common/usage_error.h"
#include "workload/check.h"

namespace proofload::workload {
namespace {

template <typename Integer>
void assign_integer(Integer value, std::string& out) {
  char digits[24];
  const auto [end, error] = std::to_chars(digits, digits + sizeof digits, value);
  (void)error;  // 24 characters hold any 64-bit integer
  out.assign(digits, end);
}

}  // namespace

CompiledExtract CompiledExtract::compile(const ExtractSpec& spec) {
  CompiledExtract extract;
  extract.variable_ = spec.variable;
  extract.kind_ = spec.kind;
  switch (spec.kind) {
    case ExtractSpec::Kind::kJsonPointer:
      extract.pointer_ = JsonPointer::parse(spec.expression);
      break;
    case ExtractSpec::Kind::kRegex: {
      extract.regex_ = Pattern::compile(spec.expression);
      const int groups = extract.regex_->groups();
      if (spec.group < 0 || spec.group > groups) {
        throw UsageError("regular expression '" + spec.expression + "' has " +
                         std::to_string(groups) + " capture group(s); group " +
                         std::to_string(spec.group) + " does not exist");
      }
      extract.group_ = spec.group;
      break;
    }
    case ExtractSpec::Kind::kHeader:
      if (spec.expression.empty()) throw UsageError("header extraction with no header name");
      for (const char c : spec.expression) {
        if (!is_http_token_char(c)) {
          throw UsageError("'" + spec.expression + "' is not a header name");
        }
      }
      extract.header_name_ = spec.expression;
      break;
  }
  return extract;
}

bool CompiledExtract::extract(const ResponseView& response, JsonBodyCache& json,
                              std::string& out) const {
  switch (kind_) {
    case ExtractSpec::Kind::kJsonPointer:
      return extract_json(response, json, out);
    case ExtractSpec::Kind::kRegex:
      return extract_regex(response, out);
    case ExtractSpec::Kind::kHeader: {
      const std::optional<std::string_view> value = find_header(response.headers, header_name_);
      if (!value) return false;
      out.assign(*value);
      return true;
    }
  }
  return false;
}

bool CompiledExtract::extract_json(const ResponseView& response, JsonBodyCache& json,
                                   std::string& out) const {
  const nlohmann::json* document = json.document(response);  // nullptr when truncated
  if (document == nullptr) return false;
  const nlohmann::json* value = pointer_->resolve(*document);
  if (value == nullptr) return false;
  switch (value->type()) {
    case nlohmann::json::value_t::string:
      out.assign(value->get_ref<const nlohmann::json::string_t&>());
      return true;
    case nlohmann::json::value_t::number_integer:
      assign_integer(value->get<nlohmann::json::number_integer_t>(), out);
      return true;
    case nlohmann::json::value_t::number_unsigned:
      assign_integer(value->get<nlohmann::json::number_unsigned_t>(), out);
      return true;
    case nlohmann::json::value_t::boolean:
      out.assign(value->get<bool>() ? "true" : "false");
      return true;
    case nlohmann::json::value_t::null:
      out.assign("null");
      return true;
    default:
      // Floats keep nlohmann's shortest round-trip text ("1.0", "1e+100"). A parsed body holds
      // valid UTF-8, so `replace` never fires; it is there so no exception can escape.
      out.assign(value->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      return true;
  }
}

bool CompiledExtract::extract_regex(const ResponseView& response, std::string& out) const {
  if (response.body_truncated) return false;
  return regex_->search_group(response.body, group_, out);
}

bool CompiledExtract::needs_body() const {
  return kind_ == ExtractSpec::Kind::kJsonPointer || kind_ == ExtractSpec::Kind::kRegex;
}

bool CompiledExtract::needs_headers() const { return kind_ == ExtractSpec::Kind::kHeader; }

}  // namespace proofload::workload
