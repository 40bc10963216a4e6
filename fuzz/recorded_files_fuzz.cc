// What `report`, `export` and `merge` read back from a result directory that may come from
// anywhere, as files on disk: the input is (1) a pending-windows journal beside a result.json
// that names it, put in by complete_pending_windows: either result.json then parses, windows
// included, or it is left byte for byte as it was and the journal kept; (2) a segment.jsonl read
// through SegmentFileReader to its end (NUL bytes, long lines, torn lines); (3) a result.json
// parsed with the recorded-file bounds and exported as OpenMetrics a window at a time. Every
// failure is one exception, never a crash, a hang or an unbounded allocation.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>

#include "experiments/segment_file.h"
#include "report/openmetrics_export.h"
#include "report/result_directory.h"
#include "report/run_report.h"

namespace {

namespace fs = std::filesystem;
using namespace proofload;

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_all(const fs::path& path, std::string_view bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), bytes.size());
}

const fs::path& work_directory() {
  static const fs::path dir = [] {
    const char* base = std::getenv("TMPDIR");
    fs::path d = fs::path(base ? base : "/tmp") /
                 ("proofload-recorded-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

void pending_journal(std::string_view journal) {
  const fs::path& dir = work_directory();
  const std::string before =
      R"({"schema": "proofload.result/v1", "status": "complete", "windows": [],)"
      R"( "pending_windows": {"journal": ".windows.jsonl", "reason": "fuzz"}})";
  write_all(dir / "result.json", before);
  write_all(dir / ".windows.jsonl", journal);
  bool put_in = false;
  try {
    put_in = report::complete_pending_windows(dir);
  } catch (const std::exception&) {
  }
  const std::string after = read_all(dir / "result.json");
  if (!put_in) {
    if (after != before || !fs::exists(dir / ".windows.jsonl")) std::abort();  // lost or changed
    return;
  }
  const nlohmann::json parsed = nlohmann::json::parse(after, nullptr, false);
  if (parsed.is_discarded() || !parsed["windows"].is_array()) std::abort();  // replaced by junk
}

void segment_file(std::string_view bytes) {
  const fs::path& dir = work_directory();
  write_all(dir / experiments::kSegmentFile, bytes);
  try {
    experiments::SegmentFileReader reader(dir);
    while (reader.next()) {
    }
  } catch (const std::exception&) {
  }
}

void result_json(std::string_view bytes) {
  try {
    std::istringstream in{std::string(bytes)};
    report::parse_result_for_summary(in);
  } catch (const std::exception&) {
  }
  try {
    std::istringstream in{std::string(bytes)};
    report::write_run_openmetrics(in, [](std::string_view) {});
  } catch (const std::exception&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  pending_journal(input);
  segment_file(input);
  result_json(input);
  return 0;
}
