// See merge_experiments.h.
#include "merge/merge_experiments.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "common/recorded_file.h"
#include "common/usage_error.h"
#include "experiments/probe_record.h"
#include "experiments/soak_record.h"
#include "experiments/soak_windows.h"
#include "merge/merge_run.h"
#include "report/result_json.h"
#include "report/run_report.h"
#include "result/spec_record.h"

namespace proofload::merge {
namespace {

namespace fs = std::filesystem;

// The status and reason of the least finished segment, for the merge.
template <typename Record>
void worst_ending(const std::vector<std::pair<fs::path, Record>>& segments, Record& merged) {
  const auto& worst =
      *std::max_element(segments.begin(), segments.end(), [](const auto& a, const auto& b) {
        return ending_severity(a.second.status) < ending_severity(b.second.status);
      });
  merged.status = worst.second.status == "running" ? "interrupted" : worst.second.status;
  if (worst.second.status != "complete") {
    merged.end_reason =
        fmt::format("segment {}: {}", worst.second.segment->index, worst.second.end_reason);
  }
}

template <typename Record>
result::MergeRecord record_of(const std::vector<std::pair<fs::path, Record>>& segments) {
  std::vector<std::pair<fs::path, result::SegmentRecord>> given;
  for (const auto& [directory, r] : segments) given.emplace_back(directory, *r.segment);
  return segments_record(given);
}

// --goodput of the soak's run: its windows then keep the streams' goodput share.
bool judged_by_goodput(const fs::path& run_directory) {
  RecordedFileStream in(run_directory / "result.json");
  if (!in) return false;
  const nlohmann::json run = report::parse_result_for_summary(in);
  if (!run.is_object() || !run.contains("spec") || !run["spec"].is_object()) return false;
  try {
    return !result::spec_from_json(run["spec"], "run result.json").goodput_slo().empty();
  } catch (const std::runtime_error&) {
    return false;  // a spec it cannot read names no --goodput
  }
}

}  // namespace

result::MergeRecord merge_soaks(const std::vector<fs::path>& directories, const fs::path& out) {
  std::vector<std::pair<fs::path, result::SoakResult>> segments;
  for (const fs::path& d : directories) {
    result::SoakResult soak;
    try {
      soak = experiments::read_or_rebuild_soak(d);
    } catch (const std::exception& e) {
      throw UsageError(d.string() + " does not hold a soak's recorded data: " + e.what());
    }
    if (!soak.segment) throw UsageError(d.string() + " is not a segment's soak (--segment I/N)");
    segments.emplace_back(d, std::move(soak));
  }
  const result::SoakResult& first = segments.front().second;
  for (const auto& [directory, s] : segments) {
    if (s.settings.hold_s != first.settings.hold_s ||
        s.settings.window_s != first.settings.window_s || s.settings.bar != first.settings.bar ||
        s.settings.ramp_s != first.settings.ramp_s || s.source.target != first.source.target) {
      throw UsageError(directory.string() + " is a segment of another soak than " +
                       segments.front().first.string() +
                       " (its hold, windows, ramp, bar or target differ)");
    }
  }
  result::MergeRecord record = record_of(segments);

  // The run, merged, with its 1 s windows folded into the soak's as the soak itself does.
  result::SoakResult merged = first;
  merged.segment.reset();
  merged.server.clear();
  merged.hold_start_unix_ns = first.hold_start_unix_ns;
  experiments::SoakWindowFolder folder(
      static_cast<int64_t>(first.settings.window_s * 1e9),
      static_cast<int64_t>(first.settings.ramp_s * 1e9),
      judged_by_goodput(within(segments.front().first, first.run_directory)));
  std::vector<analyze::SoakWindowRow> rows;
  std::vector<fs::path> runs;
  for (const auto& [directory, s] : segments) {
    runs.push_back(within(directory, s.run_directory));
    merged.hold_start_unix_ns = std::min(merged.hold_start_unix_ns, s.hold_start_unix_ns);
  }
  const report::RunResult run = merge_runs(
      runs, within(out, first.run_directory),
      [&](const measure::WindowStats& w, const std::vector<report::ObservedFigures>& observed) {
        const auto [gaps, reason] = experiments::observer_gaps(observed);
        if (auto row = folder.add(w, gaps, reason)) rows.push_back(std::move(*row));
        experiments::track_server_memory(merged.server, observed);
      });
  if (auto row = folder.finish()) rows.push_back(std::move(*row));
  // A segment killed before its run's end is missing from the run: from the soak too.
  for (const result::MissingSegment& m : run.merged->missing) {
    if (std::none_of(record.missing.begin(), record.missing.end(),
                     [&](const result::MissingSegment& r) { return r.index == m.index; })) {
      record.missing.push_back(m);
      std::erase_if(record.segments, [&](const auto& s) { return s.index == m.index; });
    }
  }
  std::sort(record.missing.begin(), record.missing.end(),
            [](const auto& a, const auto& b) { return a.index < b.index; });
  auto left_out = [&](const result::SoakResult& s) {
    return std::any_of(
        record.missing.begin(), record.missing.end(),
        [&](const result::MissingSegment& m) { return m.index == s.segment->index; });
  };

  // Every segment's canaries; each mark once (a scheduled mark is logged by every segment).
  experiments::CanaryTally canaries(first.settings.window_s);
  std::vector<analyze::Mark> marks;
  std::set<std::pair<std::string, std::string>> marked;
  for (const auto& [directory, s] : segments) {
    if (left_out(s)) continue;  // its load is not in the merge: nor are its canaries
    experiments::add_recorded_canaries(directory, canaries);
    for (analyze::Mark& mark :
         experiments::marks_from_log(experiments::read_marks_log(directory), merged)) {
      if (marked.insert({mark.source, mark.label}).second) marks.push_back(std::move(mark));
    }
  }
  worst_ending(segments, merged);
  merged.command_line = merged_command(first.command_line, record.count);
  merged.merged = record;
  experiments::complete_soak(merged, std::move(rows), canaries, marks);
  experiments::write_soak_directory(out, merged);
  return record;
}

result::MergeRecord merge_probes(const std::vector<fs::path>& directories, const fs::path& out) {
  std::vector<std::pair<fs::path, result::ProbeResult>> segments;
  for (const fs::path& d : directories) {
    result::ProbeResult probe;
    try {
      probe = experiments::read_or_rebuild_probe(d);
    } catch (const std::exception& e) {
      throw UsageError(d.string() + " does not hold a probe's recorded data: " + e.what());
    }
    if (!probe.segment) throw UsageError(d.string() + " is not a segment's probe (--segment I/N)");
    segments.emplace_back(d, std::move(probe));
  }
  std::sort(segments.begin(), segments.end(), [](const auto& a, const auto& b) {
    return a.second.segment->index < b.second.segment->index;
  });
  const result::ProbeResult& first = segments.front().second;
  for (const auto& [directory, p] : segments) {
    const result::ProbeSettings& s = p.settings;
    if (s.duration_s != first.settings.duration_s ||
        s.rate_per_source != first.settings.rate_per_source ||
        s.connections_per_source != first.settings.connections_per_source ||
        s.expect != first.settings.expect || p.source.target != first.source.target) {
      throw UsageError(directory.string() + " is a segment of another probe than " +
                       segments.front().first.string() +
                       " (its length, rate, connections, expectation or target differ)");
    }
  }
  const result::MergeRecord record = record_of(segments);

  // Each segment's sources in their places in the whole list: source k of segment s is s + N*k.
  struct Placed {
    size_t whole_index;
    const analyze::ProbeSourceSeries* series;
  };
  std::vector<Placed> placed;
  for (const auto& [directory, p] : segments) {
    for (size_t k = 0; k < p.series.size(); ++k) {
      placed.push_back(
          {static_cast<size_t>(p.segment->index) + static_cast<size_t>(record.count) * k,
           &p.series[k]});
    }
  }
  std::sort(placed.begin(), placed.end(),
            [](const Placed& a, const Placed& b) { return a.whole_index < b.whole_index; });
  result::ProbeResult merged = first;
  merged.segment.reset();
  merged.series.clear();
  merged.settings.sources.clear();
  for (const Placed& p : placed) {
    merged.series.push_back(*p.series);
    merged.settings.sources.push_back(p.series->address);
  }
  for (const auto& [directory, p] : segments) {
    merged.measured_s = std::max(merged.measured_s, p.measured_s);
  }
  // The variants ran on segment 0 only: its, or none when it is missing.
  if (first.segment->index != 0) merged.variants.clear();
  merged.run_directory =
      fs::relative(within(segments.front().first, first.run_directory), out).string();
  worst_ending(segments, merged);
  merged.command_line = merged_command(first.command_line, record.count);
  merged.merged = record;
  experiments::complete_probe(merged);
  experiments::write_probe_directory(out, merged);
  return record;
}

}  // namespace proofload::merge
