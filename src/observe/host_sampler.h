// The `host` sampler: load average and CPU busy share of the whole machine, from /proc, so that a
// noisy host shows beside the results. Not thread-safe: one sampler thread owns each instance.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "observe/proc_stat.h"
#include "observe/sampler.h"

namespace proofload::observe {

// Readings, every sample (all gauges):
//   load1           the 1-minute load average (/proc/loadavg)
//   cpu_busy_share  busy share of all CPUs, 0 to 1, since the previous sample that read
//                   /proc/stat (absent from the first sample, and when no clock tick passed)
//   cpu_count       CPUs online
// An unreadable or malformed /proc/stat or /proc/loadavg is a gap.
class HostSampler final : public Sampler {
 public:
  // `root` is where /proc is found (tests give a fixture tree).
  explicit HostSampler(const std::filesystem::path& root = "/");

  const std::string& spec() const override { return spec_; }
  Sample sample(int64_t now_ns) override;

 private:
  bool sample_into(Sample& sample, std::string& error);

  std::string spec_ = "host";
  std::filesystem::path stat_path_;
  std::filesystem::path loadavg_path_;
  std::optional<HostCpuTimes> previous_;  // the last /proc/stat of a sample that was not a gap
  std::string text_;                      // read buffer, reused
};

}  // namespace proofload::observe
