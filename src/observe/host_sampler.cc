// The `host` sampler (see host_sampler.h).
#include "observe/host_sampler.h"

#include <exception>
#include <utility>

namespace proofload::observe {

HostSampler::HostSampler(const std::filesystem::path& root)
    : stat_path_(root / "proc" / "stat"), loadavg_path_(root / "proc" / "loadavg") {}

Sample HostSampler::sample(int64_t now_ns) {
  return sample_or_gap(now_ns,
                       [this](Sample& s, std::string& error) { return sample_into(s, error); });
}

bool HostSampler::sample_into(Sample& sample, std::string& error) {
  int failure = read_small_file(loadavg_path_, text_);
  if (failure != 0) {
    error = "cannot read " + loadavg_path_.string() + ": " + errno_text(failure);
    return false;
  }
  std::string parse_error;
  const std::optional<LoadAverage> load = parse_loadavg(text_, parse_error);
  if (!load) {
    error = loadavg_path_.string() + ": " + parse_error;
    return false;
  }
  failure = read_small_file(stat_path_, text_);
  if (failure != 0) {
    error = "cannot read " + stat_path_.string() + ": " + errno_text(failure);
    return false;
  }
  const std::optional<HostCpuTimes> cpu = parse_proc_stat(text_, parse_error);
  if (!cpu) {
    error = stat_path_.string() + ": " + parse_error;
    return false;
  }
  sample.readings.push_back({"load1", MetricKind::kGauge, load->load1});
  if (previous_) {
    if (const std::optional<double> share = busy_share(*previous_, *cpu)) {
      sample.readings.push_back({"cpu_busy_share", MetricKind::kGauge, *share});
    }
  }
  sample.readings.push_back({"cpu_count", MetricKind::kGauge, static_cast<double>(cpu->cpu_count)});
  previous_ = *cpu;
  return true;
}

}  // namespace proofload::observe
