// See observation.h.
#include "experiments/observation.h"

#include <fmt/format.h>

#include <algorithm>

#include "observe/factory.h"
#include "words/numbers.h"

namespace proofload::experiments {
namespace {

// The columns each kind contributes to windows.csv, in order.
std::vector<std::string_view> columns_of_kind(std::string_view kind) {
  if (kind == "self") return {"cpu_cores", "rss_bytes", "threads"};
  if (kind == "pid") {
    return {"cpu_cores", "cpu_ms_per_request", "rss_bytes", "rss_bytes_peak",
            "threads",   "open_files"};
  }
  if (kind == "pidfile") {
    return {"cpu_cores", "cpu_ms_per_request", "rss_bytes", "rss_bytes_peak",
            "threads",   "open_files",         "restarts"};
  }
  if (kind == "cgroup") {
    return {"cpu_cores",       "cpu_ms_per_request", "cpu_throttled_share",
            "cpu_quota_cores", "memory_bytes",       "memory_peak_bytes",
            "oom_kills"};
  }
  if (kind == "host") return {"load1", "cpu_busy_share"};
  // A deployment's pods (kubectl): readiness dips show as the peak of the unready, a pod stuck
  // Terminating as the peak of how long it has been so.
  if (kind == "k8s") {
    return {"pods",          "ready_pods",        "unready_pods_peak",
            "terminating_pods", "terminating_longest_seconds_peak", "nodes",
            "pods_per_node_max", "restarts",      "oom_kills",
            "cpu_cores",     "memory_bytes"};
  }
  return {};
}

// How a figure is totalled over the measured windows.
enum class Total { kMeanAndMax, kMean, kMax, kSum, kEnd };

Total total_of(const std::string& name) {
  if (name == "cpu_cores") return Total::kMeanAndMax;
  if (name == "restarts" || name == "oom_kills") return Total::kSum;
  if (name == "load1" || name.ends_with("_peak")) return Total::kMax;
  if (name.ends_with("_share") || name.ends_with("_per_s")) return Total::kMean;
  return Total::kEnd;  // gauges: memory, threads, open files, quota
}

enum class ServerKind { kProcess, kCgroup, kPrometheus, kOther };

ServerKind server_kind_of(const std::string& spec) {
  const std::string_view kind = observe::sampler_kind(spec);
  if (kind == "pid" || kind == "pidfile") return ServerKind::kProcess;
  if (kind == "cgroup") return ServerKind::kCgroup;
  if (kind == "prom") return ServerKind::kPrometheus;
  return ServerKind::kOther;  // the generator itself, the host
}

}  // namespace

report::ServerFigures server_figures(const std::vector<report::ObservedSummary>& observed) {
  report::ServerFigures server;
  // CPU: every source of the most direct kind that measured it. Several of one kind are several
  // instances (one spec given twice counts once), so their CPU is added: a figure per core or
  // per request divides by all of it. Sources of the other kinds are named, not added.
  auto cpu_mean_of = [](const report::ObservedSummary& s) {
    auto mean = s.value("cpu_cores_mean");
    return mean ? mean : s.value("process_cpu_seconds_total_per_s_mean");
  };
  auto cpu_max_of = [](const report::ObservedSummary& s) {
    auto max = s.value("cpu_cores_max");
    return max ? max : s.value("process_cpu_seconds_total_per_s_max");
  };
  std::vector<const report::ObservedSummary*> cpu;
  ServerKind cpu_kind = ServerKind::kOther;
  for (ServerKind kind : {ServerKind::kProcess, ServerKind::kCgroup, ServerKind::kPrometheus}) {
    for (const report::ObservedSummary& s : observed) {
      if (server_kind_of(s.source) != kind || !cpu_mean_of(s)) continue;
      if (cpu.empty() || cpu_kind == kind) {
        const bool again = std::any_of(cpu.begin(), cpu.end(),
                                       [&](const auto* seen) { return seen->source == s.source; });
        if (!again) cpu.push_back(&s);
        cpu_kind = kind;
      } else {
        server.cpu_also_measured_by.push_back(s.source);
      }
    }
  }
  for (const report::ObservedSummary* s : cpu) {
    server.cpu_cores_mean = server.cpu_cores_mean.value_or(0) + *cpu_mean_of(*s);
    if (const std::optional<double> max = cpu_max_of(*s)) {
      server.cpu_cores_max = server.cpu_cores_max.value_or(0) + *max;
    }
    if (cpu.size() > 1) server.cpu_sources.push_back(s->source);
  }
  if (!cpu.empty()) server.cpu_source = cpu.front()->source;
  // Throttling: the mean over the cgroups that report it; their quotas added.
  int throttle_sources = 0;
  for (const report::ObservedSummary& s : observed) {
    if (server_kind_of(s.source) != ServerKind::kCgroup) continue;
    auto throttled = s.value("cpu_throttled_share_mean");
    auto quota = s.value("cpu_quota_cores_end");
    if (!throttled && !quota) continue;
    if (throttled) {
      ++throttle_sources;
      server.throttled_share_mean = server.throttled_share_mean.value_or(0) + *throttled;
    }
    if (quota) server.quota_cores = server.quota_cores.value_or(0) + *quota;
    if (server.cgroup_source.empty()) server.cgroup_source = s.source;
  }
  if (throttle_sources > 1) *server.throttled_share_mean /= throttle_sources;
  // What bounds the CPU it can use: its threads and affinity (the processes measured for CPU,
  // else the first process), and its quota. Instances' threads add up; the CPUs their affinity
  // allows may be the same ones, so with several instances affinity is no bound here.
  std::vector<const report::ObservedSummary*> processes;
  if (cpu_kind == ServerKind::kProcess) processes = cpu;
  for (const report::ObservedSummary& s : observed) {
    if (processes.empty() && server_kind_of(s.source) == ServerKind::kProcess) processes = {&s};
  }
  std::vector<std::pair<double, std::string>> limits;
  double threads = 0;
  for (const report::ObservedSummary* p : processes) {
    const std::optional<double> n = p->value("threads_end");
    threads = n && *n > 0 && threads >= 0 ? threads + *n : -1;  // -1: one not known
  }
  if (threads > 0) {
    const std::string whose = processes.size() > 1 ? "their " : "its ";
    limits.emplace_back(
        threads, threads == 1 ? "its one thread" : whose + words::given_text(threads) + " threads");
  }
  if (processes.size() == 1) {
    if (auto cpus = processes.front()->value("cpus_allowed_end"); cpus && *cpus > 0) {
      limits.emplace_back(
          *cpus, *cpus == 1 ? "the one CPU its affinity allows"
                            : "the " + words::given_text(*cpus) + " CPUs its affinity allows");
    }
  }
  if (server.quota_cores && *server.quota_cores > 0) {
    limits.emplace_back(*server.quota_cores,
                        "its CPU quota of " + words::given_text(*server.quota_cores) + " cores");
  }
  for (const auto& [cores, basis] : limits) {
    if (!server.cpu_limit_cores || cores < *server.cpu_limit_cores) {
      server.cpu_limit_cores = cores;
      server.cpu_limit_basis = basis;
    }
  }
  return server;
}

std::vector<ObservedSource> label_sources(const std::vector<std::string>& specs) {
  std::vector<ObservedSource> out = {{"self", "self"}};
  std::map<std::string, int> seen = {{"self", 1}};
  for (const std::string& spec : specs) {
    if (spec == "self") continue;  // always observed, once
    std::string kind(observe::sampler_kind(spec));
    int n = ++seen[kind];
    out.push_back({n == 1 ? kind : kind + std::to_string(n), spec});
  }
  return out;
}

std::vector<std::string> observed_columns(const std::vector<ObservedSource>& sources) {
  std::vector<std::string> out;
  for (const ObservedSource& s : sources) {
    for (std::string_view column : columns_of_kind(observe::sampler_kind(s.spec))) {
      out.push_back(s.label + "." + std::string(column));
    }
  }
  return out;
}

ObservationTotals::ObservationTotals(std::vector<ObservedSource> sources, int generator_cores)
    : sources_(std::move(sources)), generator_cores_(generator_cores), totals_(sources_.size()) {}

std::vector<report::ObservedFigures> ObservationTotals::add_window(
    int64_t index, double duration_s, bool warmup, int64_t responses,
    const std::vector<observe::SamplerFigures>& figures) {
  std::vector<report::ObservedFigures> out;
  for (size_t i = 0; i < figures.size() && i < sources_.size(); ++i) {
    const observe::WindowFigures& f = figures[i].figures;
    report::ObservedFigures o{
        sources_[i].label, sources_[i].spec, f.samples, f.gaps, f.last_error, {}};
    for (const observe::Figure& figure : f.figures)
      o.figures.emplace_back(figure.name, figure.value);
    if (auto cores = o.value("cpu_cores"); cores && responses > 0) {
      o.figures.emplace_back("cpu_ms_per_request",
                             *cores * duration_s * 1000.0 / static_cast<double>(responses));
    }
    if (!warmup) {
      SourceTotals& t = totals_[i];
      t.samples += f.samples;
      t.gaps += f.gaps;
      if (!f.last_error.empty()) t.last_error = f.last_error;
      if (observe::sampler_kind(sources_[i].spec) == "prom") {
        for (const observe::CounterSpan& c : f.counters) {
          // The first window's start stays; each later window moves the last value on.
          auto it = t.counters.try_emplace(c.name, report::CounterTotal{c.name, c.start, 0}).first;
          it->second.last = c.end;
        }
      }
      for (const observe::Figure& figure : f.figures) {
        Accumulated& a = t.figures[figure.name];
        if (!a.any) a.first = figure.value;
        a.weighted_sum += figure.value * duration_s;
        a.seconds += duration_s;
        a.max = a.any ? std::max(a.max, figure.value) : figure.value;
        a.last = figure.value;
        a.sum += figure.value;
        a.any = true;
      }
      // The generator's own CPU against the cores its workers may use.
      if (sources_[i].label == "self" && generator_cores_ > 0) {
        if (auto cores = o.value("cpu_cores"); cores && *cores >= 0.8 * generator_cores_) {
          generator_busy_windows_.push_back(index);
        }
      }
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<report::ObservedSummary> ObservationTotals::summaries(
    int64_t completed_requests) const {
  std::vector<report::ObservedSummary> out;
  for (size_t i = 0; i < sources_.size(); ++i) {
    const SourceTotals& t = totals_[i];
    report::ObservedSummary s{
        sources_[i].label, sources_[i].spec, t.samples, t.gaps, t.last_error, {}, {}};
    for (const auto& [name, counter] : t.counters) s.counters.push_back(counter);
    for (const auto& [name, a] : t.figures) {
      const double mean = a.seconds > 0 ? a.weighted_sum / a.seconds : a.last;
      switch (total_of(name)) {
        case Total::kMeanAndMax:
          s.figures.emplace_back(name + "_mean", mean);
          s.figures.emplace_back(name + "_max", a.max);
          break;
        case Total::kMean:
          s.figures.emplace_back(name + "_mean", mean);
          break;
        case Total::kMax:
          s.figures.emplace_back(name + (name.ends_with("_peak") ? "" : "_max"), a.max);
          break;
        case Total::kSum:
          s.figures.emplace_back(name, a.sum);
          break;
        case Total::kEnd:
          s.figures.emplace_back(name + "_end", a.last);
          break;
      }
      // The host's load and busy share at the start and the end too: a noisy host shows.
      if (name == "load1" || name == "cpu_busy_share") {
        s.figures.emplace_back(name + "_start", a.first);
        s.figures.emplace_back(name + "_end", a.last);
      }
      if (name == "cpu_cores") {
        const double cpu_seconds = a.weighted_sum;
        s.figures.emplace_back("cpu_seconds", cpu_seconds);
        if (completed_requests > 0) {
          s.figures.emplace_back("cpu_ms_per_request",
                                 cpu_seconds * 1000.0 / static_cast<double>(completed_requests));
        }
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace proofload::experiments
