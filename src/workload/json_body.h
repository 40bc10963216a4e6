// JSON support shared by checks and extractions: a JSON pointer parsed once and resolved without
// exceptions, and the per-response cache that parses a body at most once however many checks
// and extractions read it. A JsonPointer is immutable (safe to share between threads); a
// JsonBodyCache belongs to one thread and one response at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "workload/response_view.h"

namespace proofload::workload {

// An RFC 6901 JSON pointer ("/items/0/name"; "" is the whole document; "~1" is '/', "~0" '~').
class JsonPointer {
 public:
  // Throws UsageError naming the problem for text that is not a JSON pointer.
  static JsonPointer parse(std::string_view text);

  // The value the pointer names, or nullptr when there is none (a missing key, an index past
  // the end or "-", a step into a string or number). No allocation, no exception.
  const nlohmann::json* resolve(const nlohmann::json& document) const;

  const std::string& text() const { return text_; }

 private:
  struct Token {
    std::string key;  // unescaped; used when the value is an object
    // Used when the value is an array: the token as an index, or kNotIndex when it is not one
    // ("-", leading zeros, letters), which then finds nothing in an array.
    size_t index = 0;
  };
  static constexpr size_t kNotIndex = static_cast<size_t>(-1);

  std::string text_;
  std::vector<Token> tokens_;
};

// A response body parsed as JSON on first use. The caller makes one per response, or keeps one
// and calls reset() before each new response (the parsed value's memory is released then;
// nlohmann::json cannot reuse it).
class JsonBodyCache {
 public:
  // The body as JSON, or nullptr when it is not JSON or was truncated (a truncated body is not
  // parsed at all). The first call parses; later calls for the same response return the result
  // (including a failure) at once. Never throws for bad input.
  const nlohmann::json* document(const ResponseView& response);

  // Forget the current response.
  void reset();

  // Bodies parsed since construction (not reset by reset()): lets tests and statistics see
  // that several checks shared one parse.
  int64_t parse_count() const { return parse_count_; }

 private:
  enum class State { kEmpty, kParsed, kNotJson };
  State state_ = State::kEmpty;
  nlohmann::json document_;
  int64_t parse_count_ = 0;
  // The body the current result came from; a debug-build guard against a caller that forgets
  // reset() between responses held in different buffers.
  const char* body_data_ = nullptr;
  size_t body_size_ = 0;
};

}  // namespace proofload::workload
