// A ladder's row (analyze::LevelRow) in its file form, the `rows` of a ladder's result.json:
// every field under its own name in level_row.h; nullopt and "" are null; extra_metrics is an
// object {"p99.9": 12.5};
// routes (only when recorded) is an array of {name, goodput_rps, achieved_rps, p50_ms, ...}. Reading back: a missing or null key is the field's "not recorded"
// (repeat: 1; generator_busy: false); a missing level or achieved_rps, or a value of the wrong
// type, throws std::runtime_error naming the key ("'rows[2].level' is missing"). Pure;
// thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "analyze/level_row.h"
#include "result/json_reader.h"

namespace proofload::result {

nlohmann::json row_to_json(const analyze::LevelRow& row);
analyze::LevelRow row_from_json(const JsonReader& row);

}  // namespace proofload::result
