// Tests for how observations reach the report: labels and columns by kind, per-window figures,
// totals over the measured part only, CPU per request, and the generator's 80% flag.
#include "experiments/observation.h"

#include <gtest/gtest.h>

namespace proofload::experiments {
namespace {

observe::SamplerFigures figures(std::string spec, std::vector<observe::Figure> values,
                                int gaps = 0) {
  observe::SamplerFigures f;
  f.spec = std::move(spec);
  f.figures.samples = values.empty() ? 0 : 1;
  f.figures.gaps = gaps;
  if (gaps > 0) f.figures.last_error = "process 42 is gone";
  f.figures.figures = std::move(values);
  return f;
}

TEST(Observation, SelfComesFirstAndRepeatedKindsAreNumbered) {
  auto sources = label_sources({"pid:42", "cgroup:/a", "pid:43", "self", "host"});
  ASSERT_EQ(sources.size(), 5u);
  EXPECT_EQ(sources[0].label, "self");
  EXPECT_EQ(sources[1].label, "pid");
  EXPECT_EQ(sources[2].label, "cgroup");
  EXPECT_EQ(sources[3].label, "pid2");
  EXPECT_EQ(sources[3].spec, "pid:43");
  EXPECT_EQ(sources[4].label, "host");
  auto columns = observed_columns(label_sources({"cgroup:/a", "prom:http://127.0.0.1:1/"}));
  EXPECT_EQ(columns.front(), "self.cpu_cores");
  EXPECT_NE(std::find(columns.begin(), columns.end(), "cgroup.cpu_throttled_share"), columns.end());
  for (const std::string& c : columns) EXPECT_EQ(c.find("prom"), std::string::npos) << c;
}

TEST(Observation, TotalsCoverMeasuredWindowsOnlyWithCpuPerRequest) {
  ObservationTotals totals(label_sources({"pid:42"}), 1);
  // Warm-up: ignored in the totals, still converted for the window's row.
  auto warm = totals.add_window(0, 1.0, true, 100,
                                {figures("self", {{"cpu_cores", 0.9}}),
                                 figures("pid:42", {{"cpu_cores", 5.0}, {"rss_bytes", 1e9}})});
  ASSERT_EQ(warm.size(), 2u);
  EXPECT_EQ(warm[1].label, "pid");
  EXPECT_EQ(*warm[1].value("cpu_cores"), 5.0);
  auto first = totals.add_window(1, 1.0, false, 500,
                    {figures("self", {{"cpu_cores", 0.2}}),
                     figures("pid:42", {{"cpu_cores", 1.0}, {"rss_bytes", 100},
                                        {"rss_bytes_peak", 150}, {"restarts", 1}})});
  // The window's own CPU per request: 1 core for 1 s over 500 requests.
  EXPECT_DOUBLE_EQ(*first[1].value("cpu_ms_per_request"), 2.0);
  totals.add_window(2, 0.5, false, 0,
                    {figures("self", {{"cpu_cores", 0.85}}),
                     figures("pid:42", {{"cpu_cores", 2.5}, {"rss_bytes", 120},
                                        {"rss_bytes_peak", 130}, {"restarts", 0}}, 1)});
  auto summaries = totals.summaries(1000);
  ASSERT_EQ(summaries.size(), 2u);
  const report::ObservedSummary& pid = summaries[1];
  // (1.0 x 1 s + 2.5 x 0.5 s) / 1.5 s = 1.5 cores; 2.25 CPU-s for 1,000 requests.
  EXPECT_DOUBLE_EQ(*pid.value("cpu_cores_mean"), 1.5);
  EXPECT_DOUBLE_EQ(*pid.value("cpu_cores_max"), 2.5);
  EXPECT_DOUBLE_EQ(*pid.value("cpu_seconds"), 2.25);
  EXPECT_DOUBLE_EQ(*pid.value("cpu_ms_per_request"), 2.25);
  EXPECT_EQ(*pid.value("rss_bytes_end"), 120);
  EXPECT_EQ(*pid.value("rss_bytes_peak"), 150);
  EXPECT_EQ(*pid.value("restarts"), 1);
  EXPECT_EQ(pid.gaps, 1);
  EXPECT_EQ(pid.last_error, "process 42 is gone");
  // Only window 2 reached 80% of the generator's one core.
  EXPECT_EQ(totals.generator_busy_windows(), std::vector<int64_t>{2});
}

report::ObservedSummary summary(std::string label, std::string spec,
                                std::vector<std::pair<std::string, double>> figures) {
  report::ObservedSummary s;
  s.label = std::move(label);
  s.source = std::move(spec);
  s.figures = std::move(figures);
  return s;
}

// A process pinned to its cgroup with a 0.8-core quota, as the README observes it.
const report::ObservedSummary kPid = summary("pid", "pid:4242",
                                             {{"cpu_cores_mean", 0.79},
                                              {"cpu_cores_max", 0.81},
                                              {"threads_end", 4},
                                              {"cpus_allowed_end", 2}});
const report::ObservedSummary kCgroup =
    summary("cgroup", "cgroup:/sys/fs/cgroup/cpu/app",
            {{"cpu_cores_mean", 0.8}, {"cpu_throttled_share_mean", 1.0}, {"cpu_quota_cores_end", 0.8}});

TEST(ServerFigures, EachFigureComesFromTheSourceThatMeasuresItWhateverTheOrder) {
  // The README's order (pid, then cgroup) once lost the throttling: it came from the first source
  // that reported CPU.
  const report::ServerFigures a = server_figures({summary("self", "self", {{"cpu_cores_mean", 0.1}}),
                                                  kPid, kCgroup});
  const report::ServerFigures b = server_figures({kCgroup, kPid});
  for (const report::ServerFigures* s : {&a, &b}) {
    EXPECT_EQ(s->cpu_source, "pid:4242");  // the process measures its own CPU most directly
    EXPECT_EQ(s->cpu_cores_mean, 0.79);
    EXPECT_EQ(s->cpu_also_measured_by, std::vector<std::string>{"cgroup:/sys/fs/cgroup/cpu/app"});
    EXPECT_EQ(s->throttled_share_mean, 1.0);  // the cgroup's, in either order
    EXPECT_EQ(s->quota_cores, 0.8);
    EXPECT_EQ(s->cgroup_source, "cgroup:/sys/fs/cgroup/cpu/app");
    // What it could use: the least of 4 threads, 2 CPUs and a 0.8-core quota.
    EXPECT_EQ(s->cpu_limit_cores, 0.8);
    EXPECT_EQ(s->cpu_limit_basis, "its CPU quota of 0.8 cores");
    EXPECT_TRUE(s->cpu_bound());  // 0.79 of 0.8
  }
}

TEST(ServerFigures, AOneThreadedServerPinnedToOneCpuIsCpuBoundAtOneCore) {
  const report::ServerFigures pinned = server_figures({summary(
      "pid", "pid:7", {{"cpu_cores_mean", 0.97}, {"threads_end", 1}, {"cpus_allowed_end", 1}})});
  EXPECT_EQ(pinned.cpu_limit_cores, 1);
  EXPECT_TRUE(pinned.cpu_bound());
  const report::ServerFigures idle = server_figures(
      {summary("pid", "pid:7", {{"cpu_cores_mean", 0.4}, {"threads_end", 8}, {"cpus_allowed_end", 2}})});
  EXPECT_EQ(idle.cpu_limit_basis, "the 2 CPUs its affinity allows");
  EXPECT_FALSE(idle.cpu_bound());
  // Only a Prometheus endpoint: its process_cpu_seconds_total, no limit known.
  const report::ServerFigures prom = server_figures(
      {summary("prom", "prom:http://127.0.0.1:1/metrics",
               {{"process_cpu_seconds_total_per_s_mean", 0.5}})});
  EXPECT_EQ(prom.cpu_cores_mean, 0.5);
  EXPECT_FALSE(prom.cpu_limit_cores);
  EXPECT_FALSE(prom.cpu_bound());
  // The generator and the host are never the server.
  EXPECT_FALSE(server_figures({summary("self", "self", {{"cpu_cores_mean", 1.0}}),
                               summary("host", "host", {{"cpu_busy_share_mean", 0.9}})})
                   .any());
}

TEST(ServerFigures, SeveralInstancesOfOneKindAddTheirCpu) {
  // Two instances under half-core quotas, each observed by its pidfile and its cgroup: the
  // server's CPU is both processes' (a per-core figure over one of them would read twice as
  // good), throttling their mean, the quota their sum.
  auto instance = [](int i, double cores, double throttled) {
    const std::string n = std::to_string(i);
    return std::vector<report::ObservedSummary>{
        summary("pidfile" + n, "pidfile:/run/app-" + n + ".pid",
                {{"cpu_cores_mean", cores}, {"cpu_cores_max", cores + 0.01}, {"threads_end", 1}}),
        summary("cgroup" + n, "cgroup:/sys/fs/cgroup/cpu/app-" + n,
                {{"cpu_cores_mean", cores},
                 {"cpu_throttled_share_mean", throttled},
                 {"cpu_quota_cores_end", 0.5}})};
  };
  std::vector<report::ObservedSummary> observed = instance(0, 0.49, 0.6);
  for (report::ObservedSummary& s : instance(1, 0.47, 0.4)) observed.push_back(s);
  observed.push_back(observed.front());  // the same source given twice counts once
  const report::ServerFigures s = server_figures(observed);
  EXPECT_DOUBLE_EQ(*s.cpu_cores_mean, 0.96);
  EXPECT_DOUBLE_EQ(*s.cpu_cores_max, 0.98);
  EXPECT_EQ(s.cpu_source, "pidfile:/run/app-0.pid");
  EXPECT_EQ(s.cpu_sources,
            (std::vector<std::string>{"pidfile:/run/app-0.pid", "pidfile:/run/app-1.pid"}));
  EXPECT_EQ(s.cpu_also_measured_by,
            (std::vector<std::string>{"cgroup:/sys/fs/cgroup/cpu/app-0",
                                      "cgroup:/sys/fs/cgroup/cpu/app-1"}));
  EXPECT_DOUBLE_EQ(*s.throttled_share_mean, 0.5);
  EXPECT_DOUBLE_EQ(*s.quota_cores, 1.0);
  EXPECT_EQ(s.cpu_limit_cores, 1.0);  // two threads, two half cores: either way one core
  EXPECT_TRUE(s.cpu_bound());
  // One instance alone names no list.
  EXPECT_TRUE(server_figures(instance(0, 0.49, 0.6)).cpu_sources.empty());
}

}  // namespace
}  // namespace proofload::experiments
