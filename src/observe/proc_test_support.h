// Helpers of the /proc samplers' tests: the fixture trees, a temporary directory, CPU burned by
// the clock rather than assumed, and the readings of a sample by name.
#pragma once

#include <stdlib.h>
#include <time.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "observe/sampler.h"

namespace proofload::observe::proc_test {

// src/observe/testdata/proc: `root` is a tree with a proc/ folder, the other files are variants.
inline std::filesystem::path fixture_dir() { return PL_PROC_TESTDATA_DIR; }
inline std::filesystem::path fixture_root() { return fixture_dir() / "root"; }

// A fresh directory, removed with everything in it when the test ends.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "pl_observe_proc_XXXXXX");
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// A copy of the fixture tree that a test may change.
inline void copy_fixture_root(const std::filesystem::path& to) {
  std::filesystem::copy(fixture_root(), to, std::filesystem::copy_options::recursive);
}

inline void write_file(const std::filesystem::path& path, std::string_view content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
}

inline double cpu_clock_s(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Spins until this thread has used `seconds` of CPU (measured, so a busy machine only makes it
// take longer in wall time). Safe in a forked child: clock_gettime only.
inline void burn_thread_cpu(double seconds) {
  const double until = cpu_clock_s(CLOCK_THREAD_CPUTIME_ID) + seconds;
  while (cpu_clock_s(CLOCK_THREAD_CPUTIME_ID) < until) {
  }
}

// The value of the reading `name`, or nullopt when the sample has none.
inline std::optional<double> reading(const Sample& sample, std::string_view name) {
  for (const Reading& r : sample.readings) {
    if (r.name == name) return r.value;
  }
  return std::nullopt;
}

inline std::optional<MetricKind> reading_kind(const Sample& sample, std::string_view name) {
  for (const Reading& r : sample.readings) {
    if (r.name == name) return r.kind;
  }
  return std::nullopt;
}

}  // namespace proofload::observe::proc_test
