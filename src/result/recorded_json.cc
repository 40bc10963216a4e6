// See recorded_json.h.
#include "result/recorded_json.h"

#include "common/recorded_file.h"
#include "common/usage_error.h"

namespace proofload::result {

RecordedJsonTooDeep::RecordedJsonTooDeep()
    : std::runtime_error("it nests deeper than " + std::to_string(kMaxRecordedJsonDepth) +
                         " levels, deeper than any file proofload writes") {}

nlohmann::json::parser_callback_t bounded_depth(nlohmann::json::parser_callback_t keep) {
  return [keep = std::move(keep)](int depth, nlohmann::json::parse_event_t event,
                                  nlohmann::json& parsed) {
    // Thrown at the opening bracket, before anything under it is built.
    if ((event == nlohmann::json::parse_event_t::object_start ||
         event == nlohmann::json::parse_event_t::array_start) &&
        depth >= kMaxRecordedJsonDepth) {
      throw RecordedJsonTooDeep();
    }
    return keep ? keep(depth, event, parsed) : true;
  };
}

nlohmann::json parse_recorded_json(std::istream& in,
                                   const nlohmann::json::parser_callback_t& keep) {
  return nlohmann::json::parse(in, bounded_depth(keep));
}

std::optional<nlohmann::json> parse_recorded_object(std::string_view text) {
  try {
    nlohmann::json parsed = nlohmann::json::parse(text, bounded_depth());
    if (parsed.is_object()) return parsed;
  } catch (const nlohmann::json::exception&) {
  } catch (const RecordedJsonTooDeep&) {
  }
  return std::nullopt;
}

nlohmann::json read_recorded_json(const std::string& path,
                                  const nlohmann::json::parser_callback_t& keep) {
  RecordedFileStream in(path);
  if (!in) throw UsageError("cannot read " + path + ": no such file");
  try {
    return parse_recorded_json(in, keep);
  } catch (const nlohmann::json::exception&) {
    throw UsageError(path + " is not JSON");
  } catch (const RecordedJsonTooDeep& e) {
    throw UsageError(path + ": " + e.what());
  }
}

}  // namespace proofload::result
