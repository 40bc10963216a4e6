// Reading a recorded result.json for a report: an object of the document with its path, so that
// every error names the key ("summary.outcomes.timeout", "analysis.levels[1].achieved_rps"). A
// missing key or null reads as missing; a missing object reads as empty (every key in it is
// missing); a value of the wrong type throws std::runtime_error. Shared by the ladder's and the
// run's summary.md. Read-only view: the json must outlive it. Thread-safe to read.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace proofload::result {

class JsonReader {
 public:
  // `document`: what an error message starts with ("ladder result.json"). `object` may be null.
  JsonReader(const nlohmann::json* object, std::string path, std::string_view document)
      : object_(object), path_(std::move(path)), document_(document) {}

  // Throws std::runtime_error("DOCUMENT: message").
  [[noreturn]] void fail(const std::string& message) const;

  std::string name(std::string_view key) const;  // "summary.requests"
  bool present() const { return object_ != nullptr; }
  const nlohmann::json* find(std::string_view key) const;  // nullptr when missing or null

  const nlohmann::json& required(std::string_view key) const;
  std::optional<double> number(std::string_view key) const;
  double required_number(std::string_view key) const;
  // A whole number 0 or more, read exactly (a seed of 2^60 is no double); a fraction or a
  // negative number throws.
  std::optional<uint64_t> unsigned_integer(std::string_view key) const;
  // A count: a whole number 0 or more, written as an integer or as a float without a fraction
  // (1200.0); anything else throws.
  std::optional<int64_t> count(std::string_view key) const;
  std::string text(std::string_view key) const;  // "" when missing
  std::optional<std::string> optional_text(std::string_view key) const;  // none when missing
  std::string required_text(std::string_view key) const;
  std::optional<bool> boolean(std::string_view key) const;
  JsonReader object(std::string_view key) const;
  std::vector<JsonReader> objects(std::string_view key) const;             // an array of objects
  std::optional<std::vector<double>> numbers(std::string_view key) const;  // an array of numbers
  std::optional<std::vector<int64_t>> counts(std::string_view key) const;  // an array of counts
  std::vector<std::string> texts(std::string_view key) const;              // an array of strings
  std::optional<size_t> size_of(std::string_view key) const;  // an array's length; none: missing
  // The members of an object whose values are objects, in key order.
  std::vector<std::pair<std::string, JsonReader>> members(std::string_view key) const;
  // The members of an object whose values are numbers, in key order (nulls left out).
  std::vector<std::pair<std::string, double>> numbers_by_name(std::string_view key) const;
  // The members of an object whose values are counts, in key order (nulls left out).
  std::vector<std::pair<std::string, int64_t>> counts_by_name(std::string_view key) const;
  // This object's members that are numbers, in key order (the others left out).
  std::vector<std::pair<std::string, double>> own_numbers() const;

 private:
  const nlohmann::json* object_;
  std::string path_;
  std::string_view document_;
};

}  // namespace proofload::result
