// See session.h. Runs on a load worker's thread for every request: keep it direct.
#include "workload/session.h"

#include <charconv>

namespace proofload::workload {
namespace {

// The workers' random streams are numbered after the data pools' stream (see data_source.cc),
// so a worker never repeats a pool's draws.
constexpr uint64_t kFirstWorkerStream = 1000;

// The largest Content-Length we write has 20 digits.
constexpr size_t kLengthDigits = 24;

}  // namespace

WorkerContext::WorkerContext(const Workload& workload, int worker_index, int workers)
    : rng_(make_rng(workload.seed(), kFirstWorkerStream + static_cast<uint64_t>(worker_index))) {
  cursors_.reserve(workload.data().size());
  for (const DataSource& source : workload.data()) {
    cursors_.push_back(source.cursor(worker_index, workers));
  }
}

void Session::bind(const Workload& workload) {
  workload_ = &workload;
  values_.assign(workload.variable_count(), std::string());
}

int Session::flow() const { return workload_->entries()[static_cast<size_t>(entry_)].flow; }

const CompiledRequest& Session::begin_step(WorkerContext& context) {
  const Workload& w = *workload_;
  if (!in_iteration_) {
    in_iteration_ = true;
    iteration_ok_ = true;
    step_ = 0;
    entry_ = w.entries().size() == 1 ? 0 : w.pick_entry(unit_double(context.rng()));
    // Every variable the entry uses gets a fresh value, once for the whole iteration.
    for (int slot : w.entries()[static_cast<size_t>(entry_)].data_slots) {
      int source = w.data_source_of_slot()[static_cast<size_t>(slot)];
      w.data()[static_cast<size_t>(source)].draw(context.cursor(source), context.rng(),
                                                 values_[static_cast<size_t>(slot)]);
    }
  }
  const MixEntryPlan& plan = w.entries()[static_cast<size_t>(entry_)];
  request_ = plan.steps[static_cast<size_t>(step_)].request;
  const CompiledRequest& r = w.requests()[static_cast<size_t>(request_)];
  if (r.fixed_bytes) {
    request_bytes_ = *r.fixed_bytes;
    return r;
  }
  buffer_.clear();
  r.head.render_append(buffer_, values_);
  if (r.send_content_length) {
    size_t body_size = r.body ? r.body->rendered_size(values_) : 0;
    char digits[kLengthDigits];
    auto end = std::to_chars(digits, digits + sizeof digits, body_size).ptr;
    buffer_.append("Content-Length: ");
    buffer_.append(digits, static_cast<size_t>(end - digits));
    buffer_.append("\r\n");
  }
  buffer_.append("\r\n");
  if (r.body) r.body->render_append(buffer_, values_);
  request_bytes_ = buffer_;
  return r;
}

Session::StepEnd Session::on_response(const http::ResponseParser& parser) {
  return on_response(ResponseView{parser.status(), parser.captured_headers(),
                                  parser.captured_body(), parser.body_truncated()});
}

Session::StepEnd Session::on_response(const ResponseView& response) {
  const CompiledRequest& r = workload_->requests()[static_cast<size_t>(request_)];
  measure::Outcome outcome = measure::outcome_for_status(response.status);
  if (r.checks.empty() && r.extracts.empty()) return end_step(outcome);

  json_.reset();
  bool passed = true;
  bool status_checked = false;
  for (const CompiledCheck& check : r.checks) {
    status_checked |=
        check.kind() == CheckSpec::Kind::kStatusIn || check.kind() == CheckSpec::Kind::kStatusRange;
    if (!check.passes(response, json_)) {
      passed = false;
      break;
    }
  }
  for (size_t i = 0; passed && i < r.extracts.size(); ++i) {
    std::string& value = values_[static_cast<size_t>(r.extract_slots[i])];
    // A value that could break the next request's head (CR, LF, NUL) is not passed on.
    passed = r.extracts[i].extract(response, json_, value) &&
             value.find_first_of(std::string_view("\r\n\0", 3)) == std::string::npos;
  }
  // A status the checks ask for is a success, whatever its class (`status: 404` on a probe
  // for a deleted item). A failed check turns a success into check_failed; an error status
  // keeps its own outcome (the status is the finding).
  if (passed && status_checked) outcome = measure::Outcome::kSuccess;
  if (!passed && outcome == measure::Outcome::kSuccess) outcome = measure::Outcome::kCheckFailed;
  if (!passed) iteration_ok_ = false;
  return end_step(outcome);
}

Session::StepEnd Session::on_failure(measure::Outcome outcome) {
  iteration_ok_ = false;
  return end_step(outcome);
}

// A flow goes on only while every step succeeds; a single request is always over.
Session::StepEnd Session::end_step(measure::Outcome outcome) {
  if (outcome != measure::Outcome::kSuccess) iteration_ok_ = false;
  const MixEntryPlan& plan = workload_->entries()[static_cast<size_t>(entry_)];
  const CompiledStep& step = plan.steps[static_cast<size_t>(step_)];
  bool last = static_cast<size_t>(step_) + 1 == plan.steps.size();
  if (last || !iteration_ok_) {
    in_iteration_ = false;
    // A think on the flow's last step is the pause at the end of each iteration (k6's sleep at
    // the end), however the flow ended.
    return {outcome, true, iteration_ok_, plan.steps.back().think_ns};
  }
  ++step_;
  return {outcome, false, false, step.think_ns};
}

}  // namespace proofload::workload
