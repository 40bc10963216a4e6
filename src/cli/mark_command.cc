// `proofload mark DIR "deleted one pod"`: tells a running soak that something happened now. The
// mark is appended to DIR/marks.log in one write (marks from several shells never interleave);
// the soak picks it up within a second and judges it from the windows around it.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/subcommand.h"
#include "common/clock.h"
#include "common/recorded_file.h"
#include "common/usage_error.h"
#include "experiments/soak_files.h"
#include "experiments/soak_record.h"

namespace proofload::cli {

Subcommand add_mark_command(CLI::App& parent) {
  auto directory = std::make_shared<std::string>();
  auto label = std::make_shared<std::string>();
  CLI::App* app = parent.add_subcommand(
      "mark",
      "Mark a moment in a running soak (a rollback, a deleted pod): judged from the "
      "windows around it");
  app->add_option("directory", *directory, "The running soak's directory")->required();
  app->add_option("label", *label, "What happened, e.g. \"deleted one pod\"")->required();
  return {app, [directory, label] {
            if (!experiments::is_soak_directory(*directory)) {
              throw UsageError(*directory + " is not a soak's directory (no " +
                               experiments::kSoakPlanJson + " in it)");
            }
            if (label->empty()) throw UsageError("the mark's label is empty");
            // A soak writes result.json only when it ends: a mark after that would judge nothing.
            if (RecordedFileStream in(std::filesystem::path(*directory) / "result.json"); in) {
              const nlohmann::json result = nlohmann::json::parse(in, nullptr, false);
              if (result.is_object() && result.value("status", "running") != "running") {
                std::fprintf(stderr,
                             "proofload: the soak in %s has ended; the mark was not "
                             "recorded\n",
                             directory->c_str());
                return kExitFailure;
              }
            }
            try {
              experiments::append_mark(*directory, "external", *label, wall_clock_ns());
            } catch (const std::runtime_error& e) {
              std::fprintf(stderr, "proofload: %s\n", e.what());
              return kExitFailure;
            }
            std::printf("mark: '%s' recorded in %s\n", label->c_str(), directory->c_str());
            return kExitOk;
          }};
}

}  // namespace proofload::cli
