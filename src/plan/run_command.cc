// See plan_run.h: a RunSpec written back as the `proofload run` command that repeats it, setting by
// setting (run_settings.h). A ladder's level records it as its own command, so its Reproduce is
// that level's run.
#include "common/text.h"
#include "plan/plan_run.h"
#include "plan/redaction.h"
#include "plan/run_settings.h"

namespace proofload::plan {

std::string run_command_text(const RunSpec& spec, std::optional<uint64_t> seed) {
  CommandArgs args;
  if (spec.scenario) args.raw(shell_quote(spec.scenario->file));
  if (!spec.target_from_scenario) args.raw(shell_quote(spec.target));
  RunSpec shown = spec;
  shown.seed = seed;  // the seed it drew with, not only one that was given
  for (const RunSetting& setting : run_settings()) {
    if (setting.reproduce != nullptr) setting.reproduce(shown, args);
  }
  return "proofload run" + args.text() + sensitive_variables_note(args.variables());
}

}  // namespace proofload::plan
