// See cgroup_sampler.h.
#include "observe/cgroup_sampler.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <span>
#include <system_error>
#include <utility>
#include <vector>

#include "common/usage_error.h"
#include "observe/cgroup_files.h"

namespace proofload::observe {
namespace {

namespace fs = std::filesystem;
using cgroup::FileRead;
using cgroup::KeyedValue;

constexpr std::string_view kPrefix = "cgroup:";
constexpr const char* kCgroupMount = "/sys/fs/cgroup";

bool path_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

// Both versions put cgroup.procs in every cgroup directory; only v2 puts cgroup.controllers.
bool is_cgroup_dir(const fs::path& dir) { return path_exists(dir / "cgroup.procs"); }
bool is_v2_dir(const fs::path& dir) { return path_exists(dir / "cgroup.controllers"); }

fs::path under_root(const std::string& root, const fs::path& absolute) {
  if (root.empty() || root == "/") return absolute;
  return fs::path(root) / absolute.relative_path();
}

// The path without ".", a doubled '/' or a trailing '/'.
fs::path clean(std::string_view path) {
  fs::path p = fs::path(path).lexically_normal();
  if (!p.has_filename() && p.has_relative_path()) p = p.parent_path();
  return p;
}

fs::path join(const fs::path& dir, const fs::path& relative) {
  return relative.empty() ? dir : dir / relative;
}

// The root directories of the v1 hierarchies that carry cpu, cpuacct and memory.
struct V1Hierarchies {
  fs::path cpu;
  fs::path cpuacct;
  fs::path memory;
};

// Finds the v1 hierarchies mounted side by side in `base` by the files their roots hold, so a
// co-mounted "cpu,cpuacct" or an unusual mount name is found as well as the usual ones.
// `first` (the hierarchy PATH is in) is looked at first: with a co-mounted cpu,cpuacct reached
// through its "cpu" link, the cpuacct directory keeps the user's spelling.
V1Hierarchies find_v1_hierarchies(const fs::path& base, const fs::path& first) {
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
    dirs.push_back(it->path());
  }
  std::sort(dirs.begin(), dirs.end());
  if (!first.empty()) dirs.insert(dirs.begin(), first);
  V1Hierarchies found;
  for (const fs::path& dir : dirs) {
    if (!is_cgroup_dir(dir) || is_v2_dir(dir)) continue;
    if (found.cpu.empty() &&
        (path_exists(dir / "cpu.shares") || path_exists(dir / "cpu.cfs_period_us"))) {
      found.cpu = dir;
    }
    if (found.cpuacct.empty() && path_exists(dir / "cpuacct.usage")) found.cpuacct = dir;
    if (found.memory.empty() && path_exists(dir / "memory.usage_in_bytes")) found.memory = dir;
  }
  return found;
}

CgroupLayout v2_layout(const fs::path& dir) {
  CgroupLayout layout;
  layout.version = 2;
  layout.primary_dir = layout.cpu_dir = layout.cpuacct_dir = layout.memory_dir = dir.string();
  return layout;
}

// The same relative path in each v1 hierarchy; `primary` empty: the first that exists.
CgroupLayout v1_layout(const V1Hierarchies& found, const fs::path& relative, fs::path primary) {
  CgroupLayout layout;
  layout.version = 1;
  auto place = [&](const fs::path& hierarchy, std::string& dir) {
    if (hierarchy.empty()) return false;
    fs::path cgroup_dir = join(hierarchy, relative);
    dir = cgroup_dir.string();
    if (!is_cgroup_dir(cgroup_dir)) return false;
    if (primary.empty()) primary = cgroup_dir;
    return true;
  };
  bool any = place(found.cpu, layout.cpu_dir);
  any = place(found.cpuacct, layout.cpuacct_dir) || any;
  any = place(found.memory, layout.memory_dir) || any;
  if (!any) return {};
  layout.primary_dir = primary.string();
  return layout;
}

CgroupLayout resolve_absolute(const std::string& shown, const fs::path& path,
                              const std::string& root) {
  fs::path dir = under_root(root, path);
  if (!path_exists(dir)) throw UsageError(shown + ": no such directory");
  if (!is_dir(dir)) throw UsageError(shown + ": not a directory");
  if (is_v2_dir(dir)) return v2_layout(dir);
  if (!is_cgroup_dir(dir)) throw UsageError(shown + ": not a cgroup directory (no cgroup.procs)");
  // v1: climb to the hierarchy's root (whose parent is no cgroup), keeping the path below it.
  fs::path hierarchy = dir;
  fs::path relative;
  while (hierarchy.has_relative_path() && is_cgroup_dir(hierarchy.parent_path())) {
    relative = relative.empty() ? hierarchy.filename() : hierarchy.filename() / relative;
    hierarchy = hierarchy.parent_path();
  }
  V1Hierarchies found = find_v1_hierarchies(hierarchy.parent_path(), hierarchy);
  CgroupLayout layout = v1_layout(found, relative, dir);
  if (layout.version == 0) {
    throw UsageError(shown +
                     ": no cpu, cpuacct or memory cgroup at this path in the v1 "
                     "hierarchies beside it");
  }
  return layout;
}

CgroupLayout resolve_relative(const std::string& shown, const fs::path& relative,
                              const std::string& root) {
  if (!relative.empty() && *relative.begin() == "..") {
    throw UsageError(shown + ": a relative name must stay under " + kCgroupMount);
  }
  fs::path base = under_root(root, kCgroupMount);
  if (is_v2_dir(join(base, relative))) return v2_layout(join(base, relative));
  CgroupLayout layout = v1_layout(find_v1_hierarchies(base, {}), relative, {});
  if (layout.version == 0) {
    throw UsageError(shown + ": no such cgroup under " + kCgroupMount +
                     " (looked for a v2 cgroup and in the v1 cpu, cpuacct and memory "
                     "hierarchies)");
  }
  return layout;
}

// One line of a file's content for an error message.
std::string one_line(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  text = text.substr(0, std::min(text.find('\n'), size_t{60}));
  std::string line(text);
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return "'" + line + "'";
}

bool directory_exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

void add(std::vector<Reading>& out, const char* name, MetricKind kind, std::optional<double> value,
         double divisor = 1.0) {
  if (value) out.push_back(Reading{name, kind, *value / divisor});
}

std::optional<double> as_double(std::optional<uint64_t> v) {
  return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}
std::optional<double> as_double(std::optional<int64_t> v) {
  return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}

class CgroupSampler final : public Sampler {
 public:
  CgroupSampler(std::string spec, CgroupLayout layout);

  const std::string& spec() const override { return spec_; }
  Sample sample(int64_t now_ns) override;

 private:
  // Each reads one file and returns false when the sample must be a gap (error_ says why). A
  // missing file leaves its values nullopt: those readings are omitted.
  bool read(const std::string& path, bool& found);
  bool keyed(const std::string& path, std::span<KeyedValue> fields);
  // allow_unlimited: -1 is a value (cpu.cfs_quota_us); elsewhere a negative number is garbage.
  bool integer(const std::string& path, std::optional<int64_t>& value,
               bool allow_unlimited = false);
  bool garbage(const std::string& path, const std::string& what);

  bool read_v2(std::vector<Reading>& out);
  bool read_v1(std::vector<Reading>& out);

  std::string spec_;
  CgroupLayout layout_;
  // The files, joined once. v2 reads usage from cpu_stat_, the quota from cpu_quota_ (cpu.max)
  // and OOM kills from memory_events_; v1 from cpu_usage_, cpu_quota_ and cpu_period_, and
  // memory_events_ (memory.oom_control). Empty: no hierarchy carries that controller.
  std::string cpu_stat_, cpu_usage_, cpu_quota_, cpu_period_;
  std::string memory_current_, memory_peak_, memory_events_;
  std::string text_;   // the file just read; its capacity is reused from sample to sample
  std::string error_;  // why the sample in progress is a gap
  bool any_missing_ = false;
};

std::string file_in(const std::string& dir, const char* name) {
  return dir.empty() ? std::string() : (fs::path(dir) / name).string();
}

CgroupSampler::CgroupSampler(std::string spec, CgroupLayout layout)
    : spec_(std::move(spec)), layout_(std::move(layout)) {
  cpu_stat_ = file_in(layout_.cpu_dir, "cpu.stat");
  if (layout_.version == 2) {
    cpu_quota_ = file_in(layout_.cpu_dir, "cpu.max");
    memory_current_ = file_in(layout_.memory_dir, "memory.current");
    memory_peak_ = file_in(layout_.memory_dir, "memory.peak");
    memory_events_ = file_in(layout_.memory_dir, "memory.events");
  } else {
    cpu_usage_ = file_in(layout_.cpuacct_dir, "cpuacct.usage");
    cpu_quota_ = file_in(layout_.cpu_dir, "cpu.cfs_quota_us");
    cpu_period_ = file_in(layout_.cpu_dir, "cpu.cfs_period_us");
    memory_current_ = file_in(layout_.memory_dir, "memory.usage_in_bytes");
    memory_peak_ = file_in(layout_.memory_dir, "memory.max_usage_in_bytes");
    memory_events_ = file_in(layout_.memory_dir, "memory.oom_control");
  }
}

Sample CgroupSampler::sample(int64_t now_ns) {
  Sample result;
  result.at_ns = now_ns;
  auto gap = [&](std::string why) {
    result.ok = false;
    result.error = std::move(why);
    result.readings.clear();
    return result;
  };
  try {
    const char* gone = "cgroup directory gone: ";
    if (!directory_exists(layout_.primary_dir)) return gap(gone + layout_.primary_dir);
    error_.clear();
    any_missing_ = false;
    result.readings.reserve(8);
    bool ok = layout_.version == 2 ? read_v2(result.readings) : read_v1(result.readings);
    if (!ok) return gap(error_);
    // Files that vanished while being read: the cgroup was removed in the middle.
    if (any_missing_ && !directory_exists(layout_.primary_dir)) {
      return gap(gone + layout_.primary_dir);
    }
    return result;
  } catch (const std::exception& e) {  // only std::bad_alloc can get here
    return gap(std::string("cgroup sampler: ") + e.what());
  }
}

bool CgroupSampler::read(const std::string& path, bool& found) {
  found = false;
  if (path.empty()) return true;
  switch (cgroup::read_small_file(path, text_, error_)) {
    case FileRead::kOk:
      found = true;
      return true;
    case FileRead::kMissing:
      any_missing_ = true;
      return true;
    case FileRead::kFailed:
      return false;
  }
  return false;
}

bool CgroupSampler::garbage(const std::string& path, const std::string& what) {
  error_ = "unexpected content in " + path + ": " + what;
  return false;
}

bool CgroupSampler::keyed(const std::string& path, std::span<KeyedValue> fields) {
  bool found;
  if (!read(path, found)) return false;
  std::string why;
  if (found && !cgroup::parse_flat_keyed(text_, fields, why)) return garbage(path, why);
  return true;
}

bool CgroupSampler::integer(const std::string& path, std::optional<int64_t>& value,
                            bool allow_unlimited) {
  bool found;
  if (!read(path, found)) return false;
  if (!found) return true;
  value = cgroup::parse_single_integer(text_);
  if (!value || *value < (allow_unlimited ? -1 : 0)) {
    return garbage(path, one_line(text_));
  }
  return true;
}

bool CgroupSampler::read_v2(std::vector<Reading>& out) {
  KeyedValue cpu[] = {
      {"usage_usec", {}}, {"nr_periods", {}}, {"nr_throttled", {}}, {"throttled_usec", {}}};
  KeyedValue events[] = {{"oom_kill", {}}};
  std::optional<int64_t> memory, peak;
  if (!keyed(cpu_stat_, cpu)) return false;
  bool found;
  if (!read(cpu_quota_, found)) return false;
  std::optional<double> quota_cores;
  if (found) {
    std::optional<cgroup::CpuMax> max = cgroup::parse_cpu_max(text_);
    if (!max) return garbage(cpu_quota_, one_line(text_));
    if (max->quota_us) quota_cores = static_cast<double>(*max->quota_us) / max->period_us;
  }
  if (!integer(memory_current_, memory) || !integer(memory_peak_, peak) ||
      !keyed(memory_events_, events)) {
    return false;
  }
  add(out, "cpu_seconds", MetricKind::kCounter, as_double(cpu[0].value), 1e6);
  add(out, "cpu_periods", MetricKind::kCounter, as_double(cpu[1].value));
  add(out, "cpu_throttled_periods", MetricKind::kCounter, as_double(cpu[2].value));
  add(out, "cpu_throttled_seconds", MetricKind::kCounter, as_double(cpu[3].value), 1e6);
  add(out, "cpu_quota_cores", MetricKind::kGauge, quota_cores);
  add(out, "memory_bytes", MetricKind::kGauge, as_double(memory));
  add(out, "memory_peak_bytes", MetricKind::kGauge, as_double(peak));
  add(out, "oom_kills", MetricKind::kCounter, as_double(events[0].value));
  return true;
}

bool CgroupSampler::read_v1(std::vector<Reading>& out) {
  KeyedValue cpu[] = {{"nr_periods", {}}, {"nr_throttled", {}}, {"throttled_time", {}}};
  KeyedValue oom[] = {{"oom_kill", {}}};
  std::optional<int64_t> usage_ns, quota_us, period_us, memory, peak;
  if (!integer(cpu_usage_, usage_ns) || !keyed(cpu_stat_, cpu) ||
      !integer(cpu_quota_, quota_us, /*allow_unlimited=*/true)) {
    return false;
  }
  std::optional<double> quota_cores;
  if (quota_us && *quota_us == 0) return garbage(cpu_quota_, one_line(text_));
  if (quota_us && *quota_us > 0) {  // -1: unlimited
    if (!integer(cpu_period_, period_us)) return false;
    if (period_us && *period_us <= 0) return garbage(cpu_period_, one_line(text_));
    if (period_us) quota_cores = static_cast<double>(*quota_us) / static_cast<double>(*period_us);
  }
  if (!integer(memory_current_, memory) || !integer(memory_peak_, peak) ||
      !keyed(memory_events_, oom)) {
    return false;
  }
  add(out, "cpu_seconds", MetricKind::kCounter, as_double(usage_ns), 1e9);
  add(out, "cpu_periods", MetricKind::kCounter, as_double(cpu[0].value));
  add(out, "cpu_throttled_periods", MetricKind::kCounter, as_double(cpu[1].value));
  add(out, "cpu_throttled_seconds", MetricKind::kCounter, as_double(cpu[2].value), 1e9);
  add(out, "cpu_quota_cores", MetricKind::kGauge, quota_cores);
  add(out, "memory_bytes", MetricKind::kGauge, as_double(memory));
  add(out, "memory_peak_bytes", MetricKind::kGauge, as_double(peak));
  add(out, "oom_kills", MetricKind::kCounter, as_double(oom[0].value));
  return true;
}

}  // namespace

void check_cgroup_spec(std::string_view spec) {
  if (spec.substr(kPrefix.size()).empty()) {
    throw UsageError("cgroup: needs a path: cgroup:/sys/fs/cgroup/<group> or cgroup:<group>");
  }
}

CgroupLayout resolve_cgroup(std::string_view path, const std::string& root) {
  std::string shown = std::string(kPrefix) + std::string(path);
  check_cgroup_spec(shown);
  fs::path cleaned = clean(path);
  if (path.front() == '/') return resolve_absolute(shown, cleaned, root);
  return resolve_relative(shown, cleaned, root);
}

std::unique_ptr<Sampler> make_cgroup_sampler(std::string_view spec) {
  return make_cgroup_sampler(spec, "/");
}

std::unique_ptr<Sampler> make_cgroup_sampler(std::string_view spec, const std::string& root) {
  if (!spec.starts_with(kPrefix)) return nullptr;
  CgroupLayout layout = resolve_cgroup(spec.substr(kPrefix.size()), root);
  return std::make_unique<CgroupSampler>(std::string(spec), std::move(layout));
}

}  // namespace proofload::observe
