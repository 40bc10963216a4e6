// An experiment's event as result.json's `events` records it: a hook, a drain wait or the
// pre-check, in the order run (experiments/experiment.h logs them). Reading back: a missing or
// null key is "not recorded" (ok: nullopt, never a pass); a value of the wrong type throws
// std::runtime_error naming the key. Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "result/json_reader.h"

namespace proofload::result {

struct Event {
  std::string kind;  // "hook", "drain", "precheck"
  std::string name;  // "before-level", "drain", "precheck", ...
  std::optional<double> level;
  std::optional<int> repeat;
  std::string command;
  std::optional<bool> ok;  // always written; nullopt: not recorded (never read as a pass)
  std::optional<int> exit_code;
  bool timed_out = false;
  std::optional<double> duration_s;
  std::string output_file;  // relative to the ladder's directory; "" when none
  std::string detail;
};

nlohmann::json event_to_json(const Event& event);
Event event_from_json(const JsonReader& event);

}  // namespace proofload::result
