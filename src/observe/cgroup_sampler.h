// `cgroup:PATH`: what a container's cgroup shows of its CPU, its CPU limit's throttling, its
// memory and its OOM kills, read from cgroup v2 or v1 files. One sampler belongs to the sampler
// thread; resolve_cgroup and the factory are stateless and thread-safe.
//
// What PATH may be:
//   - a cgroup v2 directory (it holds cgroup.controllers): cgroup:/sys/fs/cgroup/kubepods.slice/x
//   - a directory in any v1 hierarchy: cgroup:/sys/fs/cgroup/cpu/x, .../cpu,cpuacct/x,
//     .../memory/x. v1 mounts each controller apart, so the same relative path (x) is also
//     looked for in the sibling hierarchies mounted beside it (the directories next to the
//     hierarchy's root, e.g. /sys/fs/cgroup/cpuacct/x and /sys/fs/cgroup/memory/x), whichever
//     of cpu, cpuacct and memory each one carries, co-mounted or not.
//   - a relative name (no leading '/'): cgroup:kubepods/burstable/pod1/abc, looked for under
//     /sys/fs/cgroup, first as a v2 cgroup, then in the v1 cpu, cpuacct and memory hierarchies.
// It must name a cgroup directory that exists when the sampler is created (else UsageError).
//
// Readings, in this order, each omitted when this kernel or controller lacks its file or field:
//   cpu_seconds (counter)            v2 cpu.stat usage_usec; v1 cpuacct.usage (ns)
//   cpu_periods (counter)            cpu.stat nr_periods (v1 in the cpu hierarchy)
//   cpu_throttled_periods (counter)  cpu.stat nr_throttled
//   cpu_throttled_seconds (counter)  v2 cpu.stat throttled_usec; v1 cpu.stat throttled_time (ns)
//   cpu_quota_cores (gauge)          v2 cpu.max; v1 cpu.cfs_quota_us / cpu.cfs_period_us;
//                                    omitted when unlimited
//   memory_bytes (gauge)             v2 memory.current; v1 memory.usage_in_bytes
//   memory_peak_bytes (gauge)        v2 memory.peak; v1 memory.max_usage_in_bytes
//   oom_kills (counter)              v2 memory.events oom_kill; v1 memory.oom_control oom_kill
// Gaps: the cgroup's directory gone (a container stopped; in v1 the directory named, or for a
// relative name the first found), a file that exists but cannot be read, or a file whose
// content is not what the kernel writes (garbage). Garbage gives a gap naming the file rather
// than a quietly omitted reading, because an omitted reading reads as "this kernel does not
// have it" while garbage means something is wrong; and since counters are cumulative, a gap
// costs the per-window rates nothing once the next sample is good.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "observe/sampler.h"

namespace proofload::observe {

// Where a cgroup's files are, found once at creation. Paths include the root prefix.
struct CgroupLayout {
  int version = 0;          // 1 or 2
  std::string primary_dir;  // the directory named (or first found); its removal is a gap
  // v2: the cgroup's directory, the same in all three. v1: the cgroup's directory in each
  // controller's hierarchy; empty when no hierarchy beside it carries that controller. A
  // directory that does not exist (yet) just omits its readings.
  std::string cpu_dir;
  std::string cpuacct_dir;
  std::string memory_dir;
};

// What `cgroup:PATH` must be before any file is looked at (a path): --plan's check. Throws
// UsageError.
void check_cgroup_spec(std::string_view spec);

// Resolves the PATH of `cgroup:PATH` (see the top of this file) with the file system rooted
// at `root` ("/" in use, a fixture tree in tests). Throws UsageError when it names no cgroup.
CgroupLayout resolve_cgroup(std::string_view path, const std::string& root = "/");

// The sampler for `spec` when it is `cgroup:PATH`; nullptr for any other spec. Throws
// UsageError for `cgroup:` without a path or with a path that is not a cgroup directory.
std::unique_ptr<Sampler> make_cgroup_sampler(std::string_view spec);
// The same with the file system rooted at `root`, for tests on fixture trees.
std::unique_ptr<Sampler> make_cgroup_sampler(std::string_view spec, const std::string& root);

}  // namespace proofload::observe
