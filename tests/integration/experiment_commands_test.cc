// Every experiment the registry knows (registry/experiment_kinds.h) is a command of the binary,
// and the command takes --segment exactly when the registry says so: `k8s job` and `merge` read
// that entry, so a command that differed would be split by one and refused by the other.
#include <gtest/gtest.h>

#include "process.h"
#include "registry/experiment_kinds.h"

namespace proofload::testing {
namespace {

TEST(ExperimentCommands, EachKindHasItsCommandAndItTakesSegmentsAsTheRegistrySays) {
  ASSERT_EQ(registry::experiment_kinds().size(), 6u);
  for (const registry::ExperimentKind& kind : registry::experiment_kinds()) {
    SCOPED_TRACE(kind.name);
    const Completed help = run_to_completion({proofload_binary(), kind.name, "--help"});
    ASSERT_EQ(help.exit_code, 0) << help.err;
    EXPECT_NE(help.out.find("Usage: proofload " + std::string(kind.name)), std::string::npos)
        << help.out;
    EXPECT_EQ(help.out.find("--segment ") != std::string::npos, kind.takes_segment) << help.out;
  }
}

}  // namespace
}  // namespace proofload::testing
