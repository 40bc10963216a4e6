// See sizing.h.
#include "experiments/sizing.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>

#include "common/clock.h"
#include "common/text.h"
#include "common/usage_error.h"
#include "experiments/sizing_record.h"
#include "report/numbers.h"
#include "words/numbers.h"

namespace proofload::experiments {
namespace {

namespace fs = std::filesystem;

std::optional<double> parse_number(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(value) || value <= 0) {
    return std::nullopt;
  }
  return value;
}

// "500m" (millicores) or "0.5" (cores).
std::optional<double> parse_cpu(std::string_view text) {
  if (!text.empty() && text.back() == 'm') {
    std::optional<double> milli = parse_number(text.substr(0, text.size() - 1));
    return milli ? std::optional<double>(*milli / 1000) : std::nullopt;
  }
  return parse_number(text);
}

// "1Gi", "512Mi", "1G", "1073741824": a Kubernetes quantity of bytes.
std::optional<int64_t> parse_memory(std::string_view text) {
  struct Unit {
    std::string_view suffix;
    double bytes;
  };
  constexpr Unit kUnits[] = {
      {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
      {"k", 1e3},     {"K", 1e3},        {"M", 1e6},           {"G", 1e9},
      {"T", 1e12}};
  double scale = 1;
  std::string_view number = text;
  for (const Unit& u : kUnits) {
    if (text.size() > u.suffix.size() && text.ends_with(u.suffix)) {
      scale = u.bytes;
      number = text.substr(0, text.size() - u.suffix.size());
      break;
    }
  }
  std::optional<double> value = parse_number(number);
  if (!value || *value * scale > 9e18) return std::nullopt;
  return static_cast<int64_t>(std::llround(*value * scale));
}

// The targets the apply hook wrote for its configuration (one URL a line); empty when none.
std::vector<std::string> targets_written(const fs::path& file) {
  std::vector<std::string> urls;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    const std::string url(trim(line));
    if (!url.empty()) urls.push_back(url);
  }
  return urls;
}

}  // namespace

SizingConfig parse_sizing_config(const std::string& name) {
  if (name.empty()) throw UsageError("--configs has an empty configuration name");
  for (char c : name) {
    if (c == ',' || c == '"' || c == '\'' || c == '`' || c == '\\' ||
        static_cast<unsigned char>(c) < 0x20) {
      throw UsageError("configuration name '" + name +
                       "' has a character a hook cannot take safely (quotes, backslash, control)");
    }
  }
  SizingConfig config;
  config.name = name;
  for (char c : name) {
    const bool plain =
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    config.slug += plain ? c : '-';
  }
  // NxCPU/MEM; anything else is free-form.
  const size_t x = name.find('x');
  const size_t slash = name.find('/');
  if (x == std::string::npos || slash == std::string::npos || slash < x) return config;
  int instances = 0;
  const std::string_view n(name.data(), x);
  const auto [end, error] = std::from_chars(n.data(), n.data() + n.size(), instances);
  const std::string_view cpu = std::string_view(name).substr(x + 1, slash - x - 1);
  const std::string_view memory = std::string_view(name).substr(slash + 1);
  const std::optional<double> cores = parse_cpu(cpu);
  const std::optional<int64_t> bytes = parse_memory(memory);
  if (n.empty() || error != std::errc() || end != n.data() + n.size() || instances < 1 || !cores ||
      !bytes) {
    return config;
  }
  config.instances = instances;
  config.cpu_per_instance = cores;
  config.cpu_text = std::string(cpu);
  config.memory_per_instance_bytes = bytes;
  config.memory_text = std::string(memory);
  config.cores = instances * *cores;
  config.cores_basis = "the name";
  return config;
}

std::vector<SizingConfig> parse_sizing_configs(const std::string& list,
                                               const std::vector<std::string>& cores_given) {
  std::vector<SizingConfig> configs;
  std::set<std::string> names, slugs;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string item(trim(std::string_view(list).substr(
        start, comma == std::string::npos ? list.npos : comma - start)));
    SizingConfig config = parse_sizing_config(item);
    if (!names.insert(config.name).second || !slugs.insert(config.slug).second) {
      throw UsageError("--configs names '" + item +
                       "' twice (or two names that make one "
                       "directory name)");
    }
    configs.push_back(std::move(config));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (const std::string& given : cores_given) {
    const size_t eq = given.rfind('=');
    std::optional<double> cores;
    if (eq != std::string::npos) cores = parse_number(std::string_view(given).substr(eq + 1));
    if (!cores) throw UsageError("--cores must be NAME=N with N above 0, got '" + given + "'");
    const std::string name = given.substr(0, eq);
    auto found = std::find_if(configs.begin(), configs.end(),
                              [&](const SizingConfig& c) { return c.name == name; });
    if (found == configs.end()) {
      throw UsageError("--cores " + given + ": no configuration is named '" + name + "'");
    }
    found->cores = cores;
    found->cores_basis = "--cores";
  }
  return configs;
}

std::vector<std::pair<std::string, std::string>> config_env(const SizingConfig& c, int index) {
  std::vector<std::pair<std::string, std::string>> env = {
      {"PROOFLOAD_CONFIG", c.name},
      {"PROOFLOAD_CONFIG_SLUG", c.slug},
      {"PROOFLOAD_CONFIG_INDEX", std::to_string(index)}};
  if (c.instances) env.emplace_back("PROOFLOAD_INSTANCES", std::to_string(*c.instances));
  if (c.cpu_per_instance) {
    env.emplace_back("PROOFLOAD_CPU", fmt::format("{:g}", *c.cpu_per_instance));
    env.emplace_back("PROOFLOAD_CPU_MILLI", fmt::format("{:g}", *c.cpu_per_instance * 1000));
  }
  if (c.memory_per_instance_bytes) {
    env.emplace_back("PROOFLOAD_MEMORY", c.memory_text);
    env.emplace_back("PROOFLOAD_MEMORY_BYTES", std::to_string(*c.memory_per_instance_bytes));
  }
  if (c.cores) env.emplace_back("PROOFLOAD_CORES", fmt::format("{:g}", *c.cores));
  return env;
}

std::string substitute_config(const std::string& text,
                              const std::vector<std::pair<std::string, std::string>>& env) {
  std::string out = text;
  // Longest names first, so ${PROOFLOAD_CONFIG} never eats the start of another.
  std::vector<std::pair<std::string, std::string>> sorted = env;
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [name, value] : sorted) {
    const std::string pattern = "${" + name + "}";
    for (size_t at = out.find(pattern); at != std::string::npos;
         at = out.find(pattern, at + value.size())) {
      out.replace(at, pattern.size(), value);
    }
  }
  return out;
}

std::vector<std::string> config_observers(
    const std::vector<std::string>& specs, const SizingConfig& config,
    const std::vector<std::pair<std::string, std::string>>& env) {
  std::vector<std::string> out;
  for (const std::string& spec : specs) {
    const std::string replaced = substitute_config(spec, env);
    if (replaced.find("${INSTANCE}") == std::string::npos) {
      out.push_back(replaced);
      continue;
    }
    for (int i = 0; i < config.instances.value_or(1); ++i) {
      out.push_back(substitute_config(replaced, {{"INSTANCE", std::to_string(i)}}));
    }
  }
  return out;
}

std::string config_directory(const SizingConfig& config, int index) {
  return fmt::format("configs/{:02}-{}", index, config.slug);
}

std::string describe_sizing_plan(const SizingPlan& plan) {
  const LadderPlan& ladder = plan.ladder;
  const ExperimentGuards& guards = plan.context.guards;
  const bool open = ladder.loop == analyze::Loop::kOpen;
  const size_t level_runs = ladder.search ? 0 : schedule_levels(ladder).size();
  std::string out = fmt::format(
      "Sizing: {} configurations, each {}.\n", plan.configs.size(),
      ladder.search ? "a rate search"
                    : fmt::format("{} loop ladder of {} level runs, each {} warm-up + {} measured",
                                  open ? "an open" : "a closed", level_runs,
                                  words::duration_text(seconds_of(ladder.warmup_ns)),
                                  words::duration_text(seconds_of(ladder.hold_ns))));
  int64_t load_ns = 0;
  int64_t bound_ns = 0;
  int index = 0;
  for (const SizingConfig& c : plan.configs) {
    ++index;
    out += fmt::format("{:>3}. {}{} -> {}\n", index, c.name,
                       c.cores ? fmt::format(" ({:g} core{}, from {})", *c.cores,
                                             *c.cores == 1 ? "" : "s", c.cores_basis)
                               : std::string(" (cores not known: give --cores NAME=N)"),
                       (plan.context.out_dir / config_directory(c, index)).string());
    out += fmt::format("       apply    {}\n", plan.apply ? *plan.apply : "(none)");
    if (guards.drain_until) {
      out += fmt::format("       ready    {} (at most {})\n", *guards.drain_until,
                         words::duration_text(seconds_of(guards.drain_timeout_ns)));
    }
    if (ladder.search) {
      out += "       a rate search (see below)\n";
    } else {
      for (const ScheduledLevel& l : schedule_levels(ladder)) {
        out += fmt::format("       level {}{}{}\n", fmt::format("{}", l.level),
                           open ? "/s" : " connections",
                           ladder.repeat > 1 ? fmt::format(" (repeat {})", l.repeat) : "");
      }
    }
    const analyze::RateSearchOptions* s = ladder.search ? &*ladder.search : nullptr;
    load_ns += s ? s->max_steps * (ladder.warmup_ns + ladder.step_hold_ns) +
                       s->confirm_attempts * (ladder.warmup_ns + ladder.hold_ns)
                 : static_cast<int64_t>(level_runs) * (ladder.warmup_ns + ladder.hold_ns);
    bound_ns += (plan.apply ? guards.hooks.timeout_ns : 0) +
                (guards.drain_until ? guards.drain_timeout_ns : 0);
  }
  out += fmt::format("At the end, once, on every exit path: restore {}\n",
                     guards.hooks.restore ? *guards.hooks.restore : "(none)");
  if (!ladder.base_run.observe.empty()) {
    std::string specs;
    for (const std::string& o : ladder.base_run.observe) specs += (specs.empty() ? "" : ", ") + o;
    out += "Observed, resolved again after each apply: " + specs + "\n";
  }
  if (ladder.search) {
    out += "Each configuration's search:\n";
    LadderPlan one = ladder;
    one.context.out_dir = plan.context.out_dir / "configs";
    std::string search = describe_plan(one);
    out += search.substr(0, search.find("Around each level"));
  }
  if (guards.hooks.restore) bound_ns += guards.hooks.timeout_ns;
  out += fmt::format("Total: {}{} of load{}.\n", ladder.search ? "at most " : "",
                     words::duration_text(seconds_of(load_ns)),
                     bound_ns > 0 ? fmt::format(", plus at most {} in hooks and ready waits",
                                                words::duration_text(seconds_of(bound_ns)))
                                  : "");
  out += fmt::format("Results: {}\n", plan.context.out_dir.string());
  out += "Nothing was sent (--plan).\n";
  return out;
}

namespace {

// The runner's setup: the sizing's context, whose step reset is each configuration's apply (and
// its drain gate the ready wait: rename_gates).
ExperimentSetup setup_of(const SizingPlan& plan, std::function<void()> save) {
  ExperimentContext context = plan.context;
  context.guards.hooks.reset = plan.apply;
  return ExperimentSetup{std::move(context), std::move(save), plan.ladder.base_run.tls};
}

// The sizing on the experiment runner: each configuration is one step whose reset hook is the
// apply, whose drain gate is the ready wait, and whose load is the configuration's whole ladder.
class SizingRun {
 public:
  explicit SizingRun(const SizingPlan& plan)
      : plan_(plan), experiment_(setup_of(plan, [this] { save(); })) {
    experiment_.rename_gates("apply", "ready");
    plan.context.open_record(result_);
    result_.source = plan.ladder.source;
    result_.run_directory = "configs";
    result_.settings = plan.settings;
    int index = 0;
    for (const SizingConfig& c : plan.configs) {
      result::SizingConfigRecord r;
      r.name = c.name;
      r.directory = config_directory(c, ++index);
      r.instances = c.instances;
      r.cpu_per_instance = c.cpu_per_instance;
      r.memory_per_instance_bytes = c.memory_per_instance_bytes;
      r.cores = c.cores;
      r.cores_basis = c.cores_basis;
      result_.configs.push_back(std::move(r));
    }
  }

  result::SizingResult& result() { return result_; }
  Experiment& experiment() { return experiment_; }

  void save() {
    result_.events = experiment_.events();
    write_sizing_directory(plan_.context.out_dir, result_);
  }

  // One configuration: apply, ready, its ladder.
  void config(size_t i) {
    const SizingConfig& c = plan_.configs[i];
    const int index = static_cast<int>(i) + 1;
    StepLabel label;
    label.file_prefix = fmt::format("{:02}-{}-", index, c.slug);
    label.where = " for configuration " + c.name;
    label.env = config_env(c, index);
    const fs::path dir = plan_.context.out_dir / result_.configs[i].directory;
    fs::create_directories(dir);
    const fs::path targets_file = dir / kTargetsFile;
    fs::remove(targets_file);  // only what this configuration's apply writes counts
    label.env.emplace_back("PROOFLOAD_TARGETS_FILE", targets_file.string());
    experiment_.step(label, [&] { return run_ladder_of(i, label.env, dir); });
  }

 private:
  bool run_ladder_of(size_t i, const std::vector<std::pair<std::string, std::string>>& env,
                     const fs::path& dir) {
    const SizingConfig& c = plan_.configs[i];
    result::SizingConfigRecord& record = result_.configs[i];
    LadderPlan ladder = plan_.ladder;
    ladder.context = ladder.context.within(plan_.context, dir);
    ladder.context.guards.hooks.restore.reset();  // the sizing's runs once, at the very end
    ladder.fail_if_none = false;
    ladder.fail_below_rps.reset();
    ladder.base_run.observe = config_observers(ladder.base_run.observe, c, env);
    ladder.settings.observe = ladder.base_run.observe;
    std::vector<std::string> written = targets_written(dir / kTargetsFile);
    if (!written.empty()) {
      ladder.base_run.target = written.front();
      ladder.base_run.target_from_scenario = false;
      ladder.base_run.more_targets.assign(written.begin() + 1, written.end());
    } else {
      ladder.base_run.target = substitute_config(ladder.base_run.target, env);
      for (std::string& t : ladder.base_run.more_targets) t = substitute_config(t, env);
    }
    ladder.source.target = ladder.base_run.target;
    record.targets = {ladder.base_run.target};
    record.targets.insert(record.targets.end(), ladder.base_run.more_targets.begin(),
                          ladder.base_run.more_targets.end());
    if (!plan_.context.quiet) std::fprintf(stderr, "sizing: configuration %s\n", c.name.c_str());
    LadderOutcome outcome;
    if (experiment_.stopping()) return false;  // a signal between the ready gate and the ladder
    try {
      outcome = run_ladder(ladder);
    } catch (const std::exception& e) {
      // Pre-flight after the apply: the configuration's service cannot be reached.
      record.status = "failed";
      record.end_reason = e.what();
      experiment_.ending().set(
          "failed", fmt::format("configuration {} could not start: {}", c.name, e.what()),
          kExitFailure);
      return false;
    }
    fill_config_figures(record, outcome.result, dir);
    if (outcome.exit_code == kExitInterrupted || experiment_.stopping()) {
      // The signal reached the ladder (it owned the signals): the sizing stops too.
      experiment_.stop_requested();
      experiment_.ending().set("interrupted", "interrupted by a signal in configuration " + c.name,
                               kExitInterrupted);
    } else if (outcome.exit_code == kExitFailure) {
      experiment_.ending().set(
          "failed", fmt::format("configuration {}: {}", c.name, outcome.result.end_reason),
          kExitFailure);
    }
    return true;
  }

  const SizingPlan& plan_;
  result::SizingResult result_;
  Experiment experiment_;
};

}  // namespace

SizingOutcome run_sizing(const SizingPlan& plan) {
  fs::create_directories(plan.context.out_dir);
  SizingRun run(plan);
  Ending& ending = run.experiment().ending();
  try {
    run.save();
    for (size_t i = 0; i < plan.configs.size() && !ending.ended(); ++i) {
      if (run.experiment().stopping()) {
        ending.set("interrupted", "interrupted by a signal", kExitInterrupted);
        break;
      }
      run.config(i);
    }
  } catch (const std::exception& e) {
    // A result file that cannot be written, a hook that cannot be started: restore still runs.
    ending.set("failed", e.what(), kExitFailure);
  }
  run.experiment().restore();
  if (!ending.ended()) ending.set("complete", "every configuration ran", kExitOk);
  result::SizingResult& result = run.result();
  result.status = ending.status;
  result.end_reason = ending.reason;
  result.finished_at = report::iso8601_utc(wall_clock_ns());
  run.save();
  int exit_code = ending.exit_code;
  const bool any_within = std::any_of(result.configs.begin(), result.configs.end(),
                                      [](const auto& c) { return c.best_sustained_rps; });
  if (plan.fail_if_none && !any_within && exit_code == kExitOk) exit_code = kExitThresholds;
  return {result, exit_code};
}

}  // namespace proofload::experiments
