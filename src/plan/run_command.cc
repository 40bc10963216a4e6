// See plan_run.h: a RunSpec written back as the `proofload run` command that repeats it. A
// ladder's level records it as its own command, so its Reproduce is that level's run.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/text.h"
#include "common/units.h"
#include "plan/plan_run.h"
#include "plan/redaction.h"

namespace proofload::plan {

std::string run_command_text(const RunSpec& spec, std::optional<uint64_t> seed) {
  const RunSpec defaults;
  std::string out = "proofload run";
  auto arg = [&](const std::string& text) { out += " " + shell_quote(text); };
  auto option = [&](const char* flag, const std::string& value) {
    out += std::string(" ") + flag;
    arg(value);
  };
  auto duration = [&](const char* flag, int64_t ns, int64_t default_ns) {
    if (ns != default_ns) option(flag, format_duration(ns));
  };
  if (spec.scenario) arg(spec.scenario->file);
  if (!spec.target_from_scenario) arg(spec.target);
  for (const std::string& more : spec.more_targets) option("--target", more);
  if (spec.stream) {
    option("--stream", spec.stream->kind);
    if (spec.stream->content) option("--stream-content", *spec.stream->content);
    if (spec.stream->tokens) option("--stream-tokens", *spec.stream->tokens);
    if (spec.stream->terminator) option("--stream-end", *spec.stream->terminator);
    if (!spec.stream->fixture_path.empty()) option("--stream-fixture", spec.stream->fixture_path);
  }
  if (spec.stream_idle_timeout_ns) {
    option("--stream-idle-timeout", format_duration(*spec.stream_idle_timeout_ns));
  }
  if (spec.goodput) option("--goodput", *spec.goodput);
  const bool open = spec.executor == engine::Executor::kOpenLoop;
  // --rate means an open loop; stages need it said.
  if (open && !spec.stages.empty()) option("--executor", "open");
  if (spec.rate_per_s) option("--rate", fmt::format("{}", *spec.rate_per_s));
  if (!spec.stages.empty()) {
    std::string stages;
    for (const schedule::Stage& s : spec.stages) {
      stages += (stages.empty() ? "" : ",") + format_duration(s.duration_ns) + ":" +
                fmt::format("{}", s.target);
    }
    option("--stages", stages);
  }
  if (spec.connections != defaults.connections) option("-c", std::to_string(spec.connections));
  if (spec.max_connections) option("--max-connections", std::to_string(*spec.max_connections));
  if (spec.duration_ns) option("-d", format_duration(*spec.duration_ns));
  duration("--warmup", spec.warmup_ns, defaults.warmup_ns);
  if (spec.requests_limit) option("-n", std::to_string(*spec.requests_limit));
  if (spec.queue != defaults.queue) option("--queue", std::to_string(spec.queue));
  if (spec.method != defaults.method) option("-m", spec.method);
  std::vector<std::string> variables;
  for (const auto& [name, value] : spec.headers) {
    out += " -H " + shown_header_argument(name + ": " + value, variables);
  }
  if (spec.body) option("--body", *spec.body);
  if (spec.body_file) option("--body-file", *spec.body_file);
  duration("--timeout", spec.timeout_ns, defaults.timeout_ns);
  duration("--connect-timeout", spec.connect_timeout_ns, defaults.connect_timeout_ns);
  duration("--grace", spec.grace_ns, defaults.grace_ns);
  if (!spec.tls.ca_file.empty()) option("--cacert", spec.tls.ca_file);
  if (!spec.tls.verify) out += " --insecure";
  if (!spec.tls.server_name.empty()) option("--sni", spec.tls.server_name);
  if (!spec.tls.cert_file.empty()) option("--cert", spec.tls.cert_file);
  if (!spec.tls.key_file.empty()) option("--key", spec.tls.key_file);
  if (spec.tls.min_version == TLS1_3_VERSION) option("--tls-min", "1.3");
  if (!spec.tls.resume) out += " --no-tls-resume";
  if (spec.protocol == engine::Protocol::kHttp2) out += " --http2";
  if (spec.h2_streams) option("--h2-streams", std::to_string(*spec.h2_streams));
  if (spec.workers != defaults.workers) option("--workers", std::to_string(spec.workers));
  if (spec.io) option("--io", *spec.io == net::IoBackend::kUring ? "uring" : "epoll");
  if (!spec.sources.empty()) option("--sources", fmt::format("{}", fmt::join(spec.sources, ",")));
  if (spec.segments > 1) option("--segment", fmt::format("{}/{}", spec.segment, spec.segments));
  for (const std::string& t : spec.thresholds) option("--threshold", t);
  if (seed) option("--seed", std::to_string(*seed));
  for (const std::string& o : spec.observe) option("--observe", o);
  duration("--observe-every", spec.observe_every_ns, defaults.observe_every_ns);
  if (spec.reconcile) option("--reconcile", *spec.reconcile);
  return out + sensitive_variables_note(variables);
}

}  // namespace proofload::plan
