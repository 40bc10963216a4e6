// See probe_record.h.
#include "experiments/probe_record.h"

#include <algorithm>

#include "common/recorded_file.h"
#include "common/usage_error.h"
#include "report/atomic_file.h"
#include "report/html/pages.h"
#include "report/probe_report.h"

namespace proofload::experiments {
namespace fs = std::filesystem;

namespace {

// A probe's files are small (a line per source per second); anything past this is not one.
constexpr int64_t kMaxProbeFileBytes = int64_t{256} << 20;

std::string read_probe_file(const fs::path& path) {
  RecordedFileStream in(path, kMaxProbeFileBytes);
  if (!in) throw UsageError("cannot read probe file '" + path.string() + "': no such file");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

fs::path probe_csv_path(const fs::path& directory, const std::string& address) {
  std::string name = address;
  std::replace(name.begin(), name.end(), ':', '_');
  return directory / kProbeSourcesDir / (name + ".csv");
}

void complete_probe(result::ProbeResult& r) { result::judge_probe(r); }

bool probe_held(const result::ProbeResult& r) {
  const analyze::ProbeAnalysis& a = r.analysis;
  const bool expect_missed = std::any_of(a.sources.begin(), a.sources.end(), [](const auto& s) {
    return s.expect_met.has_value() && !*s.expect_met;
  });
  const bool lifted = std::any_of(r.variants.begin(), r.variants.end(),
                                  [](const auto& v) { return v.verdict != "held"; });
  // A segment's sources are compared with the others' in the merge: the verdict is the merge's.
  const bool compared = !r.segment;
  return !(compared && a.verdict != analyze::kSeparateAllowances) && !expect_missed && !lifted;
}

bool is_probe_directory(const fs::path& directory) {
  return fs::exists(directory / kProbePlanJson);
}

result::ProbeResult read_or_rebuild_probe(const fs::path& directory) {
  if (fs::exists(directory / "result.json")) {
    result::ProbeResult r =
        result::probe_from_json(nlohmann::json::parse(read_probe_file(directory / "result.json")));
    if (r.status != "running") return r;
  }
  result::ProbeResult r =
      result::probe_from_json(nlohmann::json::parse(read_probe_file(directory / kProbePlanJson)));
  r.series.clear();
  r.variants.clear();
  for (const std::string& address : r.settings.sources) {
    analyze::ProbeSourceSeries series;
    series.address = address;
    const fs::path csv = probe_csv_path(directory, address);
    if (fs::exists(csv)) {
      report::parse_probe_csv(read_probe_file(csv), series);
    } else {
      series.failure = "nothing was recorded for it (" + csv.filename().string() + " is missing)";
    }
    r.series.push_back(std::move(series));
  }
  int64_t seconds = 0;
  for (const analyze::ProbeSourceSeries& series : r.series) {
    if (!series.per_second.empty()) {
      seconds = std::max(seconds, series.per_second.back().second + 1);
    }
  }
  r.measured_s = std::min(r.settings.duration_s, static_cast<double>(seconds));
  r.status = "interrupted";
  r.end_reason =
      "the probe ended without writing its result (killed?); rebuilt from the sources' "
      "per-second CSVs";
  r.rebuilt = true;
  complete_probe(r);
  return r;
}

void write_probe_directory(const fs::path& directory, const result::ProbeResult& r) {
  fs::create_directories(directory / kProbeSourcesDir);
  report::write_file_atomically(directory / "result.json",
                                result::probe_to_json(r).dump(2) + "\n");
  for (const analyze::ProbeSourceSeries& series : r.series) {
    report::write_file_atomically(probe_csv_path(directory, series.address),
                                  report::render_probe_csv(series));
  }
  const std::string summary = report::render_probe_summary(r);
  report::write_file_atomically(directory / "summary.md", summary);
  report::write_file_atomically(directory / report::html::kReportHtml,
                                report::html::render_probe_html(r, summary));
}

}  // namespace proofload::experiments
