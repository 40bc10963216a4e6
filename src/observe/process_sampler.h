// Samplers of one process, from /proc: `self` (the generator), `pid:N` and `pidfile:PATH` (a
// server, which may restart), and make_proc_sampler(), the factory of these and of `host`.
// Not thread-safe: one sampler thread owns each instance.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "observe/proc_stat.h"
#include "observe/sampler.h"

namespace proofload::observe {

// The sampler for `spec` if it is one of `self`, `pid:N`, `pidfile:PATH` or `host`; nullptr for
// any other kind, so that the general factory can try the others. Throws UsageError for a
// malformed spec of these kinds ("pid:abc", "pid:", "pidfile:") and for `pid:N` when process N
// does not exist. `root` is where /proc is found (tests give a fixture tree).
std::unique_ptr<Sampler> make_proc_sampler(std::string_view spec,
                                           const std::filesystem::path& root = "/");
// Whether `spec` is one of those kinds, its form checked as make_proc_sampler checks it, with no
// process or file looked at (--plan's check). Throws UsageError as make_proc_sampler does.
bool check_proc_spec(std::string_view spec);

// Readings, every sample:
//   cpu_user_seconds, cpu_system_seconds, cpu_seconds (their sum)   counters
//   rss_bytes, threads                                              gauges
//   open_files (pid, pidfile; omitted when /proc/N/fd is unreadable) gauge
//   restarts (pidfile: changes of process since the first one seen) counter
// With a pidfile, the CPU counters continue across a restart: the last value read from the old
// process is carried over, so they never go back (CPU the old process used after its last sample
// is not seen). A process that is gone, a zombie, or a pidfile that is missing, empty or holds no
// pid is a gap, and the sampler goes on.
class ProcessSampler final : public Sampler {
 public:
  // The generator itself: `root`/proc/self.
  static std::unique_ptr<ProcessSampler> watch_self(const std::filesystem::path& root = "/");
  // Process `pid`. Throws UsageError ("... no process 12345") when it does not exist now; if it
  // exits later, or its pid is reused by another process, its samples are gaps.
  static std::unique_ptr<ProcessSampler> watch_pid(int pid,
                                                   const std::filesystem::path& root = "/");
  // The process whose pid the file holds, read again at every sample (the file need not exist
  // yet). `pidfile` (not empty: make_proc_sampler refuses "pidfile:") is a path of the caller's
  // file system, not under `root`.
  static std::unique_ptr<ProcessSampler> watch_pidfile(std::filesystem::path pidfile,
                                                       const std::filesystem::path& root = "/");

  const std::string& spec() const override { return spec_; }
  Sample sample(int64_t now_ns) override;

 private:
  // Keeps the spec as the user wrote it ("pid:0042").
  friend std::unique_ptr<Sampler> make_proc_sampler(std::string_view spec,
                                                    const std::filesystem::path& root);

  enum class Mode { kSelf, kPid, kPidFile };
  // One successful reading of the process's files.
  struct Observed {
    PidStat stat;
    int64_t rss_bytes = 0;
    std::optional<int64_t> open_files;
    std::optional<int64_t> cpus_allowed;  // CPUs its affinity allows
  };

  ProcessSampler(Mode mode, std::string spec, const std::filesystem::path& root);
  // Points the /proc paths at `process` ("self" or a pid).
  void point_at(const std::string& process);
  // Fills `sample` or returns false with the reason in `error`.
  bool sample_into(Sample& sample, std::string& error);
  // The pid in the pidfile, or nullopt with the reason in `error`.
  std::optional<int> read_pidfile(std::string& error);
  // Reads stat, status and (unless self) fd of the process pointed at; `who` names it in errors.
  std::optional<Observed> observe(const std::string& who, std::string& error);

  Mode mode_;
  std::string spec_;
  std::filesystem::path root_;
  std::filesystem::path pidfile_;  // kPidFile
  std::filesystem::path stat_path_;
  std::filesystem::path status_path_;
  std::filesystem::path fd_dir_;
  int pointed_pid_ = 0;  // the pid the paths point at (0: self, or none yet)

  // The process whose CPU the counters follow, once one was seen (kPid: from creation on).
  bool seen_ = false;
  int seen_pid_ = 0;
  uint64_t seen_starttime_ticks_ = 0;
  uint64_t last_utime_ticks_ = 0;  // its latest readings
  uint64_t last_stime_ticks_ = 0;
  uint64_t utime_offset_ticks_ = 0;  // the last readings of the processes before it (kPidFile)
  uint64_t stime_offset_ticks_ = 0;
  int64_t restarts_ = 0;

  double ticks_per_s_;
  int64_t page_size_bytes_;
  std::string text_;  // read buffer, reused
};

}  // namespace proofload::observe
