// See sizing_record.h.
#include "experiments/sizing_record.h"

#include <algorithm>

#include "common/recorded_file.h"
#include "report/atomic_file.h"
#include "report/html/pages.h"
#include "report/run_report.h"
#include "report/sizing_report.h"
#include "result/recorded_json.h"
#include "result/run_record.h"

namespace proofload::experiments {
namespace {

namespace fs = std::filesystem;

void keep_max(std::optional<double>& into, std::optional<double> value) {
  if (value && (!into || *value > *into)) into = value;
}

// The most memory the server's observers saw in one level's run; nothing when it cannot be read.
std::optional<double> memory_peak_of_run(const fs::path& run_dir) {
  std::optional<double> peak;
  try {
    RecordedFileStream in(run_dir / "result.json");
    if (!in) return std::nullopt;
    const result::RunRecord run = result::run_from_json(report::parse_result_for_summary(in));
    for (const result::SourceRecord& s : run.sources) {
      if (s.is_generator() || s.is_host()) continue;
      keep_max(peak, s.value("memory_peak_bytes_peak"));
      keep_max(peak, s.value("rss_bytes_peak"));
    }
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged level file: its memory is not known
  }
  return peak;
}

}  // namespace

void fill_config_figures(result::SizingConfigRecord& c, const result::LadderResult& ladder,
                         const fs::path& ladder_dir) {
  c.status = ladder.status;
  c.end_reason = ladder.end_reason;
  c.best_sustained_rps.reset();
  c.best_level.reset();
  c.per_core_rps.reset();
  c.peak_rps.reset();
  c.knee_level.reset();
  c.throttled_share.reset();
  c.server_cores_max.reset();
  c.best_p95_ms.reset();
  c.cpu_instances_observed.reset();
  c.host_saturated = false;
  c.memory_peak_bytes.reset();
  c.generator_busy = false;
  c.noise_floor.reset();
  c.noise_floor_source.clear();
  if (ladder.analysis) {
    const analyze::LadderAnalysis& a = *ladder.analysis;
    if (a.best_sustained) {
      c.best_sustained_rps = a.levels[*a.best_sustained].goodput_rps;
      c.best_level = a.levels[*a.best_sustained].level;
      c.best_p95_ms = a.levels[*a.best_sustained].p95_ms;
      if (c.cores && *c.cores > 0) c.per_core_rps = *c.best_sustained_rps / *c.cores;
    }
    if (a.peak) c.peak_rps = a.levels[*a.peak].goodput_rps;
    if (a.knee) c.knee_level = a.levels[*a.knee].level;
    for (const analyze::LevelAnalysis& l : a.levels) {
      keep_max(c.throttled_share, l.server_throttled_share);
      keep_max(c.server_cores_max, l.server_cores);
      if (l.server_cores) {
        const auto observed = static_cast<int64_t>(
            analyze::server_cpu_sources(l.server_cpu_source).size());
        c.cpu_instances_observed = std::max(c.cpu_instances_observed.value_or(0), observed);
      }
      c.host_saturated = c.host_saturated || analyze::host_saturated(l.host_cpu_busy);
      c.generator_busy = c.generator_busy || l.generator_busy;
    }
    c.noise_floor = a.noise_floor.value;
    c.noise_floor_source = std::string(analyze::noise_floor_source_text(a.noise_floor.source));
  }
  for (const result::LadderRow& row : ladder.rows) {
    if (!row.directory.empty()) {
      keep_max(c.memory_peak_bytes, memory_peak_of_run(ladder_dir / row.directory));
    }
  }
}

void refresh_config_figures(const fs::path& directory, result::SizingResult& sizing) {
  for (result::SizingConfigRecord& c : sizing.configs) {
    if (c.directory.empty()) continue;
    const fs::path ladder_dir = directory / c.directory;
    if (!fs::exists(fs::symlink_status(ladder_dir / "result.json"))) continue;
    try {
      const nlohmann::json recorded =
          result::read_recorded_json((ladder_dir / "result.json").string());
      fill_config_figures(c, result::ladder_from_json(recorded), ladder_dir);
    } catch (const std::runtime_error&) {
      // A ladder file that does not read keeps the figures the sizing recorded.
    }
  }
}

void write_sizing_directory(const fs::path& directory, const result::SizingResult& sizing) {
  report::write_file_atomically(directory / "result.json",
                                result::sizing_to_json(sizing).dump(2) + "\n");
  const std::string summary = report::render_sizing_summary(sizing);
  report::write_file_atomically(directory / "summary.md", summary);
  report::write_file_atomically(directory / report::html::kReportHtml,
                                report::html::render_sizing_html(sizing, summary));
}

}  // namespace proofload::experiments
