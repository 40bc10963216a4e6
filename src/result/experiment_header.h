// The header every experiment's record opens with, ExperimentRecord, and the source it records
// (LadderSource: the name is the ladder's, which had it first): declared apart so that the
// ladder's LadderResult derives from it too. Its JSON is experiment_record.h's (the ladder's own
// is ladder_to_json, with the same keys). Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "result/event.h"
#include "result/segment_record.h"

namespace proofload::result {

// source: what was measured (a target, a scenario) or read (a table).
struct LadderSource {
  std::string target, scenario_file, scenario_sha256, table_file, table_sha256;
  // https: what the pre-flight handshake agreed ("TLSv1.3", "http/1.1"); "" for http.
  std::string tls_version, tls_alpn;
  // A measured ladder's protocol ("http/1.1" or "h2"; "" for a table) and, over HTTP/2, the
  // streams asked for on each connection.
  std::string protocol;
  std::optional<int64_t> h2_streams;
};

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

}  // namespace proofload::result
