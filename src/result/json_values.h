// How the result files write a value that may be missing: nullopt and "" are null, so that a
// reader (json_reader.h) reads them back as "not recorded". Shared by every to_json in src/result.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace proofload::result {

template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

inline nlohmann::json text_or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

}  // namespace proofload::result
