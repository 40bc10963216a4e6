// `proofload demo`: proofload with nothing else installed. Starts the built-in server with the
// demo profile on a free loopback port (on its own core where there are two or more), runs a
// short open-loop load test against it (a weighted mix of its routes and the lifecycle flow,
// from a built-in scenario), prints the summary and stops the server, also on Ctrl-C (which ends
// the run gracefully first).
#include <sched.h>

#include <cstdio>
#include <thread>

#include "cli/command_line.h"
#include "cli/run_flags.h"
#include "cli/subcommand.h"
#include "common/usage_error.h"
#include "target/routes/routes_yaml.h"
#include "target/server.h"
#include "workload/scenario_yaml.h"

namespace proofload::cli {
namespace {

struct DemoFlags {
  std::string duration = "10s";
  std::string rate = "500";
  std::optional<std::string> out;
};

// The demo's load: the demo profile's routes in a production-like ratio, cheap lookups most,
// the CPU-heavy serial similarity search least, a cached route hit with repeated queries (a pool
// of words), a flaky dependency, and the lifecycle flow whose resolve can race its assign.
constexpr std::string_view kDemoScenario = R"(
data:
  code: {values: [62012, 62020, 47110, 56101, 86210]}
  topic: {pool: {size: 50, of: {word: {}}}}
  title: {word: {}}
requests:
  lookup: {path: "/sic/${code}", checks: [{status: 200}]}
  hybrid: {path: /sic/hybrid, checks: [{status: 200}]}
  description: {path: "/sic/description?q=${topic}", checks: [{status: 200}]}
  similarity: {method: POST, path: /sic/similarity, body: "${title}", checks: [{status: 200}]}
  flaky: {path: /flaky}
  create: {method: POST, path: /items, body: "${title}", extract: {id: {json: /id}}}
  assign: {method: POST, path: "/items/${id}/assign", body: ana}
  resolve: {method: POST, path: "/items/${id}/resolve"}
flows:
  lifecycle: {steps: [create, {request: assign, think: 20ms}, resolve]}
mix: {lookup: 55, hybrid: 20, description: 10, similarity: 2, flaky: 10, lifecycle: 3}
)";

// Pins the calling thread (and the threads it starts later) to one CPU; false if it cannot.
bool pin_to_cpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

int run_demo(const DemoFlags& flags) {
  target::ServerOptions options;
  options.host = "127.0.0.1";
  options.port = 0;
  options.routes = target::builtin_profile("demo");
  target::Server server(options);
  const bool apart = std::thread::hardware_concurrency() >= 2;
  std::thread serving([&] {
    if (apart) pin_to_cpu(1);
    server.run();
  });
  struct StopServer {
    target::Server& server;
    std::thread& thread;
    ~StopServer() {
      server.stop();
      thread.join();
    }
  } stop_server{server, serving};
  if (apart) pin_to_cpu(0);

  RunFlags run;
  run.url = "http://" + server.address();
  run.rate = flags.rate;
  run.duration = flags.duration;
  run.warmup = "1s";
  run.connections = 20;
  run.max_connections = 200;
  run.workers = 1;
  run.out = flags.out;
  std::printf("demo: built-in server (profile demo) on %s%s\n", server.address().c_str(),
              apart ? ", on CPU 1; the generator on CPU 0" : "");
  std::printf(
      "demo: open loop, %s arrivals/s for %s after a 1 s warm-up; each arrival one pick of the mix\n"
      "      lookup 55%%, hybrid 20%%, description 10%%, similarity 2%%, flaky 10%%, lifecycle flow "
      "3%%\n\n",
      flags.rate.c_str(), flags.duration.c_str());
  std::fflush(stdout);
  const workload::Scenario scenario =
      workload::parse_scenario_yaml(kDemoScenario, "<demo scenario>", ".");
  experiments::RunOptions run_options = build_run_options(run, command_line(), &scenario);
  report::RunResult result = experiments::run_load_test(run_options);
  return result.interrupted ? kExitInterrupted : kExitOk;
}

}  // namespace

Subcommand add_demo_command(CLI::App& parent) {
  auto flags = std::make_shared<DemoFlags>();
  CLI::App* app = parent.add_subcommand(
      "demo", "Start the built-in server with the demo profile and run a short load test on it");
  app->add_option("-d,--duration", flags->duration, "How long to measure (default 10s)");
  app->add_option("--rate", flags->rate,
                  "Arrivals per second, each a request or a flow of the mix (default 500)");
  app->add_option("-o,--out", flags->out, "Write result.json, windows.csv, latency.hlog here");
  return Subcommand{app, [flags] { return run_demo(*flags); }};
}

}  // namespace proofload::cli
