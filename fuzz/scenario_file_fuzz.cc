// A scenario file as `run FILE.yaml` takes it: parsed (YAML, every section, templates, checks,
// thresholds) and, when valid, compiled to the workload the engine runs (data pools, RE2
// patterns, JSON bodies). A bad file must be one UsageError, never a crash, a hang or a blow-up
// of memory (YAML aliases, deep nesting, huge counts). The same bytes are read as a compare
// matrix too (`compare MATRIX.yaml`), whose checks are a scenario's requests under another key.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/usage_error.h"
#include "experiments/compare_matrix.h"
#include "http/url.h"
#include "workload/scenario_yaml.h"
#include "workload/secrets.h"
#include "workload/workload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    // Data and secret files are taken from a directory that does not exist: a file the input
    // names by an absolute path is still read, bounded as always.
    const proofload::workload::Scenario scenario =
        proofload::workload::parse_scenario_yaml(text, "fuzz.yaml", "/nonexistent-fuzz-dir");
    proofload::workload::SecretStore secrets(
        [](const std::string&) -> std::optional<std::string> { return "fuzz-secret"; });
    proofload::workload::Workload::compile(
        scenario, proofload::http::parse_url("http://127.0.0.1:1/"), secrets, 1);
  } catch (const proofload::UsageError&) {
    // the one way a file may be refused
  }
  try {
    proofload::experiments::parse_compare_matrix(text, "fuzz.yaml", "/nonexistent-fuzz-dir");
  } catch (const proofload::UsageError&) {
  }
  return 0;
}
