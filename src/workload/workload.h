// What the load engine runs: a compiled, immutable workload shared by every worker. A plain run
// (one URL, one request) is a workload of one fixed request; a scenario file compiles into
// named requests (templates, checks, extractions), flows of steps, and a weighted mix over
// requests and flows. Compiling happens once, before anything is sent; every configuration
// error is a UsageError naming the file location. Thread-safe to share once built.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "http/response_parser.h"
#include "http/url.h"
#include "workload/check.h"
#include "workload/data_source.h"
#include "workload/extract.h"
#include "workload/scenario.h"
#include "workload/secrets.h"
#include "workload/stream_tracker.h"
#include "workload/template.h"

namespace proofload::workload {

// One named request as the engine sends it.
struct CompiledRequest {
  std::string name;
  bool is_head = false;  // HEAD: the response has no body whatever it announces
  // The request bytes when nothing in them varies (no variables): built once, sent as they are.
  std::optional<std::string> fixed_bytes;
  // Otherwise: the head (request line and header lines, without Content-Length and the blank
  // line) and the body, rendered for each request.
  Template head;
  std::optional<Template> body;
  bool send_content_length = false;  // a body, or a method that expects one

  std::vector<CompiledCheck> checks;
  std::vector<CompiledExtract> extracts;
  std::vector<int> extract_slots;  // the variable slot each extraction writes
  http::ResponseCapture capture;   // what the parser must keep for the checks and extractions
  // `stream:`: the response is read as a stream by these rules (shared; null: not a stream).
  std::shared_ptr<const StreamRules> stream;
};

// One step of an entry: a request, then a pause before the next step.
struct CompiledStep {
  int request = 0;       // index into Workload::requests
  int64_t think_ns = 0;  // after this step, before the next
};

// One entry of the mix: a single request (one step, not a flow), or a flow.
struct MixEntryPlan {
  std::string name;
  std::vector<CompiledStep> steps;
  int flow = -1;  // index into Workload::flow_names, or -1 for a single request
  std::vector<int> data_slots;  // the data variables its requests use: drawn once per iteration
};

class Workload {
 public:
  // A plain run: the same request bytes every time, no checks.
  static std::shared_ptr<const Workload> fixed(std::string request_bytes, bool head_request);
  // A scenario. `target` is the base URL (the scenario's, or the command line's); its path is
  // prefixed to every request path. Secrets are resolved through `secrets` (which then redacts
  // them anywhere else). `seed` fixes data pools and the per-worker random streams.
  static std::shared_ptr<const Workload> compile(const Scenario& scenario, const http::Url& target,
                                                 SecretStore& secrets, uint64_t seed);

  const std::vector<CompiledRequest>& requests() const { return requests_; }
  const std::vector<MixEntryPlan>& entries() const { return entries_; }
  const std::vector<std::string>& flow_names() const { return flow_names_; }
  const std::vector<DataSource>& data() const { return data_; }
  // The data source feeding variable slot s, or -1 when s is filled by extraction.
  const std::vector<int>& data_source_of_slot() const { return data_source_of_slot_; }
  size_t variable_count() const { return variable_count_; }
  uint64_t seed() const { return seed_; }
  bool is_fixed() const { return is_fixed_; }
  // A request is read as a stream (its own `stream:`).
  bool has_streams() const;

  // Picks an entry for a random draw `u` in [0, 1): by cumulative weight.
  int pick_entry(double u) const;
  // Each entry's share of the picks (weight / total), for the recorded spec.
  double entry_share(int entry) const;

 private:
  std::vector<CompiledRequest> requests_;
  std::vector<MixEntryPlan> entries_;
  std::vector<double> cumulative_weight_;  // by entry, ending at 1
  std::vector<std::string> flow_names_;
  std::vector<DataSource> data_;
  std::vector<int> data_source_of_slot_;
  size_t variable_count_ = 0;
  uint64_t seed_ = 0;
  bool is_fixed_ = false;
};

}  // namespace proofload::workload
