// The run settings of how the generator runs and what it records besides the load (run_settings.h):
// workers, I/O, sources, segments, thresholds, the seed, observers, reconcile.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "common/clock.h"
#include "common/file_text.h"
#include "common/text.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "common/wall_time.h"
#include "http/url.h"
#include "net/io_backend.h"
#include "net/tcp.h"
#include "observe/factory.h"
#include "observe/reconcile_source.h"
#include "plan/redaction.h"
#include "plan/run_settings_parts.h"
#include "plan/segment.h"
#include "schedule/open_loop_dispatcher.h"
#include "schedule/stages.h"

namespace proofload::plan::settings {
namespace {

uint64_t read_seed(const std::string& text) {
  uint64_t seed = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    throw UsageError("--seed must be a whole number from 0 to 18446744073709551615, got '" + text +
                     "'");
  }
  return seed;
}

// --io, else PROOFLOAD_IO (so that a test suite or a CI job runs everything over one backend),
// else nullopt: pre-flight picks (net::choose_io_backend).
std::optional<net::IoBackend> io_backend_from(const std::optional<std::string>& flag) {
  const char* env = std::getenv("PROOFLOAD_IO");
  if (!flag && (env == nullptr || *env == '\0')) return std::nullopt;
  const std::string text = flag ? *flag : env;
  if (text == "epoll") return net::IoBackend::kEpoll;
  if (text == "uring" || text == "io_uring") return net::IoBackend::kUring;
  throw UsageError(flag ? "--io must be uring or epoll, got '" + text + "'"
                        : "PROOFLOAD_IO is '" + text + "': it must be uring or epoll");
}

}  // namespace

// An entry leaves out what it does not have (RunSetting's members default to empty and null);
// GCC 12 warns of designated initializers that do, so the warning is off for the table alone.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
constexpr RunSetting kProcess[] = {
    {.name = "workers",
     .flags = "--workers",
     .takes = SettingTakes::kWholeNumber,
     .scope = SettingScope::kEveryLoad,
     .help = "Worker threads (default: one per core)",
     .read = [](const Texts& texts,
                RunSpec& spec) { spec.workers = whole_int(texts, "--workers"); },
     .check =
         [](const RunSpec& spec) {
           if (spec.workers < 0) throw UsageError("--workers must be at least 1");
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.workers != RunSpec{}.workers) {
             args.option("--workers", std::to_string(spec.workers));
           }
         }},
    {.name = "io",
     .flags = "--io",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "What the workers' sockets go through: epoll (the default, or PROOFLOAD_IO's) or "
             "uring (io_uring; where the kernel refuses it, epoll with a note)",
     .read_when_absent = true,  // PROOFLOAD_IO stands in for it
     .read =
         [](const Texts& texts, RunSpec& spec) {
           spec.io = io_backend_from(texts.empty() ? std::nullopt
                                                   : std::optional<std::string>(one(texts)));
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.io) args.option("--io", *spec.io == net::IoBackend::kUring ? "uring" : "epoll");
         }},
    {.name = "sources",
     .flags = "--sources",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "Bind the connections to these local addresses, one worker each "
             "(127.0.0.2,127.0.0.3; or a count N: 127.0.0.2 onwards)",
     .read = [](const Texts& texts, RunSpec& spec) { spec.sources = read_sources(one(texts)); },
     .check =
         [](const RunSpec& spec) {
           if (spec.sources.empty()) return;
           if (spec.sources.size() > kMaxSources) {
             throw UsageError(fmt::format("--sources: at most {} addresses, got {}", kMaxSources,
                                          spec.sources.size()));
           }
           if (spec.workers > 0 && static_cast<size_t>(spec.workers) != spec.sources.size()) {
             throw UsageError(
                 "--workers with --sources: each source has its own worker, so leave "
                 "--workers out");
           }
           for (auto i = spec.sources.begin(); i != spec.sources.end(); ++i) {
             if (std::find(spec.sources.begin(), i, *i) != i) {
               throw UsageError("--sources: " + *i + " is given twice");
             }
           }
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (!spec.sources.empty()) {
             args.option("--sources", fmt::format("{}", fmt::join(spec.sources, ",")));
           }
         },
     .plan =
         [](const RunSpec& spec, Planning& planning) {
           if (!spec.sources.empty()) planning.recorded.sources = spec.sources;
         }},
    {.name = "segment",
     .flags = "--segment",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kSegment,
     .help = "Run segment I of N of this load (I from 0 to N-1): its exact share of the "
             "connections, arrivals, -n, data rows and sources; merge the N results with "
             "`proofload merge`",
     .group = "Several machines (docs/distributed.md)",
     .read = [](const Texts& texts,
                RunSpec& spec) { read_segment(one(texts), spec.segment, spec.segments); },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.segments > 1) {
             args.option("--segment", fmt::format("{}/{}", spec.segment, spec.segments));
           }
         },
     .plan =
         [](const RunSpec& spec, Planning& planning) {
           if (spec.segments <= 1) return;
           result::SpecSegment segment;
           segment.index = spec.segment;
           segment.count = spec.segments;
           planning.recorded.segment = segment;
         }},
    // Not in Reproduce: a moment that has passed.
    {.name = "start-at",
     .flags = "--start-at",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kSegment,
     .help = "Start the load at this wall-clock time, RFC 3339 (2026-12-03T10:00:00Z) or "
             "+DURATION from now (+30s): every segment starts together",
     .group = "Several machines (docs/distributed.md)",
     .read =
         [](const Texts& texts, RunSpec& spec) {
           spec.start_at_wall_ns = read_start_at(one(texts), wall_clock_ns());
         },
     .plan =
         [](const RunSpec& spec, Planning& planning) {
           if (spec.start_at_wall_ns) planning.recorded.start_at_unix_ns = *spec.start_at_wall_ns;
         }},
    {.name = "threshold",
     .flags = "--threshold",
     .takes = SettingTakes::kTexts,
     .scope = SettingScope::kRunShape,
     .help = "Pass/fail bar checked at the end, e.g. 'p95 < 200ms', 'errors < 1%' (repeatable; "
             "exit 99 when one fails)",
     .read = [](const Texts& texts, RunSpec& spec) { spec.thresholds = texts; },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           for (const std::string& t : spec.thresholds) args.option("--threshold", t);
         }},
    // Reproduce shows the seed a scenario drew with (run_command_text puts it here).
    {.name = "seed",
     .flags = "--seed",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "Seed of the data and mix draws (default: from the clock)",
     .read = [](const Texts& texts, RunSpec& spec) { spec.seed = read_seed(one(texts)); },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.seed) args.option("--seed", std::to_string(*spec.seed));
         }},
    {.name = "observe",
     .flags = "--observe",
     .takes = SettingTakes::kTexts,
     .scope = SettingScope::kEveryLoad,
     .help = "Watch a source while the load runs (repeatable): pid:N, pidfile:PATH, "
             "cgroup:PATH, prom:URL[?match=a,b], k8s:NAMESPACE/SELECTOR, host (the generator "
             "itself always)",
     .read = [](const Texts& texts, RunSpec& spec) { spec.observe = texts; },
     // The form only: --plan reaches nothing (the run makes each sampler, and looks).
     .check =
         [](const RunSpec& spec) {
           for (const std::string& o : spec.observe) observe::check_sampler_spec(o);
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           for (const std::string& o : spec.observe) args.option("--observe", o);
         },
     .plan = [](const RunSpec& spec,
                Planning& planning) { planning.recorded.observe = spec.observe; }},
    {.name = "observe-every",
     .flags = "--observe-every",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "How often observers sample, 10ms to 1s",
     .default_text = "1s",
     .read = [](const Texts& texts,
                RunSpec& spec) { spec.observe_every_ns = parse_duration_ns(one(texts)); },
     .check =
         [](const RunSpec& spec) {
           if (spec.observe_every_ns < 10 * kNsPerMs || spec.observe_every_ns > kNsPerS) {
             throw UsageError("--observe-every must be between 10ms and the window (1s), got '" +
                              format_duration(spec.observe_every_ns) + "'");
           }
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.observe_every_ns != RunSpec{}.observe_every_ns) {
             args.option("--observe-every", format_duration(spec.observe_every_ns));
           }
         },
     .plan =
         [](const RunSpec& spec, Planning& planning) {
           planning.recorded.observe_every_s = seconds_of(spec.observe_every_ns);
         }},
    {.name = "reconcile",
     .flags = "--reconcile",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "Set the successes against the server's own count, read before and after the run: "
             "prom:URL#METRIC{label=\"value\"} or a command printing the number",
     .read =
         [](const Texts& texts, RunSpec& spec) {
           observe::parse_reconcile_spec(one(texts));  // a malformed source is said first
           spec.reconcile = one(texts);
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.reconcile) args.option("--reconcile", *spec.reconcile);
         },
     // Absent without: files unchanged.
     .plan =
         [](const RunSpec& spec, Planning& planning) {
           if (spec.reconcile) planning.recorded.reconcile = *spec.reconcile;
         }},
};
#pragma GCC diagnostic pop

std::span<const RunSetting> process_settings() { return kProcess; }

}  // namespace proofload::plan::settings
