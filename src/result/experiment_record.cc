// See experiment_record.h.
#include "result/experiment_record.h"

#include <stdexcept>

#include "result/json_reader.h"
#include "result/json_values.h"

namespace proofload::result {

using nlohmann::json;

json experiment_record_to_json(const ExperimentRecord& r, const char* schema, const char* kind) {
  json events = json::array();
  for (const Event& e : r.events) events.push_back(event_to_json(e));
  json out = {
      {"schema", schema},
      {"kind", kind},
      {"status", r.status},
      {"end_reason", text_or_null(r.end_reason)},
      {"proofload_version", r.proofload_version},
      {"command_line", r.command_line},
      {"started_at", text_or_null(r.started_at)},
      {"finished_at", text_or_null(r.finished_at)},
      {"rebuilt", r.rebuilt},
      {"source", source_to_json(r.source)},
      {"run_directory", r.run_directory},
      {"events", events},
  };
  if (r.segment) out["segment"] = segment_json(*r.segment);
  if (r.merged) out["merged"] = merge_json(*r.merged);
  return out;
}

ExperimentRecord experiment_record_from_json(const json& result, const char* schema,
                                             const char* kind, const char* document,
                                             const char* older_schema) {
  if (!result.is_object()) throw std::runtime_error(std::string(document) + ": not a JSON object");
  const JsonReader top(&result, "", document);
  if (const std::string found = top.required_text("schema");
      found != schema && (older_schema == nullptr || found != older_schema)) {
    top.fail("schema is \"" + found + "\", not \"" + schema + "\"");
  }
  if (const std::string found = top.required_text("kind"); found != kind) {
    top.fail("kind \"" + found + "\" is not " + kind);
  }
  ExperimentRecord r;
  r.status = top.required_text("status");
  r.end_reason = top.text("end_reason");
  r.proofload_version = top.text("proofload_version");
  r.command_line = top.text("command_line");
  r.started_at = top.text("started_at");
  r.finished_at = top.text("finished_at");
  r.rebuilt = top.boolean("rebuilt").value_or(false);
  r.source = source_from_json(top.object("source"));
  if (const std::string dir = top.text("run_directory"); !dir.empty()) r.run_directory = dir;
  for (const JsonReader& e : top.objects("events")) r.events.push_back(event_from_json(e));
  if (const JsonReader segment = top.object("segment"); segment.present()) {
    r.segment = segment_from_json(segment);
  }
  if (const JsonReader merged = top.object("merged"); merged.present()) {
    r.merged = merge_from_json(merged);
  }
  return r;
}

}  // namespace proofload::result
