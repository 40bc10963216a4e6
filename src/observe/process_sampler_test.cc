// The process samplers on fixture trees (exact values, kinds, spec errors, a pid reused) and on
// real children: one that burns a known CPU time and touches a known amount of memory, a pidfile
// whose process is replaced, a process that exits. Children are coordinated over pipes.
#include "observe/process_sampler.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "common/clock.h"
#include "common/usage_error.h"
#include "observe/proc_test_support.h"

namespace proofload::observe {
namespace {

#if defined(__SANITIZE_THREAD__)
constexpr int kSanitizerThreads = 1;  // ThreadSanitizer's background thread, in a child too
#else
constexpr int kSanitizerThreads = 0;
#endif

// Writes one byte a page, uninstrumented: under ThreadSanitizer an instrumented write would
// touch shadow memory as well, and the RSS the test expects would grow by that too.
__attribute__((no_sanitize("thread"))) void touch_pages(void* memory, size_t bytes, size_t page) {
  for (size_t i = 0; i < bytes; i += page) static_cast<volatile char*>(memory)[i] = 1;
}

using proc_test::burn_thread_cpu;
using proc_test::copy_fixture_root;
using proc_test::fixture_root;
using proc_test::reading;
using proc_test::reading_kind;
using proc_test::TempDir;
using proc_test::write_file;

const double kTicksPerS = static_cast<double>(::sysconf(_SC_CLK_TCK));

// In a child: tells the test it reached a step, or waits for the test's go (false: the test
// closed the pipe or is gone).
void report(int reports) {
  const char c = 'r';
  (void)!::write(reports, &c, 1);
}
bool await(int commands) {
  char c;
  return ::read(commands, &c, 1) == 1;
}

// A forked child running `body(commands, reports)`; the test sends it go's and waits for its
// reports over pipes. Destroying it kills and reaps it.
class Child {
 public:
  explicit Child(const std::function<void(int commands, int reports)>& body) {
    int to_child[2];
    int from_child[2];
    if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(to_child[1]);
      ::close(from_child[0]);
      body(to_child[0], from_child[1]);
      ::_exit(0);
    }
    ::close(to_child[0]);
    ::close(from_child[1]);
    commands_ = to_child[1];
    reports_ = from_child[0];
  }
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (commands_ >= 0) ::close(commands_);
    if (reports_ >= 0) ::close(reports_);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  void go() { report(commands_); }
  // Blocks until the child reports; false when it exited instead.
  bool wait_report() { return reports_ >= 0 && await(reports_); }
  // Kills the child and waits until it has exited, leaving it a zombie until reap().
  void kill_leaving_zombie() {
    ::kill(pid_, SIGKILL);
    siginfo_t info;
    ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT);
  }
  void reap() {
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int commands_ = -1;
  int reports_ = -1;
};

// A child that reports at once and then waits for the test to end.
void idle_child(int commands, int reports) {
  report(reports);
  await(commands);
}

double value(const Sample& sample, std::string_view name) {
  const std::optional<double> v = reading(sample, name);
  EXPECT_TRUE(v) << "no reading " << name << (sample.ok ? "" : ": gap: " + sample.error);
  return v.value_or(NAN);
}

TEST(ProcessSampler, ReadsAProcessFromItsProcFiles) {
  const auto sampler = make_proc_sampler("pid:42", fixture_root());
  ASSERT_TRUE(sampler);
  EXPECT_EQ(sampler->spec(), "pid:42");
  const Sample sample = sampler->sample(123);
  ASSERT_TRUE(sample.ok) << sample.error;
  EXPECT_EQ(sample.at_ns, 123);
  EXPECT_DOUBLE_EQ(value(sample, "cpu_user_seconds"), 250 / kTicksPerS);
  EXPECT_DOUBLE_EQ(value(sample, "cpu_system_seconds"), 130 / kTicksPerS);
  EXPECT_DOUBLE_EQ(value(sample, "cpu_seconds"), 380 / kTicksPerS);
  EXPECT_EQ(value(sample, "rss_bytes"), 12000.0 * 1024);  // VmRSS, whatever the page size
  EXPECT_EQ(value(sample, "threads"), 7);
  EXPECT_EQ(value(sample, "open_files"), 4);
  EXPECT_FALSE(reading(sample, "restarts"));
  for (const char* counter : {"cpu_user_seconds", "cpu_system_seconds", "cpu_seconds"}) {
    EXPECT_EQ(reading_kind(sample, counter), MetricKind::kCounter) << counter;
  }
  for (const char* gauge : {"rss_bytes", "threads", "open_files"}) {
    EXPECT_EQ(reading_kind(sample, gauge), MetricKind::kGauge) << gauge;
  }
}

TEST(ProcessSampler, AnUnlistableFdDirectoryLeavesOutOpenFilesWithoutAGap) {
  // Process 43's status has no VmRSS (rss comes from stat's pages) and it has no fd directory.
  const auto sampler = make_proc_sampler("pid:43", fixture_root());
  const Sample sample = sampler->sample(1);
  ASSERT_TRUE(sample.ok) << sample.error;
  EXPECT_EQ(value(sample, "rss_bytes"), 500.0 * static_cast<double>(::sysconf(_SC_PAGESIZE)));
  EXPECT_FALSE(reading(sample, "open_files"));
  EXPECT_DOUBLE_EQ(value(sample, "cpu_seconds"), 10 / kTicksPerS);
}

TEST(ProcessSampler, SelfReadsProcSelfWithoutOpenFiles) {
  const auto sampler = make_proc_sampler("self", fixture_root());
  ASSERT_TRUE(sampler);
  EXPECT_EQ(sampler->spec(), "self");
  const Sample sample = sampler->sample(1);
  ASSERT_TRUE(sample.ok) << sample.error;
  EXPECT_DOUBLE_EQ(value(sample, "cpu_user_seconds"), 50 / kTicksPerS);
  EXPECT_DOUBLE_EQ(value(sample, "cpu_system_seconds"), 20 / kTicksPerS);
  EXPECT_EQ(value(sample, "rss_bytes"), 8192.0 * 1024);
  EXPECT_EQ(value(sample, "threads"), 3);
  // Cpus_allowed_list 0-1: what bounds the CPU it can use, with its threads.
  EXPECT_EQ(value(sample, "cpus_allowed"), 2);
  EXPECT_EQ(sample.readings.size(), 6u);
}

TEST(ProcessSampler, OtherKindsAreLeftToOtherFactories) {
  for (const char* spec : {"cgroup:/sys/fs/cgroup/x", "prom:http://127.0.0.1:9100/metrics",
                           "selfish", "hostname", "pids:3", "", "PID:3"}) {
    EXPECT_FALSE(make_proc_sampler(spec, fixture_root())) << spec;
  }
}

// The message of the UsageError that making `spec` throws, or "no error".
std::string usage_error_of(const std::string& spec) {
  try {
    make_proc_sampler(spec, fixture_root());
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ProcessSampler, AMalformedSpecIsAUsageError) {
  EXPECT_EQ(usage_error_of("pid:abc"),
            "observe pid:abc: \"abc\" is not a process id (a positive number, as in pid:1234)");
  EXPECT_EQ(usage_error_of("pid:"), "observe pid: needs a process id, as in pid:1234");
  EXPECT_EQ(usage_error_of("pid"), "observe pid: needs a process id, as in pid:1234");
  EXPECT_EQ(usage_error_of("pidfile:"),
            "observe pidfile: needs a path, as in pidfile:/run/app.pid");
  EXPECT_EQ(usage_error_of("pidfile"), "observe pidfile: needs a path, as in pidfile:/run/app.pid");
  for (const char* spec : {"pid:0", "pid:-3", "pid:+3", "pid: 42", "pid:42x", "pid:99999999999"}) {
    EXPECT_NE(usage_error_of(spec).find("is not a process id"), std::string::npos) << spec;
  }
}

TEST(ProcessSampler, APidThatDoesNotExistAtCreationIsAUsageError) {
  EXPECT_EQ(usage_error_of("pid:12345"), "observe pid:12345: no process 12345");
  // A zombie has exited: there is nothing to watch.
  EXPECT_EQ(usage_error_of("pid:44"),
            "observe pid:44: process 44 has exited (a zombie, not yet reaped by its parent)");
}

TEST(ProcessSampler, KeepsTheSpecAsWritten) {
  EXPECT_EQ(make_proc_sampler("pid:0042", fixture_root())->spec(), "pid:0042");
}

TEST(ProcessSampler, APidReusedByAnotherProcessIsAGap) {
  TempDir dir;
  copy_fixture_root(dir.path());
  const auto sampler = make_proc_sampler("pid:42", dir.path());
  ASSERT_TRUE(sampler->sample(1).ok);
  // Same pid, another start time: another process.
  write_file(dir.path() / "proc/42/stat",
             "42 (other) S 1 42 42 0 -1 4194560 1000 0 0 0 1 1 0 0 20 0 1 0 999999 1 1 1\n");
  const Sample sample = sampler->sample(2);
  EXPECT_FALSE(sample.ok);
  EXPECT_EQ(sample.error, "process 42 is gone (its pid now belongs to another process)");
  EXPECT_TRUE(sample.readings.empty());
}

TEST(ProcessSampler, AMalformedStatIsAGapNamingTheFile) {
  TempDir dir;
  copy_fixture_root(dir.path());
  const auto sampler = make_proc_sampler("pid:42", dir.path());
  write_file(dir.path() / "proc/42/stat", "42 (x) S 1 42\n");
  const Sample sample = sampler->sample(2);
  EXPECT_FALSE(sample.ok);
  EXPECT_EQ(sample.error,
            (dir.path() / "proc/42/stat").string() + ": only 5 fields, need 24 (up to rss)");
}

TEST(ProcessSampler, SeesTheCpuAndMemoryARealProcessUses) {
  constexpr size_t kTouchBytes = size_t{64} << 20;
  constexpr double kBurnS = 0.3;
  const size_t page_bytes = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  Child child([&](int commands, int reports) {
    report(reports);  // started, nothing allocated
    if (!await(commands)) return;
    // mmap rather than malloc: the sanitizer's allocator would add memory of its own.
    void* memory =
        ::mmap(nullptr, kTouchBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return;
    touch_pages(memory, kTouchBytes, page_bytes);
    report(reports);  // memory touched
    if (!await(commands)) return;
    burn_thread_cpu(kBurnS);
    report(reports);  // CPU burned
    await(commands);
  });
  ASSERT_TRUE(child.wait_report());
  const auto sampler = make_proc_sampler("pid:" + std::to_string(child.pid()));
  const Sample started = sampler->sample(monotonic_ns());
  ASSERT_TRUE(started.ok) << started.error;
  child.go();
  ASSERT_TRUE(child.wait_report());
  const Sample touched = sampler->sample(monotonic_ns());
  ASSERT_TRUE(touched.ok) << touched.error;
  child.go();
  ASSERT_TRUE(child.wait_report());
  const Sample burned = sampler->sample(monotonic_ns());
  ASSERT_TRUE(burned.ok) << burned.error;

  constexpr double kTouched = static_cast<double>(kTouchBytes);
  EXPECT_GE(value(touched, "rss_bytes"), kTouched);
  EXPECT_LE(value(touched, "rss_bytes") - value(started, "rss_bytes"), kTouched + (16 << 20));
  EXPECT_GE(value(touched, "rss_bytes") - value(started, "rss_bytes"), kTouched * 0.99);

  const double cpu_s = value(burned, "cpu_seconds") - value(touched, "cpu_seconds");
  EXPECT_NEAR(cpu_s, kBurnS, std::max(0.15 * kBurnS, 0.030));
  EXPECT_NEAR(value(burned, "cpu_seconds"),
              value(burned, "cpu_user_seconds") + value(burned, "cpu_system_seconds"), 1e-9);
  EXPECT_EQ(value(burned, "threads"), 1 + kSanitizerThreads);
  EXPECT_GE(value(burned, "open_files"), 3);  // at least stdin, stdout, stderr and the pipes
}

TEST(ProcessSampler, SelfSeesTheCpuThisProcessBurns) {
  const auto sampler = make_proc_sampler("self");
  const double before_s = proc_test::cpu_clock_s(CLOCK_PROCESS_CPUTIME_ID);
  const Sample first = sampler->sample(monotonic_ns());
  burn_thread_cpu(0.1);
  const Sample second = sampler->sample(monotonic_ns());
  const double measured_s = proc_test::cpu_clock_s(CLOCK_PROCESS_CPUTIME_ID) - before_s;
  ASSERT_TRUE(first.ok && second.ok) << first.error << second.error;
  // Clock ticks are coarse: each reading may be up to a tick (two: user and system) short.
  EXPECT_NEAR(value(second, "cpu_seconds") - value(first, "cpu_seconds"), measured_s, 0.03);
  EXPECT_GE(value(second, "threads"), 1);
  EXPECT_GT(value(second, "rss_bytes"), 0);
  EXPECT_FALSE(reading(second, "open_files"));
}

TEST(ProcessSampler, APidfileRestartIsCountedAndCpuSecondsGoOnFromTheOldProcess) {
  TempDir dir;
  const std::filesystem::path pidfile = dir.path() / "app.pid";
  Child first_process([](int commands, int reports) {
    burn_thread_cpu(0.1);
    report(reports);
    await(commands);
  });
  ASSERT_TRUE(first_process.wait_report());
  write_file(pidfile, std::to_string(first_process.pid()) + "\n");
  const auto sampler = make_proc_sampler("pidfile:" + pidfile.string());
  ASSERT_TRUE(sampler);
  EXPECT_EQ(sampler->spec(), "pidfile:" + pidfile.string());
  const Sample before = sampler->sample(monotonic_ns());
  ASSERT_TRUE(before.ok) << before.error;
  EXPECT_EQ(value(before, "restarts"), 0);
  EXPECT_EQ(reading_kind(before, "restarts"), MetricKind::kCounter);
  const double before_cpu_s = value(before, "cpu_seconds");
  EXPECT_GE(before_cpu_s, 0.08);

  Child second_process(idle_child);
  ASSERT_TRUE(second_process.wait_report());
  write_file(pidfile, std::to_string(second_process.pid()) + "\n");
  const Sample after = sampler->sample(monotonic_ns());
  ASSERT_TRUE(after.ok) << after.error;
  EXPECT_EQ(value(after, "restarts"), 1);
  // The old process's last value is carried over once: the new one has used next to nothing.
  EXPECT_GE(value(after, "cpu_seconds"), before_cpu_s);
  EXPECT_LT(value(after, "cpu_seconds"), before_cpu_s + 0.05);
  EXPECT_GE(value(after, "cpu_user_seconds"), value(before, "cpu_user_seconds"));
  EXPECT_GE(value(after, "cpu_system_seconds"), value(before, "cpu_system_seconds"));

  const Sample again = sampler->sample(monotonic_ns());
  ASSERT_TRUE(again.ok) << again.error;
  EXPECT_EQ(value(again, "restarts"), 1);  // same process: no restart
}

TEST(ProcessSampler, AProcessThatExitsIsAGapAndAPidfileMayPointAtALiveOneAgain) {
  TempDir dir;
  const std::filesystem::path pidfile = dir.path() / "app.pid";
  auto first_process = std::make_unique<Child>(idle_child);
  ASSERT_TRUE(first_process->wait_report());
  const std::string first_pid = std::to_string(first_process->pid());
  write_file(pidfile, first_pid);
  const auto sampler = make_proc_sampler("pidfile:" + pidfile.string());
  ASSERT_TRUE(sampler->sample(1).ok);

  first_process->kill_leaving_zombie();
  Sample gap = sampler->sample(2);
  EXPECT_FALSE(gap.ok);
  EXPECT_EQ(gap.error, "process " + first_pid + " (pid from " + pidfile.string() +
                           ") has exited (a zombie, not yet reaped by its parent)");
  first_process->reap();
  gap = sampler->sample(3);
  EXPECT_FALSE(gap.ok);
  EXPECT_EQ(gap.error, "process " + first_pid + " (pid from " + pidfile.string() + ") is gone");
  EXPECT_TRUE(gap.readings.empty());

  Child second_process(idle_child);
  ASSERT_TRUE(second_process.wait_report());
  write_file(pidfile, std::to_string(second_process.pid()) + "\n");
  const Sample back = sampler->sample(4);
  ASSERT_TRUE(back.ok) << back.error;
  EXPECT_EQ(value(back, "restarts"), 1);
}

TEST(ProcessSampler, AMissingEmptyOrGarbagePidfileIsAGap) {
  TempDir dir;
  const std::filesystem::path pidfile = dir.path() / "app.pid";
  // The file need not exist when the sampler is made: a server may not have started yet.
  const auto sampler = make_proc_sampler("pidfile:" + pidfile.string());
  Sample gap = sampler->sample(1);
  EXPECT_FALSE(gap.ok);
  EXPECT_EQ(gap.error, "pidfile " + pidfile.string() + ": No such file or directory");
  write_file(pidfile, " \n");
  gap = sampler->sample(2);
  EXPECT_EQ(gap.error, "pidfile " + pidfile.string() + " is empty");
  write_file(pidfile, "started\x01\n");
  gap = sampler->sample(3);
  EXPECT_EQ(gap.error, "pidfile " + pidfile.string() + " holds no pid: \"started?\"");
  write_file(pidfile, "-1");
  gap = sampler->sample(4);
  EXPECT_EQ(gap.error, "pidfile " + pidfile.string() + " holds no pid: \"-1\"");
  EXPECT_FALSE(gap.ok);

  Child process(idle_child);
  ASSERT_TRUE(process.wait_report());
  write_file(pidfile, std::to_string(process.pid()));
  const Sample sample = sampler->sample(5);
  ASSERT_TRUE(sample.ok) << sample.error;
  EXPECT_EQ(value(sample, "restarts"), 0);  // the first process seen
}

TEST(ProcessSampler, AWatchedPidThatExitsIsAGap) {
  Child process(idle_child);
  ASSERT_TRUE(process.wait_report());
  const std::string pid = std::to_string(process.pid());
  const auto sampler = make_proc_sampler("pid:" + pid);
  ASSERT_TRUE(sampler->sample(1).ok);
  process.kill_leaving_zombie();
  EXPECT_EQ(sampler->sample(2).error,
            "process " + pid + " has exited (a zombie, not yet reaped by its parent)");
  process.reap();
  const Sample gap = sampler->sample(3);
  EXPECT_FALSE(gap.ok);
  EXPECT_EQ(gap.error, "process " + pid + " is gone");
}

}  // namespace
}  // namespace proofload::observe
