// What every experiment's result.json opens with (a soak's, a probe's; the ladder's predates
// it): how it ended, which proofload wrote it and when, what it ran against, the runner's events
// and where its load's own run directory is. An experiment's result struct derives from
// ExperimentRecord and adds its own keys to the object experiment_record_to_json makes. Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "result/event.h"
#include "result/ladder_result.h"
#include "result/segment_record.h"

namespace proofload::result {

struct ExperimentRecord {
  // "running" (its plan file, written when the load starts), "complete", "stopped", "aborted",
  // "failed", "interrupted".
  std::string status;
  std::string end_reason;
  std::string proofload_version, command_line, started_at, finished_at;
  // Rebuilt by `proofload report` from the files the experiment streamed (it did not finish its
  // own result.json): said in the report.
  bool rebuilt = false;
  LadderSource source;
  std::vector<Event> events;
  std::string run_directory = "run";  // the load's own result directory, relative
  // `segment`: this experiment was segment I of N of one load (--segment); `merged`: it is N
  // segments' experiments merged (`proofload merge`).
  std::optional<SegmentRecord> segment;
  std::optional<MergeRecord> merged;
};

// schema, kind and the record's keys.
nlohmann::json experiment_record_to_json(const ExperimentRecord& record, const char* schema,
                                         const char* kind);
// The record of `result`, which must be a JSON object of this schema and kind; a missing
// required key (schema, kind, status) or a value of the wrong type throws std::runtime_error
// naming `document` and the key.
ExperimentRecord experiment_record_from_json(const nlohmann::json& result, const char* schema,
                                             const char* kind, const char* document);

}  // namespace proofload::result
