// result.json, the canonical record of a run (schema "proofload.result/v2", documented field by
// field in docs/result-schema.md). Every other report can be rendered from it. Pure functions,
// thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/run_result.h"
#include "result/run_record.h"

namespace proofload::report {

// The finished run reduced to its record: status, summary, warm-up, what was observed and judged;
// the spec as recorded. No windows.
result::RunRecord run_record(const RunResult& result);

// The finished run: status "complete" or "interrupted", summary, warm-up and every window.
nlohmann::json result_to_json(const RunResult& result);

// One window's object in result.json's `windows` array.
nlohmann::json window_to_json(const WindowSummary& w);

// The file written before the first request: status "running", the spec, no summary and no
// windows (a reader that finds it after a crash knows the run never finished).
nlohmann::json running_result_to_json(const RunResult& initial);

// The bytes written to result.json: 2-space indentation, keys sorted, a final newline.
std::string result_json_text(const nlohmann::json& document);

}  // namespace proofload::report
