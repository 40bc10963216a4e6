// See compare_record.h.
#include "experiments/compare_record.h"

#include <algorithm>
#include <map>
#include <system_error>

#include "common/recorded_file.h"
#include "common/usage_error.h"
#include "http/url.h"
#include "report/atomic_file.h"
#include "report/compare_report.h"
#include "report/html/pages.h"
#include "report/run_report.h"

namespace proofload::experiments {
namespace {

namespace fs = std::filesystem;

// Directories searched for runs below each side's, and the runs taken: a wrong path (/) fails
// clearly instead of walking the disk.
constexpr int kMaxDepth = 8;
constexpr size_t kMaxRuns = 100'000;

std::optional<double> latency_metric(const result::Latency& l, analyze::CompareMetric metric) {
  switch (metric) {
    case analyze::CompareMetric::kP50: return l.p50;
    case analyze::CompareMetric::kP95: return l.p95;
    case analyze::CompareMetric::kP99: return l.p99;
    default: return std::nullopt;
  }
}

// The server's CPU ms per request, from the sources its CPU figure came from: with several
// instances, each one's CPU over every request, added.
std::optional<double> cpu_ms_per_request(const result::RunRecord& run) {
  if (!run.server || run.server->cpu_source.empty()) return std::nullopt;
  const std::vector<std::string> one = {run.server->cpu_source};
  const std::vector<std::string>& wanted =
      run.server->cpu_sources.empty() ? one : run.server->cpu_sources;
  std::optional<double> total;
  for (const std::string& source : wanted) {
    const auto s = std::find_if(run.sources.begin(), run.sources.end(),
                                [&](const result::SourceRecord& r) { return r.source == source; });
    const std::optional<double> ms =
        s == run.sources.end() ? std::nullopt : s->value("cpu_ms_per_request");
    if (!ms) return std::nullopt;  // one instance's share not known: the sum is not either
    total = total.value_or(0) + *ms;
  }
  return total;
}

// A directory's result.json read once, without its windows (a long run's are many:
// report::parse_result_for_summary skips them as it parses), when it is a run's; nullopt when the
// directory has none, or another experiment's (searched further), or one that is not JSON.
std::optional<nlohmann::json> run_document(const fs::path& dir) {
  try {
    RecordedFileStream in(dir / "result.json");
    if (!in) return std::nullopt;
    nlohmann::json doc = report::parse_result_for_summary(in);
    if (doc.is_object() && result::is_run_schema(doc.value("schema", ""))) return doc;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// A run directory and its result.json as run_document read it.
struct FoundRun {
  fs::path dir;
  nlohmann::json document;
};

// Every run directory below `root`, sorted by path (repeats in the order their names sort),
// each with its result.json read once.
std::vector<FoundRun> run_directories(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    throw UsageError("'" + root.string() + "' is not a directory of recorded runs");
  }
  std::vector<FoundRun> found;
  if (std::optional<nlohmann::json> doc = run_document(root)) {
    found.push_back({root, std::move(*doc)});
  }
  auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied,
                                             ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() >= kMaxDepth) it.disable_recursion_pending();
    if (!it->is_directory(ec) || it->is_symlink(ec)) continue;
    if (std::optional<nlohmann::json> doc = run_document(it->path())) {
      found.push_back({it->path(), std::move(*doc)});
      it.disable_recursion_pending();  // a run's own directories hold no further runs
    }
    if (found.size() > kMaxRuns) {
      throw UsageError("'" + root.string() + "' holds more than " + std::to_string(kMaxRuns) +
                       " runs: give the directory of one comparison's side");
    }
  }
  if (found.empty()) {
    throw UsageError("'" + root.string() + "' holds no recorded run (a directory with a run's "
                     "result.json)");
  }
  std::sort(found.begin(), found.end(),
            [](const FoundRun& a, const FoundRun& b) { return a.dir < b.dir; });
  return found;
}

// The checks a run recorded: its scenario's named requests, or its URL's path for a plain run.
std::vector<std::string> checks_of(const result::RunRecord& run) {
  std::vector<std::string> names;
  for (const result::NamedRequest& n : run.named) names.push_back(n.name);
  if (!names.empty()) return names;
  try {
    return {http::parse_url(run.spec.target.value_or("")).path_and_query};
  } catch (const UsageError&) {
    const std::string target = run.spec.target.value_or("");
    return {target.empty() ? std::string("(run)") : target};
  }
}

void add_side(const fs::path& root, const std::string& side, analyze::CompareMetric metric,
              std::vector<result::CompareRun>& runs) {
  std::map<std::pair<std::string, std::string>, int64_t> repeats;  // (check, condition) -> count
  for (const FoundRun& found : run_directories(root)) {
    const fs::path& dir = found.dir;
    result::RunRecord record;
    try {
      record = result::run_from_json(found.document);
    } catch (const std::exception& e) {  // a damaged file is named, never half-judged
      throw UsageError((dir / "result.json").string() + " does not read as a run's result: " +
                       e.what());
    }
    const fs::path parent = dir == root ? root : dir.parent_path();
    const std::string condition =
        parent == root ? std::string() : fs::relative(parent, root).generic_string();
    for (const std::string& check : checks_of(record)) {
      result::CompareRun run;
      run.side = side;
      run.check = check;
      run.condition = condition;
      run.repeat = ++repeats[{check, condition}];
      run.directory = dir.string();
      run.status = record.status;
      const CellFigures f = cell_figures(record, check, metric);
      run.value = f.value;
      run.requests = f.requests;
      run.errors = f.errors;
      runs.push_back(std::move(run));
    }
  }
}

}  // namespace

CellFigures cell_figures(const result::RunRecord& run, const std::string& check,
                         analyze::CompareMetric metric) {
  CellFigures f;
  const auto named = std::find_if(run.named.begin(), run.named.end(),
                                  [&](const result::NamedRequest& n) { return n.name == check; });
  if (named != run.named.end()) {
    f.requests = named->requests.value_or(0);
    f.errors = named->errors.value_or(0);
    f.value = metric == analyze::CompareMetric::kThroughput ? named->throughput_rps
                                                             : latency_metric(named->latency, metric);
  } else if (run.named.empty()) {
    f.requests = run.requests.value_or(0);
    f.errors = run.errors.value_or(0);
    f.value = metric == analyze::CompareMetric::kThroughput ? run.throughput_rps
                                                             : latency_metric(run.latency, metric);
  } else {
    return f;  // the run did not send this check
  }
  if (metric == analyze::CompareMetric::kCpuPerRequest) f.value = cpu_ms_per_request(run);
  // A run that answered nothing measured no latency; its zero throughput is a measurement.
  if (f.requests - f.errors <= 0 && metric != analyze::CompareMetric::kThroughput) {
    f.value.reset();
  }
  return f;
}

void read_cell(const fs::path& out_dir, result::CompareRun& run, analyze::CompareMetric metric) {
  try {
    const std::optional<nlohmann::json> doc = run_document(out_dir / run.directory);
    if (!doc) throw std::runtime_error("no run's result.json");
    const result::RunRecord record = result::run_from_json(*doc);
    const CellFigures f = cell_figures(record, run.check, metric);
    run.value = f.value;
    run.requests = f.requests;
    run.errors = f.errors;
    run.status = record.status;
  } catch (const std::exception&) {
    run.value.reset();
    run.status = "not recorded";
  }
}

result::CompareResult rejudge_recorded(const fs::path& a_dir, const fs::path& b_dir,
                                       result::CompareResult initial) {
  result::CompareResult r = std::move(initial);
  const analyze::CompareMetric metric = analyze::parse_compare_metric(r.settings.metric);
  r.runs.clear();
  add_side(a_dir, "a", metric, r.runs);
  add_side(b_dir, "b", metric, r.runs);
  result::judge_compare(r);
  return r;
}

void write_compare_directory(const fs::path& out_dir, const result::CompareResult& result) {
  fs::create_directories(out_dir);
  report::write_file_atomically(out_dir / "result.json",
                                result::compare_to_json(result).dump(2) + "\n");
  const std::string summary = report::render_compare_summary(result);
  report::write_file_atomically(out_dir / "summary.md", summary);
  report::write_file_atomically(out_dir / report::html::kReportHtml,
                                report::html::render_compare_html(result, summary));
  report::write_file_atomically(out_dir / kCompareCellsCsv, report::render_compare_csv(result));
}

}  // namespace proofload::experiments
