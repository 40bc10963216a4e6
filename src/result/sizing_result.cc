// See sizing_result.h.
#include "result/sizing_result.h"

#include "result/json_reader.h"
#include "result/json_values.h"

namespace proofload::result {
namespace {

using nlohmann::json;

constexpr const char* kSizingDocument = "sizing result.json";

json config_json(const SizingConfigRecord& c) {
  return {{"name", c.name},
          {"directory", c.directory},
          {"status", text_or_null(c.status)},
          {"end_reason", text_or_null(c.end_reason)},
          {"instances", optional_json(c.instances)},
          {"cpu_per_instance", optional_json(c.cpu_per_instance)},
          {"memory_per_instance_bytes", optional_json(c.memory_per_instance_bytes)},
          {"cores", optional_json(c.cores)},
          {"cores_basis", text_or_null(c.cores_basis)},
          {"targets", c.targets},
          {"best_sustained_rps", optional_json(c.best_sustained_rps)},
          {"best_level", optional_json(c.best_level)},
          {"per_core_rps", optional_json(c.per_core_rps)},
          {"peak_rps", optional_json(c.peak_rps)},
          {"knee_level", optional_json(c.knee_level)},
          {"throttled_share", optional_json(c.throttled_share)},
          {"server_cores_max", optional_json(c.server_cores_max)},
          {"best_p95_ms", optional_json(c.best_p95_ms)},
          {"cpu_instances_observed", optional_json(c.cpu_instances_observed)},
          {"host_saturated", c.host_saturated},
          {"memory_peak_bytes", optional_json(c.memory_peak_bytes)},
          {"generator_busy", c.generator_busy},
          {"noise_floor", optional_json(c.noise_floor)},
          {"noise_floor_source", text_or_null(c.noise_floor_source)}};
}

SizingConfigRecord config_from_json(const JsonReader& r) {
  SizingConfigRecord c;
  c.name = r.required_text("name");
  c.directory = r.text("directory");
  c.status = r.text("status");
  c.end_reason = r.text("end_reason");
  c.instances = r.count("instances");
  c.cpu_per_instance = r.number("cpu_per_instance");
  c.memory_per_instance_bytes = r.count("memory_per_instance_bytes");
  c.cores = r.number("cores");
  c.cores_basis = r.text("cores_basis");
  c.targets = r.texts("targets");
  c.best_sustained_rps = r.number("best_sustained_rps");
  c.best_level = r.number("best_level");
  c.per_core_rps = r.number("per_core_rps");
  c.peak_rps = r.number("peak_rps");
  c.knee_level = r.number("knee_level");
  c.throttled_share = r.number("throttled_share");
  c.server_cores_max = r.number("server_cores_max");
  c.best_p95_ms = r.number("best_p95_ms");
  c.cpu_instances_observed = r.count("cpu_instances_observed");
  c.host_saturated = r.boolean("host_saturated").value_or(false);
  c.memory_peak_bytes = r.number("memory_peak_bytes");
  c.generator_busy = r.boolean("generator_busy").value_or(false);
  c.noise_floor = r.number("noise_floor");
  c.noise_floor_source = r.text("noise_floor_source");
  return c;
}

json settings_json(const SizingSettings& s) {
  return {{"apply", optional_json(s.apply)},
          {"restore", optional_json(s.restore)},
          {"ready_until", optional_json(s.ready_until)},
          {"ready_timeout_s", s.ready_timeout_s},
          {"hook_timeout_s", s.hook_timeout_s},
          {"loop", s.loop},
          {"levels", s.levels},
          {"search", s.search},
          {"hold_s", s.hold_s},
          {"warmup_s", s.warmup_s},
          {"slo", s.slo},
          {"observe", s.observe}};
}

SizingSettings sizing_settings_from_json(const JsonReader& r) {
  SizingSettings s;
  s.apply = r.optional_text("apply");
  s.restore = r.optional_text("restore");
  s.ready_until = r.optional_text("ready_until");
  s.ready_timeout_s = r.number("ready_timeout_s").value_or(kDefaultReadyTimeoutS);
  s.hook_timeout_s = r.number("hook_timeout_s").value_or(60);
  s.loop = r.text("loop");
  s.levels = r.numbers("levels").value_or(std::vector<double>{});
  s.search = r.boolean("search").value_or(false);
  s.hold_s = r.number("hold_s").value_or(0);
  s.warmup_s = r.number("warmup_s").value_or(0);
  s.slo = r.text("slo");
  s.observe = r.texts("observe");
  return s;
}

}  // namespace

json sizing_to_json(const SizingResult& r) {
  json out = experiment_record_to_json(r, kSizingSchema, "sizing");
  json configs = json::array();
  for (const SizingConfigRecord& c : r.configs) configs.push_back(config_json(c));
  out["settings"] = settings_json(r.settings);
  out["sizing"] = {{"configs", configs}};
  return out;
}

SizingResult sizing_from_json(const json& document) {
  SizingResult r;
  static_cast<ExperimentRecord&>(r) =
      experiment_record_from_json(document, kSizingSchema, "sizing", kSizingDocument);
  const JsonReader top(&document, "", kSizingDocument);
  r.settings = sizing_settings_from_json(top.object("settings"));
  for (const JsonReader& c : top.object("sizing").objects("configs")) {
    r.configs.push_back(config_from_json(c));
  }
  return r;
}

}  // namespace proofload::result
