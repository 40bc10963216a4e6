// Samplers of one process from /proc (see process_sampler.h), and the factory of the /proc kinds.
#include "observe/process_sampler.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <exception>
#include <utility>

#include "common/usage_error.h"
#include "observe/host_sampler.h"

namespace proofload::observe {
namespace {

// A pidfile is a number and a newline; a longer file is something else, and is not read whole.
constexpr size_t kMaxPidfileBytes = 4096;

std::string_view trim(std::string_view text) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  return text;
}

// A positive decimal pid and nothing else.
std::optional<int> parse_pid(std::string_view text) {
  int pid = 0;
  const char* end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, pid);
  if (text.empty() || error != std::errc() || stop != end || pid <= 0) return std::nullopt;
  return pid;
}

// The start of a file's content, safe to put in a one-line message.
std::string quoted_excerpt(std::string_view text) {
  constexpr size_t kMaxChars = 40;
  std::string out = "\"";
  for (size_t i = 0; i < text.size() && i < kMaxChars; ++i) {
    const char c = text[i];
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  if (text.size() > kMaxChars) out += "...";
  return out + "\"";
}

// Z: a zombie (exited, not reaped yet); X and x: dead.
bool has_exited(char state) { return state == 'Z' || state == 'X' || state == 'x'; }

// Why a file of a process could not be read: ENOENT and ESRCH mean the process is gone.
std::string unreadable(const std::string& who, const std::filesystem::path& path, int error) {
  if (error == ENOENT || error == ESRCH) return who + " is gone";
  return "cannot read " + path.string() + ": " + errno_text(error);
}

}  // namespace

ProcessSampler::ProcessSampler(Mode mode, std::string spec, const std::filesystem::path& root)
    : mode_(mode), spec_(std::move(spec)), root_(root) {
  const long ticks = ::sysconf(_SC_CLK_TCK);
  const long page = ::sysconf(_SC_PAGESIZE);
  // Both have been fixed values on Linux for decades; the fallbacks only guard a failed call.
  ticks_per_s_ = ticks > 0 ? static_cast<double>(ticks) : 100.0;
  page_size_bytes_ = page > 0 ? page : 4096;
}

std::unique_ptr<ProcessSampler> ProcessSampler::watch_self(const std::filesystem::path& root) {
  std::unique_ptr<ProcessSampler> sampler(new ProcessSampler(Mode::kSelf, "self", root));
  sampler->point_at("self");
  return sampler;
}

std::unique_ptr<ProcessSampler> ProcessSampler::watch_pid(int pid,
                                                          const std::filesystem::path& root) {
  const std::string spec = "pid:" + std::to_string(pid);
  const std::string who = "process " + std::to_string(pid);
  std::unique_ptr<ProcessSampler> sampler(new ProcessSampler(Mode::kPid, spec, root));
  sampler->point_at(std::to_string(pid));
  sampler->pointed_pid_ = pid;
  const int error = read_small_file(sampler->stat_path_, sampler->text_);
  if (error == ENOENT || error == ESRCH) {
    throw UsageError("observe " + spec + ": no " + who);
  }
  std::string why;
  const std::optional<Observed> observed = sampler->observe(who, why);
  if (!observed) throw UsageError("observe " + spec + ": " + why);
  // A later process that gets the same pid is not this one: its start time differs.
  sampler->seen_ = true;
  sampler->seen_pid_ = pid;
  sampler->seen_starttime_ticks_ = observed->stat.starttime_ticks;
  return sampler;
}

std::unique_ptr<ProcessSampler> ProcessSampler::watch_pidfile(std::filesystem::path pidfile,
                                                              const std::filesystem::path& root) {
  std::unique_ptr<ProcessSampler> sampler(
      new ProcessSampler(Mode::kPidFile, "pidfile:" + pidfile.string(), root));
  sampler->pidfile_ = std::move(pidfile);
  return sampler;
}

void ProcessSampler::point_at(const std::string& process) {
  const std::filesystem::path dir = root_ / "proc" / process;
  stat_path_ = dir / "stat";
  status_path_ = dir / "status";
  fd_dir_ = dir / "fd";
}

Sample ProcessSampler::sample(int64_t now_ns) {
  return sample_or_gap(now_ns,
                       [this](Sample& s, std::string& error) { return sample_into(s, error); });
}

bool ProcessSampler::sample_into(Sample& sample, std::string& error) {
  std::string who;
  int pid = 0;
  switch (mode_) {
    case Mode::kSelf:
      who = "this process";
      break;
    case Mode::kPid:
      pid = pointed_pid_;
      who = "process " + std::to_string(pid);
      break;
    case Mode::kPidFile: {
      const std::optional<int> from_file = read_pidfile(error);
      if (!from_file) return false;
      pid = *from_file;
      if (pid != pointed_pid_) {
        point_at(std::to_string(pid));
        pointed_pid_ = pid;
      }
      who = "process " + std::to_string(pid) + " (pid from " + pidfile_.string() + ")";
      break;
    }
  }
  const std::optional<Observed> observed = observe(who, error);
  if (!observed) return false;
  const PidStat& stat = observed->stat;

  if (mode_ == Mode::kPid && stat.starttime_ticks != seen_starttime_ticks_) {
    error = who + " is gone (its pid now belongs to another process)";
    return false;
  }
  if (mode_ == Mode::kPidFile) {
    // A new pid, or the same pid with another start time (reused), is a restart.
    if (seen_ && (pid != seen_pid_ || stat.starttime_ticks != seen_starttime_ticks_)) {
      utime_offset_ticks_ += last_utime_ticks_;
      stime_offset_ticks_ += last_stime_ticks_;
      ++restarts_;
    }
    seen_ = true;
    seen_pid_ = pid;
    seen_starttime_ticks_ = stat.starttime_ticks;
  }
  last_utime_ticks_ = stat.utime_ticks;
  last_stime_ticks_ = stat.stime_ticks;

  const uint64_t user_ticks = utime_offset_ticks_ + last_utime_ticks_;
  const uint64_t system_ticks = stime_offset_ticks_ + last_stime_ticks_;
  auto& readings = sample.readings;
  readings.reserve(9);
  readings.push_back(
      {"cpu_user_seconds", MetricKind::kCounter, static_cast<double>(user_ticks) / ticks_per_s_});
  readings.push_back({"cpu_system_seconds", MetricKind::kCounter,
                      static_cast<double>(system_ticks) / ticks_per_s_});
  readings.push_back({"cpu_seconds", MetricKind::kCounter,
                      static_cast<double>(user_ticks + system_ticks) / ticks_per_s_});
  readings.push_back({"rss_bytes", MetricKind::kGauge, static_cast<double>(observed->rss_bytes)});
  readings.push_back({"threads", MetricKind::kGauge, static_cast<double>(stat.num_threads)});
  // With the threads, what bounds the CPU it can use: a server pinned to one CPU, or with one
  // thread, is CPU-bound at one core.
  if (observed->cpus_allowed) {
    readings.push_back(
        {"cpus_allowed", MetricKind::kGauge, static_cast<double>(*observed->cpus_allowed)});
  }
  if (observed->open_files) {
    readings.push_back(
        {"open_files", MetricKind::kGauge, static_cast<double>(*observed->open_files)});
  }
  if (mode_ == Mode::kPidFile) {
    readings.push_back({"restarts", MetricKind::kCounter, static_cast<double>(restarts_)});
  }
  return true;
}

std::optional<int> ProcessSampler::read_pidfile(std::string& error) {
  const int failure = read_small_file(pidfile_, text_, kMaxPidfileBytes);
  if (failure != 0) {
    error = "pidfile " + pidfile_.string() + ": " +
            (failure == EFBIG ? "longer than a pidfile can be" : errno_text(failure));
    return std::nullopt;
  }
  const std::string_view content = trim(text_);
  if (content.empty()) {
    error = "pidfile " + pidfile_.string() + " is empty";
    return std::nullopt;
  }
  const std::optional<int> pid = parse_pid(content);
  if (!pid) error = "pidfile " + pidfile_.string() + " holds no pid: " + quoted_excerpt(content);
  return pid;
}

std::optional<ProcessSampler::Observed> ProcessSampler::observe(const std::string& who,
                                                                std::string& error) {
  int failure = read_small_file(stat_path_, text_);
  if (failure != 0) {
    error = unreadable(who, stat_path_, failure);
    return std::nullopt;
  }
  Observed observed;
  std::string parse_error;
  const std::optional<PidStat> stat = parse_pid_stat(text_, parse_error);
  if (!stat) {
    error = stat_path_.string() + ": " + parse_error;
    return std::nullopt;
  }
  if (has_exited(stat->state)) {
    error = who + " has exited (a zombie, not yet reaped by its parent)";
    return std::nullopt;
  }
  observed.stat = *stat;
  failure = read_small_file(status_path_, text_);
  if (failure != 0) {
    error = unreadable(who, status_path_, failure);
    return std::nullopt;
  }
  // VmRSS is in kB whatever the page size; stat's rss (pages) only stands in where it is absent.
  const PidStatus status = parse_pid_status(text_);
  observed.rss_bytes = status.vm_rss_bytes.value_or(observed.stat.rss_pages * page_size_bytes_);
  observed.cpus_allowed = status.cpus_allowed;
  if (mode_ != Mode::kSelf) observed.open_files = count_open_files(fd_dir_);
  return observed;
}

namespace {

// A proc spec's form: its kind, and the pid or the pid file it names (nothing looked at yet).
struct ProcSpec {
  std::string_view kind;  // "self", "host", "pid" or "pidfile"
  int pid = 0;
  std::string_view pidfile;
};

// nullopt when `spec` is none of the proc kinds. Throws UsageError for a malformed one.
std::optional<ProcSpec> parse_proc_spec(std::string_view spec) {
  if (spec == "self" || spec == "host") return ProcSpec{spec, 0, {}};
  const size_t colon = spec.find(':');
  const std::string_view kind = spec.substr(0, colon);
  const std::string_view rest =
      colon == std::string_view::npos ? std::string_view() : spec.substr(colon + 1);
  if (kind == "pid") {
    if (rest.empty()) throw UsageError("observe pid: needs a process id, as in pid:1234");
    const std::optional<int> pid = parse_pid(rest);
    if (!pid) {
      throw UsageError("observe " + std::string(spec) + ": \"" + std::string(rest) +
                       "\" is not a process id (a positive number, as in pid:1234)");
    }
    return ProcSpec{kind, *pid, {}};
  }
  if (kind == "pidfile") {
    if (rest.empty()) throw UsageError("observe pidfile: needs a path, as in pidfile:/run/app.pid");
    return ProcSpec{kind, 0, rest};
  }
  return std::nullopt;
}

}  // namespace

bool check_proc_spec(std::string_view spec) { return parse_proc_spec(spec).has_value(); }

std::unique_ptr<Sampler> make_proc_sampler(std::string_view spec,
                                           const std::filesystem::path& root) {
  const std::optional<ProcSpec> parsed = parse_proc_spec(spec);
  if (!parsed) return nullptr;
  if (parsed->kind == "self") return ProcessSampler::watch_self(root);
  if (parsed->kind == "host") return std::make_unique<HostSampler>(root);
  if (parsed->kind == "pid") {
    std::unique_ptr<ProcessSampler> sampler = ProcessSampler::watch_pid(parsed->pid, root);
    sampler->spec_ = std::string(spec);  // as given ("pid:0042" stays so)
    return sampler;
  }
  return ProcessSampler::watch_pidfile(std::string(parsed->pidfile), root);
}

}  // namespace proofload::observe
