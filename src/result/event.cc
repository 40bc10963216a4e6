// See event.h.
#include "result/event.h"

#include "result/json_values.h"

namespace proofload::result {

using nlohmann::json;

json event_to_json(const Event& e) {
  return {{"kind", e.kind},
          {"name", e.name},
          {"level", optional_json(e.level)},
          {"repeat", optional_json(e.repeat)},
          {"command", e.command},
          {"ok", optional_json(e.ok)},
          {"exit_code", optional_json(e.exit_code)},
          {"timed_out", e.timed_out},
          {"duration_s", optional_json(e.duration_s)},
          {"output_file", text_or_null(e.output_file)},
          {"detail", e.detail}};
}

Event event_from_json(const JsonReader& r) {
  Event e;
  e.kind = r.text("kind");
  e.name = r.text("name");
  e.level = r.number("level");
  if (const std::optional<int64_t> repeat = r.count("repeat")) e.repeat = static_cast<int>(*repeat);
  e.command = r.text("command");
  e.ok = r.boolean("ok");
  if (const std::optional<double> code = r.number("exit_code"))
    e.exit_code = static_cast<int>(*code);
  e.timed_out = r.boolean("timed_out").value_or(false);
  e.duration_s = r.number("duration_s");
  e.output_file = r.text("output_file");
  e.detail = r.text("detail");
  return e;
}

}  // namespace proofload::result
