// See json_reader.h.
#include "result/json_reader.h"

#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace proofload::result {

using nlohmann::json;

namespace {

// A whole number 0 or more, written as an integer or as a float without a fraction (1200.0).
std::optional<int64_t> count_of(const json& value) {
  if (value.is_number_unsigned()) {
    if (value.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX)) {
      return static_cast<int64_t>(value.get<uint64_t>());
    }
    return std::nullopt;
  }
  if (value.is_number_integer()) {
    const int64_t n = value.get<int64_t>();
    return n >= 0 ? std::optional(n) : std::nullopt;
  }
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (d >= 0 && d < 9.2e18 && d == std::floor(d)) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

}  // namespace

void JsonReader::fail(const std::string& message) const {
  throw std::runtime_error(std::string(document_) + ": " + message);
}

std::string JsonReader::name(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

const json* JsonReader::find(std::string_view key) const {
  if (object_ == nullptr) return nullptr;
  const auto it = object_->find(key);
  if (it == object_->end() || it->is_null()) return nullptr;
  return &*it;
}

const json& JsonReader::required(std::string_view key) const {
  const json* value = find(key);
  if (value == nullptr) fail("missing required key '" + name(key) + "'");
  return *value;
}

std::optional<double> JsonReader::number(std::string_view key) const {
  const json* value = find(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_number()) fail("'" + name(key) + "' is not a number");
  return value->get<double>();
}

std::optional<uint64_t> JsonReader::unsigned_integer(std::string_view key) const {
  const json* value = find(key);
  if (value == nullptr) return std::nullopt;
  if (value->is_number_unsigned()) return value->get<uint64_t>();
  if (value->is_number_integer() && value->get<int64_t>() >= 0) {
    return static_cast<uint64_t>(value->get<int64_t>());
  }
  fail("'" + name(key) + "' is not a whole number 0 or more");
}

std::optional<int64_t> JsonReader::count(std::string_view key) const {
  const json* value = find(key);
  if (value == nullptr) return std::nullopt;
  if (const std::optional<int64_t> n = count_of(*value)) return n;
  fail("'" + name(key) + "' is not a whole number 0 or more");
}

double JsonReader::required_number(std::string_view key) const {
  required(key);
  return *number(key);
}

std::string JsonReader::text(std::string_view key) const {
  const json* value = find(key);
  if (value == nullptr) return "";
  if (!value->is_string()) fail("'" + name(key) + "' is not a string");
  return value->get<std::string>();
}

std::optional<std::string> JsonReader::optional_text(std::string_view key) const {
  if (find(key) == nullptr) return std::nullopt;
  return text(key);
}

std::string JsonReader::required_text(std::string_view key) const {
  required(key);
  return text(key);
}

std::optional<bool> JsonReader::boolean(std::string_view key) const {
  const json* value = find(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_boolean()) fail("'" + name(key) + "' is not true or false");
  return value->get<bool>();
}

JsonReader JsonReader::object(std::string_view key) const {
  const json* value = find(key);
  if (value != nullptr && !value->is_object()) fail("'" + name(key) + "' is not an object");
  return JsonReader(value, name(key), document_);
}

std::vector<JsonReader> JsonReader::objects(std::string_view key) const {
  std::vector<JsonReader> out;
  const json* value = find(key);
  if (value == nullptr) return out;
  if (!value->is_array()) fail("'" + name(key) + "' is not an array");
  for (size_t i = 0; i < value->size(); ++i) {
    const std::string element = name(key) + "[" + std::to_string(i) + "]";
    if (!(*value)[i].is_object()) fail("'" + element + "' is not an object");
    out.emplace_back(&(*value)[i], element, document_);
  }
  return out;
}

std::optional<std::vector<double>> JsonReader::numbers(std::string_view key) const {
  const json* value = find(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_array()) fail("'" + name(key) + "' is not an array");
  std::vector<double> out;
  for (const json& element : *value) {
    if (!element.is_number()) fail("'" + name(key) + "' holds something other than numbers");
    out.push_back(element.get<double>());
  }
  return out;
}

std::optional<std::vector<int64_t>> JsonReader::counts(std::string_view key) const {
  const json* value = find(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_array()) fail("'" + name(key) + "' is not an array");
  std::vector<int64_t> out;
  for (const json& element : *value) {
    const std::optional<int64_t> n = count_of(element);
    if (!n) fail("'" + name(key) + "' holds something other than whole numbers 0 or more");
    out.push_back(*n);
  }
  return out;
}

std::vector<std::string> JsonReader::texts(std::string_view key) const {
  std::vector<std::string> out;
  const json* value = find(key);
  if (value == nullptr) return out;
  if (!value->is_array()) fail("'" + name(key) + "' is not an array");
  for (const json& element : *value) {
    if (!element.is_string()) fail("'" + name(key) + "' holds something other than strings");
    out.push_back(element.get<std::string>());
  }
  return out;
}

std::optional<size_t> JsonReader::size_of(std::string_view key) const {
  const json* value = find(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_array()) fail("'" + name(key) + "' is not an array");
  return value->size();
}

std::vector<std::pair<std::string, JsonReader>> JsonReader::members(std::string_view key) const {
  std::vector<std::pair<std::string, JsonReader>> out;
  const JsonReader container = object(key);
  if (!container.present()) return out;
  for (const auto& [member, value] : container.object_->items()) {
    if (!value.is_object()) fail("'" + container.name(member) + "' is not an object");
    out.emplace_back(member, JsonReader(&value, container.name(member), document_));
  }
  return out;
}

std::vector<std::pair<std::string, double>> JsonReader::numbers_by_name(
    std::string_view key) const {
  std::vector<std::pair<std::string, double>> out;
  const JsonReader container = object(key);
  if (!container.present()) return out;
  for (const auto& [member, value] : container.object_->items()) {
    if (value.is_null()) continue;
    if (!value.is_number()) fail("'" + container.name(member) + "' is not a number");
    out.emplace_back(member, value.get<double>());
  }
  return out;
}

std::vector<std::pair<std::string, int64_t>> JsonReader::counts_by_name(
    std::string_view key) const {
  std::vector<std::pair<std::string, int64_t>> out;
  const JsonReader container = object(key);
  if (!container.present()) return out;
  for (const auto& [member, value] : container.object_->items()) {
    if (const std::optional<int64_t> count = container.count(member)) {
      out.emplace_back(member, *count);
    }
  }
  return out;
}

std::vector<std::pair<std::string, double>> JsonReader::own_numbers() const {
  std::vector<std::pair<std::string, double>> out;
  if (object_ == nullptr) return out;
  for (const auto& [member, value] : object_->items()) {
    if (value.is_number()) out.emplace_back(member, value.get<double>());
  }
  return out;
}

}  // namespace proofload::result
