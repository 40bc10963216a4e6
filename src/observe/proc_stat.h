// Parsers of the /proc files the process and host samplers read: /proc/<pid>/stat,
// /proc/<pid>/status, /proc/<pid>/fd, /proc/stat and /proc/loadavg (proc(5)). Pure functions over
// text (and one directory listing), so tests feed them fixture files. Thread-safe: no shared state.
// Fields that older kernels lack are optional; a field the samplers cannot do without is an error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace proofload::observe {

// The fields of /proc/<pid>/stat the samplers use. Times are in clock ticks
// (sysconf(_SC_CLK_TCK) per second).
struct PidStat {
  char state = '?';              // R, S, D, ...; Z (zombie) and X (dead) mean the process exited
  uint64_t utime_ticks = 0;      // CPU time in user mode
  uint64_t stime_ticks = 0;      // CPU time in kernel mode
  int64_t num_threads = 0;       // threads in the process
  uint64_t starttime_ticks = 0;  // start time after boot: tells a reused pid from the process seen
  int64_t rss_pages = 0;         // resident set, in pages
};

// Parses the one line of /proc/<pid>/stat. The command name (field 2) is in parentheses and may
// itself hold spaces and parentheses, so the fields are counted from the last ')'. Returns
// nullopt and sets `error` (one line) when a field up to rss (field 24) is missing or malformed.
std::optional<PidStat> parse_pid_stat(std::string_view text, std::string& error);

// The lines of /proc/<pid>/status the samplers use. Each is absent when the kernel or the process
// lacks it: a kernel thread or a zombie has no VmRSS.
struct PidStatus {
  std::optional<int64_t> vm_rss_bytes;  // "VmRSS:   11204 kB"
  // "Cpus_allowed_list:  0-1,3": how many CPUs its affinity lets it run on (3 here).
  std::optional<int64_t> cpus_allowed;
};
PidStatus parse_pid_status(std::string_view text);

// The number of entries of a /proc/<pid>/fd directory (the process's open file descriptors), or
// nullopt when it cannot be listed: another user's process without ptrace rights, or one gone.
std::optional<int64_t> count_open_files(const std::filesystem::path& fd_dir);

// /proc/stat's aggregate "cpu" line, in clock ticks summed over all CPUs, and its "cpuN" lines.
struct HostCpuTimes {
  uint64_t busy_ticks = 0;   // user + nice + system + irq + softirq + steal
  uint64_t total_ticks = 0;  // busy + idle + iowait; guest time is already inside user and nice
  int64_t cpu_count = 0;     // "cpuN" lines: the CPUs online
};

// Parses /proc/stat. Needs the aggregate line with at least user, nice, system and idle (the
// fields after idle came with later kernels and count as 0 when absent) and one "cpuN" line.
std::optional<HostCpuTimes> parse_proc_stat(std::string_view text, std::string& error);

// The busy share of all CPUs between two readings of /proc/stat, in [0, 1]; nullopt when no tick
// passed between them or the counters went back.
std::optional<double> busy_share(const HostCpuTimes& before, const HostCpuTimes& after);

// /proc/loadavg: the run-queue averages over 1, 5 and 15 minutes.
struct LoadAverage {
  double load1 = 0;
  double load5 = 0;
  double load15 = 0;
};
std::optional<LoadAverage> parse_loadavg(std::string_view text, std::string& error);

// Bounds every read: /proc/stat of a machine with many CPUs and interrupts is some 100 KiB.
constexpr size_t kMaxProcFileBytes = size_t{4} << 20;

// Reads a whole small file into `out`, reusing its capacity (procfs reports a size of 0, so this
// reads to the end of the file). Returns 0, or the errno value of the failure (EFBIG when the file
// is longer than `max_bytes`).
int read_small_file(const std::filesystem::path& path, std::string& out,
                    size_t max_bytes = kMaxProcFileBytes);

// "No such file or directory" for ENOENT: the system's text of an errno value.
std::string errno_text(int error);

}  // namespace proofload::observe
