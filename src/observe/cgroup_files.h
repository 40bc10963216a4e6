// Reading and parsing the small pseudo-files of a cgroup (cpu.stat, memory.current, cpu.max,
// cpuacct.usage, memory.oom_control, ...), in plain C++: no regex, no allocation once the
// caller's buffer has grown. Stateless functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace proofload::observe::cgroup {

enum class FileRead {
  kOk,       // `text` holds the whole file
  kMissing,  // no such file: this kernel or controller lacks it, or the cgroup is gone
  kFailed,   // it exists but could not be read; `error` says why in one line
};

// Reads a small pseudo-file whole into `text`, reusing its capacity. Files past 1 MiB are
// refused as kFailed: no cgroup file the sampler reads comes near that.
FileRead read_small_file(const std::string& path, std::string& text, std::string& error);

// One wanted key of a flat keyed file ("key value" per line: cpu.stat, memory.events,
// memory.oom_control).
struct KeyedValue {
  std::string_view key;
  std::optional<uint64_t> value;  // nullopt: the key is not in the file (an older kernel)
};

// Fills the values of `fields` whose keys appear in `text`. Keys not asked for are ignored
// (newer kernels add keys); keys asked for but absent stay nullopt. False when an asked-for
// key's value is not an unsigned decimal integer; `error` then quotes the line.
bool parse_flat_keyed(std::string_view text, std::span<KeyedValue> fields, std::string& error);

// A file holding one decimal integer and a newline (memory.current, cpuacct.usage,
// cpu.cfs_quota_us, whose -1 means unlimited). nullopt when it holds anything else.
std::optional<int64_t> parse_single_integer(std::string_view text);

// cgroup v2's cpu.max: "max 100000" (unlimited) or "50000 100000" (quota and period, µs).
struct CpuMax {
  std::optional<int64_t> quota_us;  // nullopt: unlimited
  int64_t period_us = 0;            // > 0
};
// nullopt when the text is not one of those two forms or the numbers are not positive.
std::optional<CpuMax> parse_cpu_max(std::string_view text);

}  // namespace proofload::observe::cgroup
