// Parsing a recorded JSON file (result.json and its kin) with its nesting bounded: proofload's
// own files nest a dozen levels, and a file of a million `[` would otherwise become a million
// nested values (a 10 MB file took 676 MiB). Every reader of a recorded file parses through here.
#pragma once

#include <istream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace proofload::result {

constexpr int kMaxRecordedJsonDepth = 64;

// `keep` wrapped so that a value nested deeper than kMaxRecordedJsonDepth ends the parse with
// RecordedJsonTooDeep. A null `keep` keeps everything.
nlohmann::json::parser_callback_t bounded_depth(nlohmann::json::parser_callback_t keep = nullptr);

class RecordedJsonTooDeep : public std::runtime_error {
 public:
  RecordedJsonTooDeep();
};

// The JSON of `in`, parsed through bounded_depth(keep). Throws nlohmann::json::parse_error when
// it is not JSON and RecordedJsonTooDeep when it nests too deep.
nlohmann::json parse_recorded_json(std::istream& in,
                                   const nlohmann::json::parser_callback_t& keep = nullptr);

// A line of a recorded line file (a journal's window, segment.jsonl's record) when it is a JSON
// object within the depth bound; nullopt otherwise.
std::optional<nlohmann::json> parse_recorded_object(std::string_view text);

// The JSON of the file at `path` (opened with RecordedFileStream), its keys filtered by `keep`.
// Throws UsageError with one line naming the file: it is missing, not a regular file, not JSON,
// or nested too deep.
nlohmann::json read_recorded_json(const std::string& path,
                                  const nlohmann::json::parser_callback_t& keep = nullptr);

}  // namespace proofload::result
