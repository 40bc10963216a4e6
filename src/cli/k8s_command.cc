// `proofload k8s job` renders a distributed experiment as Kubernetes objects (an Indexed Job of
// N segments starting together, and a ConfigMap of its scenario files); `proofload k8s collect`
// brings the segments' results home and merges them. The experiment's own flags go after `--`,
// verbatim to every pod: an unknown flag before `--` is an error here rather than a surprise in
// the cluster. docs/distributed.md walks through both.
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "cli/command_line.h"
#include "cli/subcommand.h"
#include "common/text.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "common/wall_time.h"
#include "k8s/collect.h"
#include "k8s/job_manifest.h"
#include "k8s/scenario_files.h"
#include "observe/bounded_command.h"
#include "plan/redaction.h"
#include "registry/experiment_kinds.h"
#include "report/atomic_file.h"

namespace proofload::cli {
namespace {

namespace fs = std::filesystem;

struct JobFlags {
  k8s::JobSpec spec;
  std::string start_delay = "2m";
  std::string results = "log";
  std::vector<std::string> node_selector;
  std::vector<std::string> data_files;
  std::string out;  // "" : stdout
  std::string secret_out;  // "" : the user creates the Secret (the command is said)
};

struct CollectFlags {
  k8s::CollectSpec spec;
};


// The shared start: --start-at as given (absolute: a relative one would be each pod's own), or
// now + --start-delay, rounded up to a whole second.
std::string shared_start(const JobFlags& f, bool start_at_given) {
  const int64_t now_s = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  if (start_at_given) {
    const std::string& at = f.spec.start_at;
    if (!at.empty() && at[0] == '+') {
      throw UsageError("--start-at " + at +
                       " would be each pod's own start: give an absolute RFC 3339 time, or "
                       "--start-delay " +
                       at.substr(1));
    }
    const std::optional<int64_t> at_ns = parse_rfc3339_unix_ns(at);
    if (!at_ns) {
      throw UsageError("--start-at '" + at + "' is not an RFC 3339 time (2026-12-03T10:00:00Z)");
    }
    if (*at_ns / 1'000'000'000 <= now_s) throw UsageError("--start-at " + at + " is already past");
    return at;
  }
  const int64_t delay_ns = parse_duration_ns(f.start_delay);
  if (delay_ns <= 0) throw UsageError("--start-delay must be more than 0");
  return format_rfc3339_utc((now_s + (delay_ns + 999'999'999) / 1'000'000'000) * 1'000'000'000,
                            true);
}

// The sensitive -H flags of the experiment's (plan/redaction.h: Authorization, X-Api-Key, ...
// and each --redact name, which main registered from argv, after `--` too), taken out of
// `passthrough`: their values go to the pods through a Secret, never in the Job's text.
std::vector<k8s::SecretHeader> take_secret_headers(std::vector<std::string>& passthrough) {
  std::vector<k8s::SecretHeader> secrets;
  std::vector<std::string> kept;
  for (size_t i = 0; i < passthrough.size(); ++i) {
    const std::string& arg = passthrough[i];
    std::string header;
    size_t words = 1;
    if ((arg == "-H" || arg == "--header") && i + 1 < passthrough.size()) {
      header = passthrough[i + 1];
      words = 2;
    } else if (arg.rfind("--header=", 0) == 0) {
      header = arg.substr(9);
    } else if (arg.rfind("-H", 0) == 0 && arg.size() > 2) {
      header = arg.substr(2);
    }
    const size_t colon = header.find(':');
    if (colon != std::string::npos && plan::is_sensitive_header(header.substr(0, colon))) {
      secrets.push_back({header.substr(0, colon),
                         std::string(trim_spaces_tabs(std::string_view(header).substr(colon + 1)))});
    } else {
      kept.insert(kept.end(), passthrough.begin() + static_cast<ptrdiff_t>(i),
                  passthrough.begin() + static_cast<ptrdiff_t>(i + words));
    }
    i += words - 1;
  }
  passthrough = std::move(kept);
  return secrets;
}

// Only its owner may read the file that holds the Secret.
void write_private_file(const std::string& path, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  const bool written = ::fchmod(fd, 0600) == 0 &&
                       ::write(fd, content.data(), content.size()) ==
                           static_cast<ssize_t>(content.size());
  const int error = errno;
  if (::close(fd) != 0 || !written) {
    throw std::runtime_error("cannot write " + path + ": " + std::strerror(error));
  }
}

// How to create the Secret without its values on the command line: from variables the user
// sets, named as a recorded command names them (plan/redaction.h).
std::string create_secret_command(const k8s::JobSpec& spec) {
  std::string line = "kubectl create secret generic " + k8s::secret_name(spec);
  if (!spec.namespace_name.empty()) line += " -n " + spec.namespace_name;
  const std::vector<std::string> keys = k8s::secret_keys(spec);
  std::vector<std::string> variables;
  for (size_t i = 0; i < keys.size(); ++i) {
    std::string variable;
    for (char c : keys[i]) variable += std::isalnum(static_cast<unsigned char>(c)) ? std::toupper(c) : '_';
    line += " --from-literal=" + keys[i] + "=\"$" + variable + "\"";
    variables.push_back(variable);
  }
  std::string note = "  # set ";
  for (size_t i = 0; i < variables.size(); ++i) note += (i > 0 ? ", " : "") + variables[i];
  return line + note + " first: their values are not written";
}

bool is_url(const std::string& target) {
  return target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0;
}

void check_passthrough(const std::vector<std::string>& flags) {
  for (const std::string& flag : flags) {
    for (const char* own : {"--out", "-o", "--segment", "--start-at"}) {
      const std::string prefix = std::string(own) + "=";
      if (flag == own || flag.rfind(prefix, 0) == 0) {
        throw UsageError(
            std::string(own) + " after -- is set by k8s job for every pod (" +
            (std::string(own) == "--start-at" ? "use k8s job's --start-at" : "each segment's own") +
            ")");
      }
    }
  }
}

// `k8s job`'s own arguments given as they were, the rest after `--`: what the user meant when
// an experiment's flag came before `--` ("proofload k8s job URL --segments 3 -- --rate 3000").
std::string with_experiment_flags_after_dashes(const CLI::App& job) {
  const std::vector<std::string>& args = command_arguments();
  std::vector<std::string> own, experiment;
  size_t i = 0;
  // "k8s job": the job's arguments start after them.
  while (i < args.size() && args[i] != "k8s") own.push_back(args[i++]);
  while (i < args.size() && args[i] != "job") own.push_back(args[i++]);
  if (i < args.size()) own.push_back(args[i++]);
  bool target_seen = false;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      experiment.insert(experiment.end(), args.begin() + static_cast<ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (a.size() > 1 && a[0] == '-') {
      const bool has_value = a.find('=') != std::string::npos;
      const CLI::Option* option = job.get_option_no_throw(a.substr(0, a.find('=')));
      std::vector<std::string>& into = option ? own : experiment;
      into.push_back(a);
      // Its value, when it takes one (an unknown option: when the next word is no option).
      const bool takes_value = option ? option->get_type_size() > 0
                                      : i + 1 < args.size() && args[i + 1][0] != '-';
      if (!has_value && takes_value && i + 1 < args.size()) into.push_back(args[++i]);
      continue;
    }
    (target_seen ? experiment : own).push_back(a);
    target_seen = true;
  }
  std::string line = "proofload";
  for (const std::string& a : own) line += " " + shell_quote(a);
  line += " --";
  for (const std::string& a : experiment) line += " " + shell_quote(a);
  return line;
}

int run_job(JobFlags& f, bool start_at_given) {
  k8s::JobSpec& spec = f.spec;
  if (f.results != "log" && f.results != "volume") {
    throw UsageError("--results '" + f.results + "': log or volume");
  }
  spec.results = f.results == "log" ? k8s::ResultsMode::kLog : k8s::ResultsMode::kVolume;
  for (const std::string& pair : f.node_selector) {
    const size_t equals = pair.find('=');
    if (equals == std::string::npos) {
      throw UsageError("--node-selector '" + pair + "': KEY=VALUE (e.g. node-pool=load)");
    }
    spec.node_selector.emplace_back(pair.substr(0, equals), pair.substr(equals + 1));
  }
  check_passthrough(spec.passthrough);
  spec.secret_headers = take_secret_headers(spec.passthrough);
  if (!f.secret_out.empty() && spec.secret_headers.empty()) {
    throw UsageError("--secret-out: no secret header after -- (-H 'Authorization: ...')");
  }
  if (fs::is_regular_file(spec.target)) {
    spec.files = k8s::scenario_files(spec.target, f.data_files);
    spec.target = std::string(k8s::kScenarioDir) + "/" + spec.files.front().path;
  } else if (is_url(spec.target)) {
    if (!f.data_files.empty()) throw UsageError("--data-file is for a scenario file's target");
  } else {
    throw UsageError("'" + spec.target + "' is neither a URL (http://, https://) nor a file");
  }
  spec.start_at = shared_start(f, start_at_given);
  const std::string yaml = k8s::render_job_yaml(spec);
  if (f.out.empty()) {
    std::fwrite(yaml.data(), 1, yaml.size(), stdout);
    std::fflush(stdout);
  } else {
    report::write_file_atomically(f.out, yaml);
  }
  if (!spec.secret_headers.empty()) {
    const std::string names = k8s::secret_name(spec);
    if (!f.secret_out.empty()) {
      write_private_file(f.secret_out, k8s::render_secret_yaml(spec));
      std::fprintf(stderr,
                   "proofload: the secret headers' values are in Secret '%s', written to %s "
                   "(mode 0600): apply it with the Job\n",
                   names.c_str(), f.secret_out.c_str());
    } else {
      std::fprintf(stderr,
                   "proofload: the secret headers' values go to the pods through Secret '%s', "
                   "not in the Job: create it before applying (or use --secret-out FILE):\n  %s\n",
                   names.c_str(), create_secret_command(spec).c_str());
    }
  }
  std::fprintf(stderr,
               "proofload: the %d pods start together at %s: apply before then "
               "(kubectl apply -f), then `proofload k8s collect %s --out DIR`\n",
               spec.segments, spec.start_at.c_str(), spec.name.c_str());
  return kExitOk;
}

int run_collect(CollectFlags& f) {
  k8s::CollectSpec& spec = f.spec;
  if (!k8s::is_dns1123_label(spec.job)) {
    throw UsageError("'" + spec.job + "' is not a Job's name (a DNS-1123 label)");
  }
  if (!spec.namespace_name.empty() && !k8s::is_dns1123_label(spec.namespace_name)) {
    throw UsageError("--namespace '" + spec.namespace_name + "' is not a DNS-1123 label");
  }
  if (spec.kubectl.empty()) {
    const char* path = std::getenv("PATH");
    spec.kubectl = observe::find_on_path("kubectl", path == nullptr ? "" : path);
    if (spec.kubectl.empty()) throw UsageError("kubectl is not on PATH (--kubectl PATH)");
  }
  std::error_code ec;
  spec.proofload = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec) throw std::runtime_error("cannot find proofload's own binary: " + ec.message());
  return k8s::collect_job(spec, std::cerr);
}

// The experiments a job can run: those whose command takes --segment.
std::vector<std::string> segment_kinds() {
  std::vector<std::string> names;
  for (const registry::ExperimentKind& kind : registry::experiment_kinds()) {
    if (kind.takes_segment) names.emplace_back(kind.name);
  }
  return names;
}

void add_job(CLI::App& k8s, std::shared_ptr<JobFlags> f, CLI::App** app, CLI::Option** start) {
  *app = k8s.add_subcommand(
      "job",
      "Render an Indexed Job (and the ConfigMap of a scenario's files) that runs an experiment "
      "in N segments, one pod each, starting together; flags after -- go to every pod");
  k8s::JobSpec& s = f->spec;
  s.image = "proofload:" PROOFLOAD_VERSION;
  (*app)
      ->add_option("target", s.target, "A URL, or a scenario file (mounted in the pods)")
      ->required();
  (*app)->add_option("flags", s.passthrough, "After --: the experiment's own flags, verbatim");
  (*app)
      ->add_option("--segments", s.segments, "Pods, each one segment of the load (1-1000)")
      ->required();
  (*app)
      ->add_option("--experiment", s.experiment,
                   registry::kind_names(registry::takes_segment) + " (default run)")
      ->check(CLI::IsMember(segment_kinds()));
  *start = (*app)->add_option("--start-at", s.start_at,
                              "The pods' shared start, RFC 3339 (2026-12-03T10:00:00Z)");
  (*app)->add_option("--start-delay", f->start_delay,
                     "Else the start is now + this (default 2m): time to apply and schedule");
  (*app)->add_option("--results", f->results,
                     "log (each pod prints its tarball; k8s collect reads it) or volume");
  (*app)->add_option("--pvc", s.pvc, "--results volume: the PersistentVolumeClaim to write to");
  (*app)->add_option("--cpu", s.cpu_request, "CPU request per pod (e.g. 2, 500m)");
  (*app)->add_option("--memory", s.memory_request, "Memory request per pod (e.g. 1Gi)");
  (*app)->add_option("--cpu-limit", s.cpu_limit, "CPU limit per pod");
  (*app)->add_option("--memory-limit", s.memory_limit, "Memory limit per pod");
  (*app)->add_option("--image", s.image,
                     "The pods' image (default proofload:" PROOFLOAD_VERSION ")");
  (*app)->add_option("--name", s.name, "The Job's name (default proofload)");
  (*app)->add_option("--namespace", s.namespace_name, "The namespace (default kubectl's)");
  (*app)->add_option("--node-selector", f->node_selector, "KEY=VALUE a node must carry (repeat)");
  (*app)->add_flag("--allow-same-node", s.allow_same_node,
                   "Let two segments share a node (anti-affinity preferred, not required)");
  (*app)->add_option("--data-file", f->data_files,
                     "Another file the pods need, placed relative to the scenario (repeat)");
  (*app)->add_option("-o,--out", f->out, "Write the YAML here (atomically) instead of stdout");
  (*app)->add_option("--secret-out", f->secret_out,
                     "Write the Secret of the secret headers' values here (mode 0600)");
}

}  // namespace

std::string k8s_job_extras_hint(const CLI::App& root) {
  const std::vector<std::string>& args = command_arguments();
  if (args.size() < 2 || args[0] != "k8s" || args[1] != "job") return "";
  const CLI::App* job = root.get_subcommand("k8s")->get_subcommand("job");
  return "; put the experiment's flags after `--`: " + with_experiment_flags_after_dashes(*job);
}

Subcommand add_k8s_command(CLI::App& parent) {
  CLI::App* k8s = parent.add_subcommand(
      "k8s", "Run an experiment in segments on Kubernetes: render the Job, collect the results");
  k8s->require_subcommand(1);
  auto job = std::make_shared<JobFlags>();
  CLI::App* job_app = nullptr;
  CLI::Option* start_at = nullptr;
  add_job(*k8s, job, &job_app, &start_at);

  auto collect = std::make_shared<CollectFlags>();
  CLI::App* collect_app = k8s->add_subcommand(
      "collect",
      "Read each finished pod's results (--results log), unpack them into OUT/segments and "
      "merge them into OUT/merged with `proofload merge`");
  collect_app->add_option("job", collect->spec.job, "The Job's name")->required();
  collect_app->add_option("--namespace", collect->spec.namespace_name, "Its namespace");
  collect_app->add_option("--kubectl", collect->spec.kubectl, "kubectl's path (default: PATH's)");
  collect_app->add_option("-o,--out", collect->spec.out, "The directory to collect into")
      ->required();
  return {k8s, [=] {
            if (job_app->parsed()) return run_job(*job, start_at->count() > 0);
            return run_collect(*collect);
          }};
}

}  // namespace proofload::cli
