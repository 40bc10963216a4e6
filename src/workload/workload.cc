// Compiles a parsed Scenario into the Workload the engine runs (see workload.h). Configuration
// time only: allocation and exceptions are fine here, and every error names where it was written.
#include "workload/workload.h"

#include <algorithm>
#include <set>
#include <utility>

#include "common/usage_error.h"
#include "http/request.h"

namespace proofload::workload {
namespace {

// Bodies larger than this are counted but kept only up to it; a check or an extraction on a
// longer body fails as "body truncated" rather than judge a prefix.
constexpr size_t kMaxCapturedBodyBytes = 256 * 1024;

using header_text::ascii_iequals;

bool has_header(const std::vector<std::pair<std::string, std::string>>& headers,
                std::string_view name) {
  return std::any_of(headers.begin(), headers.end(),
                     [&](const auto& h) { return ascii_iequals(h.first, name); });
}

// Runs `compile` and prefixes any UsageError with the place it was written.
template <typename F>
auto at(const SourceLocation& where, const std::string& what, F&& compile) {
  try {
    return compile();
  } catch (const UsageError& e) {
    throw UsageError(where.text() + ": " + what + ": " + e.what());
  }
}

// "/api" + "/items" -> "/api/items"; a base of "/" adds nothing.
std::string join_paths(const std::string& base, const std::string& path) {
  std::string prefix = base;
  if (auto query = prefix.find('?'); query != std::string::npos) prefix.resize(query);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  return prefix + path;
}

// The header block of one request as template text: the user's headers first (in order, the
// request's own before the defaults it does not override), then Host and User-Agent unless set.
std::string head_template_text(const RequestSpec& spec, const Scenario& scenario,
                               const http::Url& target) {
  std::vector<std::pair<std::string, std::string>> headers = spec.header_templates;
  for (const auto& header : scenario.default_headers) {
    if (!has_header(headers, header.first)) headers.push_back(header);
  }
  if (spec.json_body && !has_header(headers, "Content-Type")) {
    headers.emplace_back("Content-Type", "application/json");
  }
  // Method and header names are checked by the same code as the command line's -m and -H.
  http::RequestSpec probe;
  probe.method = spec.method;
  probe.url = target;
  for (const auto& [name, value] : headers) {
    if (ascii_iequals(name, "Content-Length") || ascii_iequals(name, "Transfer-Encoding")) {
      throw UsageError("header '" + name + "' is set by proofload from the body");
    }
    probe.headers.emplace_back(name, "x");
    if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
      throw UsageError("header '" + name + "' has a line break or NUL in its value");
    }
  }
  http::build_request(probe);

  std::string text =
      spec.method + " " + join_paths(target.path_and_query, spec.path_template) + " HTTP/1.1\r\n";
  if (!has_header(headers, "Host")) text += "Host: " + target.host_header + "\r\n";
  if (!has_header(headers, "User-Agent")) {
    text += "User-Agent: " + std::string(http::default_user_agent()) + "\r\n";
  }
  for (const auto& [name, value] : headers) text += name + ": " + value + "\r\n";
  return text;
}

CompiledRequest compile_request(const RequestSpec& spec, const Scenario& scenario,
                                const http::Url& target, const VariableTable& variables,
                                SecretStore& secrets) {
  const std::string what = "request '" + spec.name + "'";
  CompiledRequest r;
  r.name = spec.name;
  r.is_head = spec.method == "HEAD";
  at(spec.where, what, [&] {
    std::string head_text = head_template_text(spec, scenario, target);
    r.head = Template::compile(head_text, variables, secrets);
    if (spec.body_template) r.body = Template::compile(*spec.body_template, variables, secrets);
    for (const CheckSpec& check : spec.checks) r.checks.push_back(CompiledCheck::compile(check));
    if (spec.stream) {
      r.stream = std::make_shared<const StreamRules>(compile_stream_rules(*spec.stream, what));
    }
    for (const ExtractSpec& extract : spec.extracts) {
      r.extracts.push_back(CompiledExtract::compile(extract));
      r.extract_slots.push_back(variables.slot_of(extract.variable));
    }
    return 0;
  });
  r.send_content_length =
      r.body.has_value() || spec.method == "POST" || spec.method == "PUT" || spec.method == "PATCH";
  for (const CompiledCheck& check : r.checks) {
    if (check.needs_body()) r.capture.max_body_bytes = kMaxCapturedBodyBytes;
  }
  for (const CompiledExtract& extract : r.extracts) {
    if (extract.needs_body()) r.capture.max_body_bytes = kMaxCapturedBodyBytes;
    if (extract.needs_headers()) r.capture.headers = true;
  }
  if (r.head.is_literal() && (!r.body || r.body->is_literal())) {
    // Nothing varies: render once (Content-Length included) and send the same bytes each time.
    std::string bytes;
    r.head.render_append(bytes, {});
    if (r.send_content_length) {
      bytes += "Content-Length: " + std::to_string(r.body ? r.body->rendered_size({}) : 0) + "\r\n";
    }
    bytes += "\r\n";
    if (r.body) r.body->render_append(bytes, {});
    r.fixed_bytes = std::move(bytes);
  }
  return r;
}

int index_of(const std::vector<std::string>& names, const std::string& name) {
  auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

}  // namespace

std::shared_ptr<const Workload> Workload::fixed(std::string request_bytes, bool head_request) {
  auto w = std::make_shared<Workload>();
  CompiledRequest r;
  r.name = "request";
  r.is_head = head_request;
  r.fixed_bytes = std::move(request_bytes);
  w->requests_.push_back(std::move(r));
  w->entries_.push_back(MixEntryPlan{"request", {CompiledStep{0, 0}}, -1, {}});
  w->cumulative_weight_ = {1.0};
  w->is_fixed_ = true;
  return w;
}

std::shared_ptr<const Workload> Workload::compile(const Scenario& scenario, const http::Url& target,
                                                  SecretStore& secrets, uint64_t seed) {
  auto w = std::make_shared<Workload>();
  w->seed_ = seed;

  // Variables: data first (their slots index data_), then every extracted name.
  VariableTable variables;
  for (const DataSpec& data : scenario.data) {
    variables.add(data.name);
    w->data_.push_back(at(data.where, "data '" + data.name + "'",
                          [&] { return DataSource::compile(data, seed); }));
  }
  for (const RequestSpec& request : scenario.requests) {
    for (const ExtractSpec& extract : request.extracts) variables.add(extract.variable);
  }
  w->variable_count_ = variables.size();
  w->data_source_of_slot_.assign(variables.size(), -1);
  for (size_t i = 0; i < scenario.data.size(); ++i) {
    w->data_source_of_slot_[static_cast<size_t>(variables.slot_of(scenario.data[i].name))] =
        static_cast<int>(i);
  }

  std::vector<std::string> request_names;
  for (const RequestSpec& request : scenario.requests) {
    w->requests_.push_back(compile_request(request, scenario, target, variables, secrets));
    request_names.push_back(request.name);
    // Extracted values are screened as they arrive (Session); data values are known now.
    for (int slot : w->requests_.back().head.slots()) {
      const int source = w->data_source_of_slot_[static_cast<size_t>(slot)];
      if (source >= 0 && w->data_[static_cast<size_t>(source)].has_value_breaking_a_line()) {
        throw UsageError(request.where.text() + ": request '" + request.name + "' puts data '" +
                         variables.name(slot) +
                         "' in its path or headers, and a value of it holds a line break or NUL");
      }
    }
  }
  for (const FlowSpec& flow : scenario.flows) w->flow_names_.push_back(flow.name);

  // The data variables an entry's requests use: drawn once at the start of each iteration.
  auto plan_of = [&](const std::string& name, const SourceLocation& where) {
    MixEntryPlan plan;
    plan.name = name;
    if (int r = index_of(request_names, name); r >= 0) {
      plan.steps.push_back(CompiledStep{r, 0});
    } else if (int f = index_of(w->flow_names_, name); f >= 0) {
      plan.flow = f;
      for (const StepSpec& step : scenario.flows[static_cast<size_t>(f)].steps) {
        int r_index = index_of(request_names, step.request);
        if (r_index < 0)
          throw UsageError(step.where.text() + ": no request named '" + step.request + "'");
        plan.steps.push_back(CompiledStep{r_index, step.think_ns});
      }
    } else {
      throw UsageError(where.text() + ": the mix names '" + name +
                       "', which is no request or flow");
    }
    std::set<int> slots;
    for (const CompiledStep& step : plan.steps) {
      const CompiledRequest& r = w->requests_[static_cast<size_t>(step.request)];
      std::vector<int> used = r.head.slots();
      if (r.body) used.insert(used.end(), r.body->slots().begin(), r.body->slots().end());
      for (int slot : used) {
        if (w->data_source_of_slot_[static_cast<size_t>(slot)] >= 0) slots.insert(slot);
      }
    }
    plan.data_slots.assign(slots.begin(), slots.end());
    return plan;
  };

  std::vector<double> weights;
  if (!scenario.mix.empty()) {
    for (const MixEntry& entry : scenario.mix) {
      w->entries_.push_back(plan_of(entry.name, entry.where));
      weights.push_back(entry.weight);
    }
  } else {
    // No mix: every flow, and every request that is not a step of a flow, with weight 1.
    std::set<std::string> in_flows;
    for (const FlowSpec& flow : scenario.flows) {
      for (const StepSpec& step : flow.steps) in_flows.insert(step.request);
    }
    for (const RequestSpec& request : scenario.requests) {
      if (!in_flows.count(request.name))
        w->entries_.push_back(plan_of(request.name, request.where));
    }
    for (const FlowSpec& flow : scenario.flows)
      w->entries_.push_back(plan_of(flow.name, flow.where));
    weights.assign(w->entries_.size(), 1.0);
  }
  if (w->entries_.empty())
    throw UsageError(scenario.file + ": the scenario has no request to send");

  double total = 0;
  for (double weight : weights) total += weight;
  double running = 0;
  for (double weight : weights) {
    running += weight;
    w->cumulative_weight_.push_back(running / total);
  }
  w->cumulative_weight_.back() = 1.0;  // no gap above the last entry from rounding
  return w;
}

bool Workload::has_streams() const {
  return std::any_of(requests_.begin(), requests_.end(),
                     [](const CompiledRequest& r) { return r.stream != nullptr; });
}

int Workload::pick_entry(double u) const {
  auto it = std::upper_bound(cumulative_weight_.begin(), cumulative_weight_.end(), u);
  if (it == cumulative_weight_.end()) --it;
  return static_cast<int>(it - cumulative_weight_.begin());
}

double Workload::entry_share(int entry) const {
  double upper = cumulative_weight_[static_cast<size_t>(entry)];
  double lower = entry == 0 ? 0.0 : cumulative_weight_[static_cast<size_t>(entry) - 1];
  return upper - lower;
}

}  // namespace proofload::workload
