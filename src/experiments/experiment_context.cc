// See experiment_context.h.
#include "experiments/experiment_context.h"

#include "common/clock.h"
#include "report/numbers.h"

namespace proofload::experiments {

ExperimentContext ExperimentContext::within(const ExperimentContext& outer,
                                            std::filesystem::path dir) const {
  ExperimentContext part = *this;
  part.out_dir = std::move(dir);
  part.quiet = outer.quiet;
  part.command_line = outer.command_line;
  part.started_at = now();
  part.live = outer.live;
  return part;
}

const char* ExperimentContext::proofload_version() { return PROOFLOAD_VERSION; }

std::string ExperimentContext::now() { return report::iso8601_utc(wall_clock_ns()); }

}  // namespace proofload::experiments
