// A scenario file's `executor:` section (see scenario_yaml_parts.h): each key is one row of
// kExecutorKeyTable, which names the run setting it gives and how its value is read, so letting a
// scenario file give a run setting is one row here. Throws UsageError only.
#include <algorithm>
#include <array>

#include "common/units.h"
#include "common/usage_error.h"
#include "schedule/stages.h"
#include "workload/scenario_yaml_parts.h"

namespace proofload::workload::scenario_yaml {
namespace {

constexpr int64_t kMaxH2Streams = 1000;  // as plan::kMaxH2Streams
constexpr std::array<std::string_view, 2> kExecutorTypes = {"closed", "open"};
constexpr std::array<std::string_view, 2> kStageKeys = {"duration", "target"};

constexpr int64_t kMaxConnections = 1'000'000;
constexpr int64_t kMaxRequests = 1'000'000'000'000;

// How the value of an `executor:` key is read and checked (each at the value's place in the file).
enum class ValueKind : uint8_t {
  kExecutorType,      // one of kExecutorTypes
  kRate,              // "100/s"
  kStages,            // "10s:100,30s:1k", or a list of {duration, target}
  kCount,             // a whole number from 1 to ExecutorKey::most
  kDuration,          // "5s", 0 allowed
  kPositiveDuration,  // "5s", above 0
};

// A key of `executor:` and the run setting it gives: the flag's name without its dashes, which
// Scenario::settings is keyed by, so the CLI fills in the flag from it (cli/scenario_options.cc).
// Adding a scenario key for a run setting is one entry here. In the order of help's "allowed:".
struct ExecutorKey {
  std::string_view key;
  std::string_view setting;
  ValueKind kind;
  int64_t most = 0;  // kCount
};
constexpr std::array<ExecutorKey, 9> kExecutorKeyTable = {{
    {"type", "executor", ValueKind::kExecutorType},
    {"rate", "rate", ValueKind::kRate},
    {"stages", "stages", ValueKind::kStages},
    {"connections", "connections", ValueKind::kCount, kMaxConnections},
    {"max_connections", "max-connections", ValueKind::kCount, kMaxConnections},
    {"duration", "duration", ValueKind::kPositiveDuration},
    {"warmup", "warmup", ValueKind::kDuration},
    {"requests", "requests", ValueKind::kCount, kMaxRequests},
    {"h2_streams", "h2-streams", ValueKind::kCount, kMaxH2Streams},
}};
constexpr std::array<std::string_view, kExecutorKeyTable.size()> kExecutorKeys = [] {
  std::array<std::string_view, kExecutorKeyTable.size()> keys{};
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = kExecutorKeyTable[i].key;
  return keys;
}();

std::string executor_what(std::string_view key) {
  return "'" + std::string(key) + "' in 'executor'";
}

std::optional<std::string> read_stages(const Context& context, const FieldMap& executor) {
  const YAML::Node& node = *executor.present("stages");
  std::string text;
  if (node.IsSequence()) {
    // The list form [{duration: 10s, target: 100}, ...] becomes "10s:100,...", as --stages.
    if (node.size() == 0) executor.fail_at_value("stages", "needs at least one stage");
    for (size_t i = 0; i < node.size(); ++i) {
      FieldMap stage(context.source, node[i], "stage " + std::to_string(i + 1) + " of 'executor'",
                     kStageKeys);
      if (!stage.has("duration")) stage.fail_missing("duration");
      if (!stage.has("target")) stage.fail_missing("target");
      stage.get_duration_ns("duration");
      std::string target = *stage.get_string("target");
      try {
        parse_rate_per_s(target);
      } catch (const UsageError& error) {
        stage.fail_at_value("target", error.what());
      }
      text += (i == 0 ? "" : ",") + *stage.get_string("duration") + ":" + target;
    }
  } else {
    text = yaml_reader::read_string(context.source, node, executor_what("stages"));
  }
  try {
    schedule::parse_stages(text);
  } catch (const UsageError& error) {
    executor.fail_at_value("stages", error.what());
  }
  return text;
}

// The value of `entry`'s key, checked, as the text its flag takes.
std::string read_executor_value(const Context& context, const FieldMap& executor,
                                const ExecutorKey& entry) {
  switch (entry.kind) {
    case ValueKind::kExecutorType: {
      std::string type = *executor.get_string(entry.key);
      if (std::find(kExecutorTypes.begin(), kExecutorTypes.end(), type) == kExecutorTypes.end()) {
        executor.fail_at_value(entry.key, unknown_choice("executor type", type, kExecutorTypes));
      }
      return type;
    }
    case ValueKind::kRate:
      executor.get_rate_per_s(entry.key);
      return *executor.get_string(entry.key);
    case ValueKind::kStages:
      return *read_stages(context, executor);
    case ValueKind::kCount:
      return std::to_string(*executor.get_integer(entry.key, 1, entry.most));
    case ValueKind::kPositiveDuration:
      if (*executor.get_duration_ns(entry.key) <= 0) {
        executor.fail_at_value(entry.key, "must be above 0");
      }
      return *executor.get_string(entry.key);
    case ValueKind::kDuration:
      executor.get_duration_ns(entry.key);
      return *executor.get_string(entry.key);
  }
  return {};
}

}  // namespace

// Each key's value is checked as its kind says; the rules across keys are the ones below, each
// at the key it refuses, in the table's order.
void parse_executor(const Context& context, const FieldMap& top, Scenario& scenario) {
  FieldMap executor(context.source, *top.present("executor"), "'executor'", kExecutorKeys);
  for (const ExecutorKey& entry : kExecutorKeyTable) {
    if (!executor.has(entry.key)) continue;
    if (entry.key == "stages" && executor.has("rate")) {
      executor.fail_at_key("stages",
                           "cannot be combined with 'rate' (with type: open the stages "
                           "ramp the rate)");
    }
    if (entry.key == "duration" && executor.has("stages")) {
      executor.fail_at_key("duration",
                           "cannot be combined with 'stages' (the stages give the duration)");
    }
    std::string text = read_executor_value(context, executor, entry);
    if (entry.key == "rate" && scenario.setting("executor") == "closed") {
      executor.fail_at_key("rate",
                           "sets an open-loop schedule: use 'type: open' (or leave 'type' out)");
    }
    const std::optional<std::string> connections = scenario.setting("connections");
    if (entry.key == "max_connections" && connections &&
        std::stoll(text) < std::stoll(*connections)) {
      executor.fail_at_value("max_connections",
                             "must be at least 'connections' (" + *connections + ")");
    }
    scenario.settings.emplace_back(entry.setting, std::move(text));
  }
}

}  // namespace proofload::workload::scenario_yaml
