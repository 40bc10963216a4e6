// See merge_run.h.
#include "merge/merge_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>

#include "common/clock.h"
#include "common/recorded_file.h"
#include "common/usage_error.h"
#include "experiments/observation.h"
#include "experiments/segment_file.h"
#include "experiments/thresholds.h"
#include "plan/segment.h"
#include "report/result_directory.h"
#include "report/run_report.h"
#include "result/recorded_json.h"
#include "result/spec_record.h"

namespace proofload::merge {
namespace {

namespace fs = std::filesystem;
using experiments::ObservedSource;
using experiments::SegmentFileReader;
using experiments::SegmentWindow;

// Whether two recorded specs agree on a field (absent and null alike: neither recorded it).
template <auto Member>
bool same_field(const result::SpecRecord& a, const result::SpecRecord& b) {
  return (a.*Member).get() == (b.*Member).get();
}

// The fields of a recorded spec that say what load the whole run was: every segment must agree
// on them (a segment's own workers, address, index and start may differ: starts are compared as
// they happened, by wall clock).
struct LoadKey {
  const char* key;  // as result.json names it
  bool (*same)(const result::SpecRecord&, const result::SpecRecord&);
};
using result::SpecRecord;
constexpr LoadKey kLoadKeys[] = {{"target", same_field<&SpecRecord::target>},
                                 {"targets", same_field<&SpecRecord::targets>},
                                 {"executor", same_field<&SpecRecord::executor>},
                                 {"connections", same_field<&SpecRecord::connections>},
                                 {"max_connections", same_field<&SpecRecord::max_connections>},
                                 {"rate_per_s", same_field<&SpecRecord::rate_per_s>},
                                 {"stages", same_field<&SpecRecord::stages>},
                                 {"duration_s", same_field<&SpecRecord::duration_s>},
                                 {"warmup_s", same_field<&SpecRecord::warmup_s>},
                                 {"requests_limit", same_field<&SpecRecord::requests_limit>},
                                 {"protocol", same_field<&SpecRecord::protocol>},
                                 {"h2_streams", same_field<&SpecRecord::h2_streams>},
                                 {"method", same_field<&SpecRecord::method>},
                                 {"scenario", same_field<&SpecRecord::scenario>},
                                 {"window_s", same_field<&SpecRecord::window_s>},
                                 {"sources", same_field<&SpecRecord::sources>},
                                 {"stream", same_field<&SpecRecord::stream>},
                                 {"thresholds", same_field<&SpecRecord::thresholds>}};

struct Segment {
  fs::path directory;
  std::unique_ptr<SegmentFileReader> reader;
  std::optional<SegmentWindow> current;  // the window read and not merged yet
  int64_t offset = 0;                    // its window k is the merge's window k + offset
};

// The segment's next window (none once its windows are over). A line that is not the format is
// bad input, as a bad flag is: exit 2 with the file, line and key.
void advance(Segment& s) {
  try {
    s.current = s.reader->next();
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
}

std::string segment_name(int index, int count) {
  return fmt::format("segment {} of {}", index, count);
}

void check_same_load(const Segment& first, const Segment& other) {
  const auto& a = first.reader->header();
  const auto& b = other.reader->header();
  const std::string who = segment_name(b.segment.index, b.segment.count);
  if (b.window_ns != a.window_ns) {
    throw UsageError(who + " (" + other.directory.string() + ") has another window length");
  }
  for (const LoadKey& load : kLoadKeys) {
    if (!load.same(a.spec, b.spec)) {
      throw UsageError(
          fmt::format("{} ({}) ran another load than {}: its spec's '{}' is {}, not {}", who,
                      other.directory.string(), segment_name(a.segment.index, a.segment.count),
                      load.key, result::spec_key_json(b.spec, load.key).dump(),
                      result::spec_key_json(a.spec, load.key).dump()));
    }
  }
}

// A window's per-source counts moved to their places in the whole --sources list (segment s's
// k-th source is source s + N*k).
void place_sources(measure::WindowStats& w, int segment, int count, size_t whole) {
  if (w.sources.empty()) return;
  std::vector<measure::SourceWindow> placed(whole);
  for (size_t k = 0; k < w.sources.size(); ++k) {
    const size_t j = static_cast<size_t>(segment) + static_cast<size_t>(count) * k;
    if (j < whole) placed[j] = std::move(w.sources[k]);
  }
  w.sources = std::move(placed);
}

// The generators' figures of one window added up: CPU, memory and threads of all of them.
observe::SamplerFigures summed_generators(const std::vector<const observe::SamplerFigures*>& each) {
  observe::SamplerFigures sum;
  sum.spec = "self";
  std::map<std::string, double> figures;
  for (const observe::SamplerFigures* f : each) {
    sum.figures.samples += f->figures.samples;
    sum.figures.gaps += f->figures.gaps;
    if (!f->figures.last_error.empty()) sum.figures.last_error = f->figures.last_error;
    for (const observe::Figure& figure : f->figures.figures) figures[figure.name] += figure.value;
  }
  for (const auto& [name, value] : figures) sum.figures.figures.push_back({name, value});
  return sum;
}

}  // namespace

bool run_finished(const fs::path& directory) {
  RecordedFileStream in(directory / report::ResultDirectory::kResultJson);
  if (!in) return false;
  try {
    const nlohmann::json result = report::parse_result_for_summary(in);
    return result.is_object() && result.value("status", "") != "running";
  } catch (const nlohmann::json::exception&) {
    return false;
  } catch (const result::RecordedJsonTooDeep&) {
    return false;
  }
}

std::filesystem::path within(const std::filesystem::path& directory, const std::string& name) {
  const fs::path relative(name);
  const bool inside = !name.empty() && relative.is_relative() &&
                      std::none_of(relative.begin(), relative.end(),
                                   [](const fs::path& part) { return part == ".."; });
  if (!inside) {
    throw UsageError(directory.string() + " names '" + name +
                     "' as one of its directories: not a path inside it");
  }
  return directory / relative;
}

result::MergeRecord segments_record(
    const std::vector<std::pair<fs::path, result::SegmentRecord>>& given) {
  result::MergeRecord record;
  if (given.empty()) throw UsageError("merge needs the segments' directories");
  record.count = given.front().second.count;
  if (record.count < 1 || record.count > plan::kMaxSegments) {
    throw UsageError(fmt::format("{} says it is one of {} segments: from 1 to {}",
                                 given.front().first.string(), record.count, plan::kMaxSegments));
  }
  for (const auto& [directory, segment] : given) {
    if (segment.count != record.count) {
      throw UsageError(fmt::format("{} is segment {} of {}, not of {}: not one load",
                                   directory.string(), segment.index, segment.count, record.count));
    }
    if (segment.index < 0 || segment.index >= segment.count) {
      throw UsageError(fmt::format("{} says it is segment {} of {}: not a segment's index",
                                   directory.string(), segment.index, segment.count));
    }
    for (const result::SegmentRecord& s : record.segments) {
      if (s.index == segment.index) {
        throw UsageError(fmt::format("{} is given twice ({} and {})",
                                     segment_name(segment.index, record.count), s.directory,
                                     directory.string()));
      }
    }
    result::SegmentRecord s = segment;
    s.directory = directory.string();
    record.segments.push_back(std::move(s));
  }
  std::sort(record.segments.begin(), record.segments.end(),
            [](const auto& a, const auto& b) { return a.index < b.index; });
  for (int i = 0; i < record.count; ++i) {
    if (std::none_of(record.segments.begin(), record.segments.end(),
                     [&](const result::SegmentRecord& s) { return s.index == i; })) {
      record.missing.push_back({i, "not given"});
    }
  }
  return record;
}

int ending_severity(const std::string& status) {
  if (status == "complete") return 0;
  if (status == "stopped") return 1;
  if (status == "aborted") return 2;
  if (status == "interrupted") return 3;
  return 4;
}

std::string merged_command(const std::string& segment_command, int count) {
  static const std::regex segment_flag(R"(--segment[ =]\S+)");
  return std::regex_replace(segment_command, segment_flag, fmt::format("--segment $I/{}", count));
}

report::RunResult merge_runs(const std::vector<fs::path>& directories, const fs::path& out,
                             const MergedWindow& on_window) {
  if (directories.empty()) throw UsageError("merge needs the segments' directories");
  std::vector<Segment> segments;
  result::MergeRecord record;
  std::vector<result::MissingSegment> killed;
  for (const fs::path& directory : directories) {
    Segment s;
    s.directory = directory;
    try {
      s.reader = std::make_unique<SegmentFileReader>(directory);
    } catch (const std::runtime_error& e) {
      throw UsageError(e.what());
    }
    // A segment killed before its end has windows but no totals: it is left out whole, and
    // counted missing, so that the merge's windows and totals are of the same segments.
    if (!run_finished(directory)) {
      killed.push_back({s.reader->header().segment.index,
                        "its run stopped before its end (killed): " + directory.string()});
      continue;
    }
    segments.push_back(std::move(s));
  }
  if (segments.empty()) {
    throw UsageError("no segment finished its run: there is nothing whole to merge");
  }
  std::sort(segments.begin(), segments.end(), [](const Segment& a, const Segment& b) {
    return a.reader->header().segment.index < b.reader->header().segment.index;
  });
  std::vector<std::pair<fs::path, result::SegmentRecord>> given;
  for (const Segment& s : segments) given.emplace_back(s.directory, s.reader->header().segment);
  record = segments_record(given);  // one N, no index twice; the missing ones
  for (const Segment& s : segments) check_same_load(segments.front(), s);

  // Windows line up by wall clock: with --start-at they start together, and a segment that
  // started later (by whole windows) is shifted by them.
  int64_t start_wall_ns = INT64_MAX;
  for (const Segment& s : segments) {
    start_wall_ns = std::min(start_wall_ns, s.reader->header().segment.start_unix_ns);
  }
  const experiments::SegmentHeader& first = segments.front().reader->header();
  const int64_t window_ns = first.window_ns;
  for (Segment& s : segments) {
    const double behind =
        static_cast<double>(s.reader->header().segment.start_unix_ns - start_wall_ns) /
        static_cast<double>(window_ns);
    s.offset = std::llround(behind);
    advance(s);
  }

  // The observers: the generators summed as "self", then each segment's own, labelled by it.
  std::vector<ObservedSource> sources = {{"self", "self"}};
  int workers = 0;
  for (const Segment& s : segments) {
    const experiments::SegmentHeader& h = s.reader->header();
    workers += h.workers;
    for (const ObservedSource& o : h.observed_sources) {
      sources.push_back({fmt::format("{}_s{}", o.label, h.segment.index), o.spec});
    }
  }
  experiments::ObservationTotals observation(sources, workers);

  report::RunResult result;
  result.spec = first.spec;
  result.spec.segment = {};  // absent: the merged spec is the whole load's
  result.spec.workers = workers;
  result.command_line = merged_command(first.command_line, record.count);
  result.proofload_version = first.proofload_version;
  result.start_wall_ns = start_wall_ns;
  result.window_ns = window_ns;
  result.observed_columns = experiments::observed_columns(sources);
  const size_t whole_sources = first.spec.sources ? first.spec.sources->size() : 0;
  result.merged = record;
  report::ResultDirectory directory(out);
  directory.open(result);

  for (;;) {
    std::optional<int64_t> index;
    for (const Segment& s : segments) {
      if (s.current) index = std::min(index.value_or(INT64_MAX), s.current->stats.index + s.offset);
    }
    if (!index) break;
    measure::WindowStats merged;
    merged.index = *index;
    merged.start_ns = *index * window_ns;
    std::vector<const observe::SamplerFigures*> generators;
    std::vector<observe::SamplerFigures> figures(1);
    bool warmup = true;
    bool drain = true;
    for (Segment& s : segments) {
      const experiments::SegmentHeader& h = s.reader->header();
      const bool here = s.current && s.current->stats.index + s.offset == *index;
      if (!here) {
        for (const ObservedSource& o : h.observed_sources) figures.push_back({o.spec, {}});
        continue;
      }
      measure::WindowStats& w = s.current->stats;
      place_sources(w, h.segment.index, record.count, whole_sources);
      merged.merge(w);
      merged.duration_ns = std::max(merged.duration_ns, w.duration_ns);
      warmup = warmup && w.warmup;
      drain = drain && w.drain;
      for (size_t i = 0; i < h.observed_sources.size(); ++i) {
        figures.push_back(i < s.current->observed.size() ? s.current->observed[i]
                                                         : observe::SamplerFigures{});
      }
    }
    for (size_t i = 1; i < figures.size(); ++i) {
      if (figures[i].spec == "self") generators.push_back(&figures[i]);
    }
    figures[0] = summed_generators(generators);
    merged.warmup = warmup;
    merged.drain = drain;
    const std::vector<report::ObservedFigures> observed = observation.add_window(
        merged.index, seconds_of(merged.duration_ns), merged.warmup, merged.responses(), figures);
    directory.append_window(merged, start_wall_ns + merged.start_ns, observed);
    if (on_window) on_window(merged, observed);
    for (Segment& s : segments) {
      if (s.current && s.current->stats.index + s.offset == *index) advance(s);
    }
  }

  bool any_end = false;
  for (const Segment& s : segments) {
    const std::optional<experiments::SegmentEnd>& end = s.reader->end();
    const int index = s.reader->header().segment.index;
    if (!end) {
      throw UsageError(s.directory.string() + "/" + experiments::kSegmentFile +
                       " stops before its totals, though its result.json says the run finished");
    }
    measure::WindowStats total = end->total;
    place_sources(total, index, record.count, whole_sources);
    result.total.merge(total);
    result.warmup_total.merge(end->warmup_total);
    result.span.merge(end->span);
    result.named_total.merge(end->named);
    if (!any_end) {
      result.request_names = end->request_names;
      result.flow_names = end->flow_names;
      result.end_reason = end->end_reason;
    } else if (end->end_reason != result.end_reason && end->end_reason != "duration reached") {
      result.end_reason = end->end_reason;
    }
    result.warmup_duration_s = std::max(result.warmup_duration_s, end->warmup_duration_s);
    result.interrupted = result.interrupted || end->interrupted;
    result.aborted = result.aborted || end->aborted;
    if (result.first_tls_failure.empty()) result.first_tls_failure = end->first_tls_failure;
    if (end->h2_server_max_streams) {
      result.h2_server_max_streams =
          std::min(result.h2_server_max_streams.value_or(INT64_MAX), *end->h2_server_max_streams);
    }
    any_end = true;
  }
  for (result::MissingSegment& m : record.missing) {
    for (const result::MissingSegment& k : killed) {
      if (k.index == m.index) m.reason = k.reason;
    }
  }
  result.merged = record;

  result.measured_duration_s = seconds_of(result.span.duration_ns);
  result.observed = observation.summaries(result.total.responses());
  result.server = experiments::server_figures(result.observed);
  result.generator_busy_windows = observation.generator_busy_windows();
  std::vector<measure::Threshold> thresholds;
  if (first.spec.thresholds) {
    for (const std::string& t : *first.spec.thresholds) {
      thresholds.push_back(measure::parse_threshold(t));
    }
  }
  result.thresholds = experiments::evaluate_thresholds(result, thresholds);
  directory.finish(result);
  return result;
}

}  // namespace proofload::merge
