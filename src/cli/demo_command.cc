// `proofload demo`: proofload with nothing else installed. Starts the built-in server (demo
// profile) as a child process on its own core where there are two or more, and runs a short
// open-loop ladder against it (about a minute: a weighted mix of its routes and the lifecycle
// flow, from a built-in scenario), with the server observed, and writes the report directory.
// The server is stopped on every exit path (it also dies with its parent).
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

#include "cli/command_line.h"
#include "cli/ladder_flags.h"
#include "cli/subcommand.h"
#include "common/usage_error.h"
#include "report/atomic_file.h"
#include "workload/scenario_yaml.h"

namespace proofload::cli {
namespace {

struct DemoFlags {
  std::string rates = "250,500,1000,2000,4000";
  std::string hold = "8s";
  std::string warmup = "2s";
  std::optional<std::string> out;
  bool plan = false;
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

// Pins a thread or process (0: the calling thread) to one CPU; false if it cannot.
bool pin_to_cpu(pid_t pid, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(pid, sizeof set, &set) == 0;
}

// `proofload serve --profile demo` in a child process: its CPU is its own, so an observer can
// watch it apart from the generator's.
class DemoServer {
 public:
  explicit DemoServer(int cpu) {
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("demo: cannot create a pipe");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("demo: cannot start the server");
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGTERM);  // never outlives the demo
      setpgid(0, 0);  // a Ctrl-C at the terminal stops the ladder, which then stops the server
      if (cpu >= 0) pin_to_cpu(0, cpu);
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      close(out[1]);
      execl("/proc/self/exe", "proofload", "serve", "--profile", "demo", "--port", "0", "--workers",
            "1", static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    // Its first line: "listening on 127.0.0.1:PORT".
    std::string line;
    char c;
    while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
    close(out[0]);
    const std::string prefix = "listening on ";
    if (line.rfind(prefix, 0) != 0) {
      stop();
      throw std::runtime_error("demo: the built-in server did not start");
    }
    address_ = line.substr(prefix.size());
  }
  ~DemoServer() { stop(); }
  DemoServer(const DemoServer&) = delete;
  DemoServer& operator=(const DemoServer&) = delete;

  const std::string& address() const { return address_; }
  pid_t pid() const { return pid_; }

 private:
  void stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  pid_t pid_ = -1;
  std::string address_;
};

int run_demo(const DemoFlags& flags) {
  const bool apart = std::thread::hardware_concurrency() >= 2;
  LadderFlags ladder;
  ladder.rates = flags.rates;
  ladder.hold = flags.hold;
  ladder.warmup = flags.warmup;
  ladder.run.out = flags.out ? *flags.out : default_out_dir("demo");
  ladder.judgement.slo = "p95<=100ms,errors<=1%";
  ladder.plan = flags.plan;
  ladder.run.set("connections", "20");
  ladder.run.set("workers", "1");
  if (flags.plan) {
    const auto scenario = std::make_shared<const workload::Scenario>(
        workload::parse_scenario_yaml(kDemoScenario, "<demo scenario>", "."));
    ladder.run.url =
        "http://127.0.0.1/";  // a valid stand-in: --plan starts no server, sends nothing
    std::fputs(experiments::describe_plan(build_ladder_plan(ladder, scenario)).c_str(), stdout);
    return kExitOk;
  }
  // The scenario goes into the report directory, so that each level's Reproduce line (a
  // `proofload run` of that file) can be run again.
  const std::filesystem::path scenario_file =
      std::filesystem::path(*ladder.run.out) / "scenario.yaml";
  std::filesystem::create_directories(scenario_file.parent_path());
  report::write_file_atomically(scenario_file, std::string(kDemoScenario));
  const auto scenario = std::make_shared<const workload::Scenario>(
      workload::load_scenario_file(scenario_file.string()));

  DemoServer server(apart ? 1 : -1);
  if (apart) pin_to_cpu(0, 0);
  ladder.run.url = "http://" + server.address();
  ladder.run.set("observe", "pid:" + std::to_string(server.pid()));
  ladder.precheck = ladder.run.url + "/health";
  std::printf(
      "demo: built-in server (profile demo) on %s, pid %d%s\n"
      "demo: open-loop ladder over %s arrivals/s, each level %s after a %s warm-up; each arrival\n"
      "      one pick of the mix: lookup 55%%, hybrid 20%%, description 10%%, similarity 2%%,\n"
      "      flaky 10%%, lifecycle flow 3%%; SLO p95 <= 100 ms, errors <= 1%%\n\n",
      server.address().c_str(), static_cast<int>(server.pid()),
      apart ? ", on CPU 1; the generator on CPU 0" : "", flags.rates.c_str(), flags.hold.c_str(),
      flags.warmup.c_str());
  std::fflush(stdout);
  experiments::LadderPlan plan = build_ladder_plan(ladder, scenario);
  experiments::LadderOutcome outcome = experiments::run_ladder(plan);
  print_report("demo", plan, outcome, true);
  return outcome.exit_code;
}

}  // namespace

Subcommand add_demo_command(CLI::App& parent) {
  auto flags = std::make_shared<DemoFlags>();
  CLI::App* app = parent.add_subcommand(
      "demo",
      "Start the built-in server (demo profile) and run a short ladder against it, with "
      "the server observed; writes a report directory");
  app->add_option("--rates", flags->rates,
                  "Arrivals per second of each level (default 250,500,1000,2000,4000)");
  app->add_option("-d,--duration", flags->hold, "How long each level is measured (default 8s)");
  add_hidden_alias(app, "--hold", flags->hold);
  app->add_option("--warmup", flags->warmup, "Warm-up of each level (default 2s)");
  app->add_option("-o,--out", flags->out, "The report directory (default demo-DATE-TIME)");
  app->add_flag("--plan", flags->plan, "Print the ladder and send nothing");
  return Subcommand{app, [flags] { return run_demo(*flags); }};
}

}  // namespace proofload::cli
