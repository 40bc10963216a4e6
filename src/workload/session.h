// The workload as one connection (one virtual user) walks through it: which entry of the mix it
// runs, which step comes next, the values of its variables, the bytes of its next request, and
// what a response means for the step and the flow. One Session per connection, one
// WorkerContext per worker thread; neither is shared, neither locks. In the steady state
// nothing here allocates: variable values and the request buffer keep their capacity.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/rng.h"
#include "http/response_parser.h"
#include "measure/outcome.h"
#include "workload/json_body.h"
#include "workload/workload.h"

namespace proofload::workload {

// What a worker's sessions share: the random stream and the data cursors (sequences and
// sequential lists give each worker its own share of values).
class WorkerContext {
 public:
  WorkerContext(const Workload& workload, int worker_index, int workers);

  Rng& rng() { return rng_; }
  DataCursor& cursor(int source) { return cursors_[static_cast<size_t>(source)]; }

 private:
  Rng rng_;
  std::vector<DataCursor> cursors_;
};

class Session {
 public:
  Session() = default;
  // Sizes the variables for `workload`. Call once before use.
  void bind(const Workload& workload);

  // An iteration is in progress: its next step is due (after a think time, or a reconnect).
  bool in_iteration() const { return in_iteration_; }

  // The request to send next: the next step of the iteration in progress, or the first step of
  // a new iteration (an entry picked by weight, its data drawn). Renders its bytes.
  const CompiledRequest& begin_step(WorkerContext& context);
  // The bytes of the request begin_step chose (valid until the next begin_step).
  std::string_view request_bytes() const { return request_bytes_; }

  // How a step ended, and what follows.
  struct StepEnd {
    measure::Outcome outcome;  // the request's outcome (check_failed when a check failed)
    bool iteration_over;       // no further step: the entry is done
    bool flow_succeeded;       // iteration_over of a flow: every step passed
    // !iteration_over: the pause before the next step. iteration_over: the pause at the end of
    // the iteration (a think on the flow's last step), before this connection's next pick.
    int64_t think_ns;
  };
  // A complete response to the current step, as the parser kept it: runs the checks and the
  // extractions. An extraction that finds nothing fails the step (check_failed): later steps
  // would send a request without the value.
  StepEnd on_response(const http::ResponseParser& parser);
  // The same for a response that did not come through a parser (HTTP/2: the stream's record).
  StepEnd on_response(const ResponseView& response);
  // The current step failed without a usable response (timeout, reset, connect error, ...).
  StepEnd on_failure(measure::Outcome outcome);
  // The run stopped before the next step of the iteration in progress.
  void abandon() { in_iteration_ = false; }

  int entry() const { return entry_; }      // the entry of the current iteration
  int request() const { return request_; }  // the request of the current step
  int flow() const;                         // its flow index, -1 for a single request
  bool first_step() const { return step_ == 0; }

  // When the current iteration's first step was due (for the flow's duration).
  int64_t iteration_start_ns = 0;
  // When the next step is due (the end of the previous step plus its think time).
  int64_t next_step_due_ns = 0;

 private:
  StepEnd end_step(measure::Outcome outcome);

  const Workload* workload_ = nullptr;
  bool in_iteration_ = false;
  int entry_ = 0;
  int step_ = 0;
  int request_ = 0;
  bool iteration_ok_ = true;
  std::vector<std::string> values_;  // by variable slot
  std::string buffer_;               // rendered request bytes
  std::string_view request_bytes_;
  JsonBodyCache json_;
};

}  // namespace proofload::workload
