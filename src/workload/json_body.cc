// JSON pointers parsed once and the per-response parse cache (see json_body.h).
#include "workload/json_body.h"

#include <cassert>
#include <limits>

#include "common/usage_error.h"

namespace proofload::workload {
namespace {

[[noreturn]] void bad_pointer(std::string_view text, const char* why) {
  throw UsageError("invalid JSON pointer '" + std::string(text) + "': " + why);
}

// RFC 6901 array index: "0", or digits without a leading zero. Anything else finds nothing in
// an array (it may still name an object member).
size_t as_index(std::string_view token, size_t not_index) {
  if (token.empty() || (token.size() > 1 && token[0] == '0')) return not_index;
  size_t value = 0;
  for (const char c : token) {
    if (c < '0' || c > '9') return not_index;
    const size_t digit = static_cast<size_t>(c - '0');
    if (value > (std::numeric_limits<size_t>::max() - digit) / 10) return not_index;
    value = value * 10 + digit;
  }
  return value;
}

}  // namespace

JsonPointer JsonPointer::parse(std::string_view text) {
  JsonPointer pointer;
  pointer.text_ = std::string(text);
  if (text.empty()) return pointer;  // the whole document
  if (text[0] != '/') bad_pointer(text, "it must be empty or start with '/'");
  size_t start = 1;
  while (true) {
    const size_t slash = text.find('/', start);
    const std::string_view raw = text.substr(
        start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    Token token;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '~') {
        token.key += raw[i];
      } else if (i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
        token.key += raw[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        bad_pointer(text, "'~' must be followed by '0' or '1'");
      }
    }
    token.index = as_index(token.key, kNotIndex);
    pointer.tokens_.push_back(std::move(token));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return pointer;
}

const nlohmann::json* JsonPointer::resolve(const nlohmann::json& document) const {
  const nlohmann::json* node = &document;
  for (const Token& token : tokens_) {
    if (node->is_object()) {
      const auto& members = node->get_ref<const nlohmann::json::object_t&>();
      const auto it = members.find(token.key);
      if (it == members.end()) return nullptr;
      node = &it->second;
    } else if (node->is_array()) {
      const auto& elements = node->get_ref<const nlohmann::json::array_t&>();
      if (token.index == kNotIndex || token.index >= elements.size()) return nullptr;
      node = &elements[token.index];
    } else {
      return nullptr;
    }
  }
  return node;
}

const nlohmann::json* JsonBodyCache::document(const ResponseView& response) {
  if (state_ == State::kEmpty) {
    body_data_ = response.body.data();
    body_size_ = response.body.size();
    if (response.body_truncated) {
      state_ = State::kNotJson;  // a cut body is not the document the server sent
    } else {
      ++parse_count_;
      document_ = nlohmann::json::parse(response.body.begin(), response.body.end(),
                                        /*cb=*/nullptr, /*allow_exceptions=*/false);
      state_ = document_.is_discarded() ? State::kNotJson : State::kParsed;
    }
  }
  assert(response.body.data() == body_data_ && response.body.size() == body_size_ &&
         "JsonBodyCache used for another response without reset()");
  return state_ == State::kParsed ? &document_ : nullptr;
}

void JsonBodyCache::reset() {
  state_ = State::kEmpty;
  document_ = nullptr;
  body_data_ = nullptr;
  body_size_ = 0;
}

}  // namespace proofload::workload
