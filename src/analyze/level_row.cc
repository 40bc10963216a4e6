// See level_row.h.
#include "analyze/level_row.h"

#include <stdexcept>

namespace proofload::analyze {
namespace {

template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

template <typename T>
std::optional<T> optional_field(const nlohmann::json& json, const char* name) {
  auto it = json.find(name);
  if (it == json.end() || it->is_null()) return std::nullopt;
  if (!it->is_number())
    throw std::runtime_error(std::string("row field '") + name + "' is not a number");
  return it->get<T>();
}

std::optional<std::string> optional_text(const nlohmann::json& json, const char* name) {
  auto it = json.find(name);
  if (it == json.end() || it->is_null()) return std::nullopt;
  if (!it->is_string())
    throw std::runtime_error(std::string("row field '") + name + "' is not text");
  return it->get<std::string>();
}

nlohmann::json text_or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

}  // namespace

double LevelRow::goodput() const {
  if (goodput_rps) return *goodput_rps;
  if (error_rate && *error_rate >= 0 && *error_rate <= 1) return achieved_rps * (1 - *error_rate);
  return achieved_rps;
}

double LevelRow::achieved_in_target_unit() const {
  return arrivals_rps ? *arrivals_rps : achieved_rps;
}

nlohmann::json row_to_json(const LevelRow& row) {
  nlohmann::json extra = nlohmann::json::object();
  for (const auto& [name, value] : row.extra_metrics) extra[name] = value;
  return {
      {"level", row.level},
      {"repeat", row.repeat},
      {"target_rps", optional_json(row.target_rps)},
      {"achieved_rps", row.achieved_rps},
      {"goodput_rps", optional_json(row.goodput_rps)},
      {"arrivals_rps", optional_json(row.arrivals_rps)},
      {"flows_per_s", optional_json(row.flows_per_s)},
      {"flow_success_rate", optional_json(row.flow_success_rate)},
      {"p50_ms", optional_json(row.p50_ms)},
      {"p95_ms", optional_json(row.p95_ms)},
      {"p99_ms", optional_json(row.p99_ms)},
      {"requests", optional_json(row.requests)},
      {"responses", optional_json(row.responses)},
      {"error_rate", optional_json(row.error_rate)},
      {"rate_429", optional_json(row.rate_429)},
      {"never_started", optional_json(row.never_started)},
      {"server_cores", optional_json(row.server_cores)},
      {"server_throttled_share", optional_json(row.server_throttled_share)},
      {"server_quota_cores", optional_json(row.server_quota_cores)},
      {"server_cpu_limit_cores", optional_json(row.server_cpu_limit_cores)},
      {"server_cpu_limit_basis", text_or_null(row.server_cpu_limit_basis)},
      {"server_cpu_source", text_or_null(row.server_cpu_source)},
      {"server_throttle_source", text_or_null(row.server_throttle_source)},
      {"generator_cores", optional_json(row.generator_cores)},
      {"generator_busy", row.generator_busy},
      {"host_load1", optional_json(row.host_load1)},
      {"duration_s", optional_json(row.duration_s)},
      {"extra_metrics", extra},
  };
}

LevelRow row_from_json(const nlohmann::json& json) {
  if (!json.is_object()) throw std::runtime_error("a row is not an object");
  LevelRow row;
  auto required = [&](const char* name) {
    auto value = optional_field<double>(json, name);
    if (!value) throw std::runtime_error(std::string("row field '") + name + "' is missing");
    return *value;
  };
  row.level = required("level");
  row.repeat = optional_field<int>(json, "repeat").value_or(1);
  row.target_rps = optional_field<double>(json, "target_rps");
  row.achieved_rps = required("achieved_rps");
  row.goodput_rps = optional_field<double>(json, "goodput_rps");
  row.arrivals_rps = optional_field<double>(json, "arrivals_rps");
  row.flows_per_s = optional_field<double>(json, "flows_per_s");
  row.flow_success_rate = optional_field<double>(json, "flow_success_rate");
  row.p50_ms = optional_field<double>(json, "p50_ms");
  row.p95_ms = optional_field<double>(json, "p95_ms");
  row.p99_ms = optional_field<double>(json, "p99_ms");
  row.requests = optional_field<int64_t>(json, "requests");
  row.responses = optional_field<int64_t>(json, "responses");
  row.error_rate = optional_field<double>(json, "error_rate");
  row.rate_429 = optional_field<double>(json, "rate_429");
  row.never_started = optional_field<double>(json, "never_started");
  row.server_cores = optional_field<double>(json, "server_cores");
  row.server_throttled_share = optional_field<double>(json, "server_throttled_share");
  row.server_quota_cores = optional_field<double>(json, "server_quota_cores");
  row.server_cpu_limit_cores = optional_field<double>(json, "server_cpu_limit_cores");
  row.server_cpu_limit_basis = optional_text(json, "server_cpu_limit_basis").value_or("");
  row.server_cpu_source = optional_text(json, "server_cpu_source").value_or("");
  row.server_throttle_source = optional_text(json, "server_throttle_source").value_or("");
  row.generator_cores = optional_field<double>(json, "generator_cores");
  if (auto it = json.find("generator_busy"); it != json.end() && !it->is_null()) {
    if (!it->is_boolean()) throw std::runtime_error("row field 'generator_busy' is not a boolean");
    row.generator_busy = it->get<bool>();
  }
  row.host_load1 = optional_field<double>(json, "host_load1");
  row.duration_s = optional_field<double>(json, "duration_s");
  if (auto it = json.find("extra_metrics"); it != json.end() && it->is_object()) {
    for (const auto& [name, value] : it->items()) {
      if (!value.is_number())
        throw std::runtime_error("extra metric '" + name + "' is not a number");
      row.extra_metrics.emplace_back(name, value.get<double>());
    }
  }
  return row;
}

}  // namespace proofload::analyze
