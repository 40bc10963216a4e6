// What every experiment's result.json opens with (a soak's, a probe's; the ladder's predates
// it and writes the same fields its own way, ladder_to_json): how it ended, which proofload
// wrote it and when, what it ran against, the runner's events and where its load's own run
// directory is. An experiment's result struct derives from ExperimentRecord
// (experiment_header.h) and adds its own keys to the object experiment_record_to_json makes.
// Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "result/event.h"
#include "result/ladder_result.h"
#include "result/segment_record.h"

namespace proofload::result {

// schema, kind and the record's keys.
nlohmann::json experiment_record_to_json(const ExperimentRecord& record, const char* schema,
                                         const char* kind);
// The record of `result`, which must be a JSON object of this schema and kind; a missing
// required key (schema, kind, status) or a value of the wrong type throws std::runtime_error
// naming `document` and the key. `older_schema` (if not null) is an older schema of the kind that
// is read as well.
ExperimentRecord experiment_record_from_json(const nlohmann::json& result, const char* schema,
                                             const char* kind, const char* document,
                                             const char* older_schema = nullptr);

}  // namespace proofload::result
