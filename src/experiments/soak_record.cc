// See soak_record.h.
#include "experiments/soak_record.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "common/clock.h"
#include "common/recorded_file.h"
#include "report/atomic_file.h"
#include "report/html/pages.h"
#include "report/soak_report.h"
#include "result/recorded_json.h"
#include "result/run_record.h"
#include "words/soak_words.h"

namespace proofload::experiments {
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
  RecordedFileStream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::optional<result::RunRecord> finished_run(const fs::path& directory) {
  try {
    const nlohmann::json json = result::read_recorded_json((directory / "result.json").string());
    result::RunRecord run = result::run_from_json(json);
    if (run.status == "running") return std::nullopt;
    return run;
  } catch (const std::exception&) {
    return std::nullopt;  // the report says the server side was not recorded
  }
}

}  // namespace

void CanaryTally::add(const RecordedCanary& c) {
  const auto index = static_cast<int64_t>(std::floor(c.at_s / window_s_));
  auto& [right, wrong] = by_window_[index];
  ++(c.right ? right : wrong);
  ++totals_.total;
  totals_.right += c.right ? 1 : 0;
  totals_.retried += c.retried ? 1 : 0;
  totals_.retried_right = totals_.retried_right.value_or(0) + (c.retried && c.right ? 1 : 0);
  auto named = std::find_if(totals_.by_name.begin(), totals_.by_name.end(),
                            [&](const auto& n) { return n.name == c.name; });
  if (named == totals_.by_name.end()) {
    totals_.by_name.push_back({c.name, 0, 0, 0, ""});
    named = totals_.by_name.end() - 1;
  }
  ++named->total;
  named->right += c.right ? 1 : 0;
  named->retried += c.retried ? 1 : 0;
  if (!c.right && named->first_wrong.empty()) {
    named->first_wrong = fmt::format("at {:+.0f} s: {}", c.at_s, c.reason);
  }
}

std::pair<int64_t, int64_t> CanaryTally::of_window(int64_t index) const {
  const auto found = by_window_.find(index);
  return found == by_window_.end() ? std::pair<int64_t, int64_t>{0, 0} : found->second;
}

void complete_soak(result::SoakResult& r, std::vector<analyze::SoakWindowRow> rows,
                   const CanaryTally& canaries, const std::vector<analyze::Mark>& marks) {
  const analyze::SoakBar bar = analyze::parse_soak_bar(r.settings.bar);
  for (analyze::SoakWindowRow& row : rows) {
    std::tie(row.canaries_right, row.canaries_wrong) = canaries.of_window(row.index);
  }
  r.canaries = canaries.totals();

  r.ramp.clear();
  r.windows.clear();
  for (analyze::SoakWindowRow& row : rows) {
    words::judge_and_describe_window(bar, row);
    (row.ramp ? r.ramp : r.windows).push_back(std::move(row));
  }
  r.windows_missed = analyze::windows_missed(r.windows);

  result::SoakSummary& s = r.summary;
  s = {};
  std::vector<double> p50s, p95s, throughputs;
  for (const analyze::SoakWindowRow& w : r.windows) {
    s.requests += w.requests;
    s.errors += w.errors;
    s.status_429 += w.status_429;
    s.held_s += w.duration_s;
    if (w.p50_ms) p50s.push_back(*w.p50_ms);
    if (w.p95_ms) p95s.push_back(*w.p95_ms);
    throughputs.push_back(w.throughput_rps);
  }
  s.p50_median_ms = analyze::median_of(p50s);
  s.p95_median_ms = analyze::median_of(p95s);
  if (!p95s.empty()) {
    s.p95_min_ms = *std::min_element(p95s.begin(), p95s.end());
    s.p95_max_ms = *std::max_element(p95s.begin(), p95s.end());
  }
  s.throughput_median_rps = analyze::median_of(throughputs);
  if (!throughputs.empty())
    s.throughput_min_rps = *std::min_element(throughputs.begin(), throughputs.end());

  analyze::DriftRule rule;
  rule.block_s = r.settings.drift_block_s.value_or(0);
  rule.stated_noise_ms = r.settings.drift_noise_ms;
  rule.floor_share = r.settings.drift_floor_share;
  rule.floor_ms = r.settings.drift_floor_ms;
  rule.fails = r.settings.drift_fails == "any" ? analyze::DriftFails::kAny : analyze::DriftFails::kRise;
  r.drift = words::described_drift(r.windows, rule);
  r.slowest = analyze::slowest_of(r.windows);
  r.marks.clear();
  for (const analyze::Mark& mark : marks) {
    r.marks.push_back(words::described_mark(r.windows, mark, r.settings.mark_window_s));
  }
}

std::vector<analyze::Mark> marks_from_log(const std::vector<LoggedMark>& logged,
                                          const result::SoakResult& r) {
  std::vector<analyze::Mark> marks;
  for (const LoggedMark& l : logged) {
    analyze::Mark mark;
    mark.label = l.label;
    mark.source = l.source;
    mark.at_s = seconds_of(l.wall_ns - r.hold_start_unix_ns);
    if (l.source == "scheduled") {
      for (const result::ScheduledMark& s : r.settings.marks) {
        if (s.label == l.label && !s.command.empty()) mark.command = s.command;
      }
    }
    marks.push_back(std::move(mark));
  }
  return marks;
}

void add_recorded_canaries(const fs::path& directory, CanaryTally& tally) {
  if (!fs::exists(directory / kCanariesCsv)) return;
  for (const RecordedCanary& c : parse_canaries_csv(read_text(directory / kCanariesCsv))) {
    tally.add(c);
  }
}

std::vector<LoggedMark> read_marks_log(const fs::path& directory) {
  if (!fs::exists(directory / kMarksLog)) return {};
  size_t offset = 0;
  return read_marks(read_text(directory / kMarksLog), offset);
}

bool soak_held(const result::SoakResult& r) {
  const bool mark_failed = std::any_of(r.marks.begin(), r.marks.end(),
                                       [](const auto& m) { return m.verdict == "FAIL"; });
  return r.windows_missed == 0 && !mark_failed && !r.drift.fails;
}

bool is_soak_directory(const fs::path& directory) { return fs::exists(directory / kSoakPlanJson); }

result::SoakResult read_or_rebuild_soak(const fs::path& directory) {
  if (fs::exists(directory / "result.json")) {
    result::SoakResult r =
        result::soak_from_json(result::read_recorded_json((directory / "result.json").string()));
    if (r.status != "running") return r;
  }
  result::SoakResult r =
      result::soak_from_json(result::read_recorded_json((directory / kSoakPlanJson).string()));
  std::vector<analyze::SoakWindowRow> rows;
  if (fs::exists(directory / kSoakWindowsCsv))
    rows = parse_soak_windows_csv(read_text(directory / kSoakWindowsCsv));
  CanaryTally canaries(r.settings.window_s);
  add_recorded_canaries(directory, canaries);
  const std::vector<LoggedMark> logged = read_marks_log(directory);
  r.status = "interrupted";
  r.end_reason =
      "the soak ended without writing its result (killed?); rebuilt from windows.csv, "
      "canaries.csv and marks.log";
  r.rebuilt = true;
  complete_soak(r, std::move(rows), canaries, marks_from_log(logged, r));
  return r;
}

void write_soak_directory(const fs::path& directory, const result::SoakResult& r) {
  fs::create_directories(directory);
  report::write_file_atomically(directory / "result.json", result::soak_to_json(r).dump(2) + "\n");
  std::string csv = soak_windows_csv_header() + "\n";
  for (const auto* rows : {&r.ramp, &r.windows}) {
    for (const analyze::SoakWindowRow& row : *rows) csv += soak_windows_csv_line(row) + "\n";
  }
  report::write_file_atomically(directory / kSoakWindowsCsv, csv);
  const std::string summary =
      report::render_soak_summary(r, finished_run(directory / r.run_directory));
  report::write_file_atomically(directory / "summary.md", summary);
  report::write_file_atomically(directory / report::html::kReportHtml,
                                report::html::render_soak_html(r, summary));
}

std::pair<int64_t, std::string> observer_gaps(
    const std::vector<report::ObservedFigures>& observed) {
  int64_t gaps = 0;
  std::string reason;
  for (const report::ObservedFigures& o : observed) {
    gaps += o.gaps;
    if (o.gaps > 0 && reason.empty()) reason = o.source + ": " + o.last_error;
  }
  return {gaps, reason};
}

void track_server_memory(std::vector<result::ServerMemory>& server,
                       const std::vector<report::ObservedFigures>& observed) {
  for (const report::ObservedFigures& o : observed) {
    // The generator and the host are not the server (a merge labels them self_s0, host_s0).
    if (o.source == "self" || o.source == "host") continue;
    for (const auto& figure : o.figures) {
      // (not a structured binding: clang before 16 cannot capture one in the lambda below)
      const std::string& name = figure.first;
      const double value = figure.second;
      const bool memory = name.starts_with("memory_bytes") || name.starts_with("rss_bytes");
      if (!memory || name.ends_with("_peak")) continue;
      const double peak = o.value(name + "_peak").value_or(value);
      auto found = std::find_if(server.begin(), server.end(), [&](auto& m) {
        return m.source == o.source && m.figure == name;
      });
      if (found == server.end()) {
        server.push_back({o.source, name, value, value, peak});
        continue;
      }
      found->last_bytes = value;
      found->peak_bytes = std::max(found->peak_bytes, peak);
    }
  }
}


}  // namespace proofload::experiments
