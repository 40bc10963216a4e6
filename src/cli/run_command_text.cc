// See run_flags.h: a run's flags written back as the command that repeats it.
#include "cli/command_line.h"
#include "cli/run_flags.h"

namespace proofload::cli {

std::string run_command_text(const RunFlags& f, std::optional<uint64_t> seed) {
  const RunFlags defaults;
  std::string out = "proofload run";
  auto arg = [&](const std::string& text) { out += " " + shell_quote(text); };
  auto option = [&](const char* flag, const std::string& value) {
    out += std::string(" ") + flag;
    arg(value);
  };
  if (f.scenario_file) arg(*f.scenario_file);
  if (!f.url.empty()) arg(f.url);
  if (f.executor) option("--executor", *f.executor);
  if (f.rate) option("--rate", *f.rate);
  if (f.stages) option("--stages", *f.stages);
  if (f.connections != defaults.connections) option("-c", std::to_string(f.connections));
  if (f.max_connections) option("--max-connections", std::to_string(*f.max_connections));
  if (f.duration) option("-d", *f.duration);
  if (f.warmup != defaults.warmup) option("--warmup", f.warmup);
  if (f.requests) option("-n", std::to_string(*f.requests));
  if (f.queue != defaults.queue) option("--queue", std::to_string(f.queue));
  if (f.method != defaults.method) option("-m", f.method);
  std::vector<std::string> variables;
  for (const std::string& header : f.headers) out += " -H " + shown_header_argument(header, variables);
  if (f.body) option("--body", *f.body);
  if (f.body_file) option("--body-file", *f.body_file);
  if (f.timeout != defaults.timeout) option("--timeout", f.timeout);
  if (f.connect_timeout != defaults.connect_timeout) option("--connect-timeout", f.connect_timeout);
  if (f.grace != defaults.grace) option("--grace", f.grace);
  if (f.workers != defaults.workers) option("--workers", std::to_string(f.workers));
  for (const std::string& t : f.thresholds) option("--threshold", t);
  if (seed) option("--seed", std::to_string(*seed));
  for (const std::string& o : f.observe) option("--observe", o);
  if (f.observe_every != defaults.observe_every) option("--observe-every", f.observe_every);
  return out + sensitive_variables_note(variables);
}

}  // namespace proofload::cli
