// Every setting of a run, declared once (the table of run_settings*.cc): its flag and the older
// spellings it still takes, its help with its default, how its text is read into a RunSpec, its
// check, its key in result.json's spec and its form in the Reproduce command. The CLI adds each
// command's flags from this table (cli/run_command.cc), plan_run checks and records through it, and
// run_command_text writes the command back from it, so a new setting is one entry here, its field
// (in RunSpec, or in engine::SendOptions when the engine reads it as given) and its use.
// Settings that several flags make together (the target and the scenario, the load's shape,
// TLS, streams) are read by their entries too; what only their combination forbids is plan_run's.
// Configuration time only; throws UsageError with one clear line.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/load_spec.h"
#include "http/request.h"
#include "plan/run_spec.h"
#include "result/spec_record.h"

namespace proofload::plan {

// What the flag takes: one value, a value each time it is given (repeatable), or nothing.
enum class SettingTakes : uint8_t { kText, kWholeNumber, kTexts, kSwitch };

// Which commands take the setting.
enum class SettingScope : uint8_t {
  kEveryLoad,  // every command that sends load: the request, the pool, observers, TLS, streams
  kRunShape,   // `run` only: an experiment sets the load's shape and length itself
  kSegment,    // the commands a load can be split for (run, ladder, soak, probe)
};

// The texts of the flags a command line gave, by setting name (a switch: {"true"}).
using SettingTexts = std::map<std::string, std::vector<std::string>, std::less<>>;

// The `proofload run` command being written back (run_command_text).
class CommandArgs {
 public:
  void option(std::string_view flag, const std::string& value);  // ` --flag 'value'`
  void flag(std::string_view flag);                              // ` --flag`
  void raw(const std::string& text);                             // as it is, after a space
  const std::string& text() const { return text_; }
  // The sensitive values shown as variables so far (plan/redaction.h).
  std::vector<std::string>& variables() { return variables_; }

 private:
  std::string text_;
  std::vector<std::string> variables_;
};

// What a setting's plan step may add to as plan_run builds the run: the request before it is
// compiled, and result.json's spec.
struct Planning {
  http::RequestSpec& request;
  result::SpecRecord& recorded;
};

struct RunSetting {
  std::string_view name;   // the long flag without its dashes: the key of SettingTexts
  std::string_view flags;  // CLI11's names for it: "-n,--requests"
  SettingTakes takes;
  SettingScope scope;
  std::string_view help;
  std::string_view group;         // help's group ("" for the command's own list)
  std::string_view default_text;  // "(default X)" in help; read, it gives RunSpec{}'s value
  std::string_view aliases;       // older spellings, still taken, not shown: "--hold"
  // `read` is called with no texts when the flag is not given: an environment variable stands in
  // for it (--io's PROOFLOAD_IO).
  bool read_when_absent = false;
  // The texts given, into the spec. Throws UsageError.
  void (*read)(const std::vector<std::string>& texts, RunSpec& spec) = nullptr;
  // Refuses what no run may have (plan_run runs every one before its own checks); may be null.
  void (*check)(const RunSpec& spec) = nullptr;
  // Its arguments in the Reproduce command, nothing at its default; may be null.
  void (*reproduce)(const RunSpec& spec, CommandArgs& args) = nullptr;
  // What it adds to the request and the recorded spec as the run is planned; may be null.
  void (*plan)(const RunSpec& spec, Planning& planning) = nullptr;
};

// --sources: local addresses separated by commas ("127.0.0.2,127.0.0.3"), or a count N for N
// loopback addresses from 127.0.0.2 on (N from 1 to kMaxSources). Whether each is an address of
// this machine shows at pre-flight.
std::vector<std::string> read_sources(const std::string& text);

// --segment "I/N" with I from 0 to N-1 (so that a Kubernetes Job's $JOB_COMPLETION_INDEX is
// passed as it is); the range against N is check_segment's.
void read_segment(const std::string& text, int& index, int& count);

// --start-at: an RFC 3339 time ("2026-12-03T10:00:00Z", "...+01:00") or "+DURATION" from
// `now_wall_ns` ("+30s"), as Unix ns. A time more than a day past or a year ahead is a mistake.
int64_t read_start_at(const std::string& text, int64_t now_wall_ns);

// Every setting, in the order the Reproduce command writes them.
std::span<const RunSetting> run_settings();
const RunSetting* find_run_setting(std::string_view name);

// The texts into `spec`, setting by setting in the table's order. Throws UsageError.
void read_settings(const SettingTexts& texts, RunSpec& spec);

// Every setting's own check (plan_run's first step; the commands' too, as they read their flags).
void check_settings(const RunSpec& spec);

// Every setting's plan step.
void plan_settings(const RunSpec& spec, Planning& planning);

}  // namespace proofload::plan
