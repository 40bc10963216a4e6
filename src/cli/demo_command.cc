// `proofload demo`: proofload with nothing else installed. Starts the built-in server with the
// demo profile on a free loopback port (on its own core where there are two or more), runs a
// short open-loop load test against its lookup route, prints the summary and stops the server,
// also on Ctrl-C (which ends the run gracefully first).
#include <sched.h>

#include <cstdio>
#include <thread>

#include "cli/command_line.h"
#include "cli/run_flags.h"
#include "cli/subcommand.h"
#include "common/usage_error.h"
#include "target/routes/routes_yaml.h"
#include "target/server.h"

namespace proofload::cli {
namespace {

struct DemoFlags {
  std::string duration = "10s";
  std::string rate = "1000";
  std::optional<std::string> out;
};

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
  run.url = "http://" + server.address() + "/sic/62012";
  run.rate = flags.rate;
  run.duration = flags.duration;
  run.warmup = "1s";
  run.connections = 20;
  run.max_connections = 200;
  run.workers = 1;
  run.out = flags.out;
  std::printf("demo: built-in server (profile demo) on %s%s\n", server.address().c_str(),
              apart ? ", on CPU 1; the generator on CPU 0" : "");
  std::printf("demo: open loop, %s requests/s for %s after a 1 s warm-up, GET /sic/62012\n\n",
              flags.rate.c_str(), flags.duration.c_str());
  std::fflush(stdout);
  experiments::RunOptions run_options = build_run_options(run, command_line());
  report::RunResult result = experiments::run_load_test(run_options);
  return result.interrupted ? kExitInterrupted : kExitOk;
}

}  // namespace

Subcommand add_demo_command(CLI::App& parent) {
  auto flags = std::make_shared<DemoFlags>();
  CLI::App* app = parent.add_subcommand(
      "demo", "Start the built-in server with the demo profile and run a short load test on it");
  app->add_option("-d,--duration", flags->duration, "How long to measure (default 10s)");
  app->add_option("--rate", flags->rate, "Requests per second (default 1000)");
  app->add_option("-o,--out", flags->out, "Write result.json, windows.csv, latency.hlog here");
  return Subcommand{app, [flags] { return run_demo(*flags); }};
}

}  // namespace proofload::cli
