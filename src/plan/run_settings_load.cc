// The run settings of the load's shape and its pool (run_settings.h): rate, executor, stages,
// connections, duration, warm-up, -n, the open loop's queue.
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
#include "net/tcp.h"
#include "observe/reconcile_source.h"
#include "plan/redaction.h"
#include "plan/run_settings_parts.h"
#include "plan/segment.h"
#include "schedule/open_loop_dispatcher.h"
#include "schedule/stages.h"

namespace proofload::plan::settings {

// An entry leaves out what it does not have (RunSetting's members default to empty and null);
// GCC 12 warns of designated initializers that do, so the warning is off for the table alone.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
constexpr RunSetting kLoad[] = {
    // --rate means an open loop unless --executor (read after it) says otherwise.
    {.name = "rate",
     .flags = "--rate",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kRunShape,
     .help = "Open loop: requests per second (e.g. 1000, 2.5k)",
     .read =
         [](const Texts& texts, RunSpec& spec) {
           spec.rate_per_s = parse_rate_per_s(one(texts));
           spec.executor = engine::Executor::kOpenLoop;
         },
     .check =
         [](const RunSpec& spec) {
           if (spec.rate_per_s && *spec.rate_per_s <= 0) {
             throw UsageError("--rate must be more than 0, got '" +
                              fmt::format("{}", *spec.rate_per_s) + "'");
           }
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.rate_per_s) args.option("--rate", fmt::format("{}", *spec.rate_per_s));
         }},
    {.name = "executor",
     .flags = "--executor",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kRunShape,
     .help = "closed or open (default: open with --rate)",
     .read =
         [](const Texts& texts, RunSpec& spec) {
           const std::string& executor = one(texts);
           if (executor != "open" && executor != "closed") {
             throw UsageError("--executor must be 'open' or 'closed', got '" + executor + "'");
           }
           spec.executor =
               executor == "open" ? engine::Executor::kOpenLoop : engine::Executor::kClosedLoop;
         },
     // Stages need it said; --rate says it.
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (open_loop(spec) && !spec.stages.empty()) args.option("--executor", "open");
         }},
    {.name = "stages",
     .flags = "--stages",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kRunShape,
     .help = "Linear ramps, e.g. 10s:100,30s:1000,10s:0 (rate or connections)",
     .read = [](const Texts& texts,
                RunSpec& spec) { spec.stages = schedule::parse_stages(one(texts)); },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.stages.empty()) return;
           std::string stages;
           for (const schedule::Stage& s : spec.stages) {
             stages += (stages.empty() ? "" : ",") + format_duration(s.duration_ns) + ":" +
                       fmt::format("{}", s.target);
           }
           args.option("--stages", stages);
         }},
    {.name = "connections",
     .flags = "-c,--connections",
     .takes = SettingTakes::kWholeNumber,
     .scope = SettingScope::kRunShape,
     .help = "Closed loop: connections (virtual users). Open loop: initial pool",
     .default_text = "10",
     .read = [](const Texts& texts, RunSpec& spec) { spec.connections = whole_int(texts, "-c"); },
     .check =
         [](const RunSpec& spec) {
           if (spec.connections < 1) {
             throw UsageError("-c must be at least 1, got " + std::to_string(spec.connections));
           }
           if (spec.connections > kMaxConnections) {
             throw UsageError("-c must be at most " + std::to_string(kMaxConnections) + ", got " +
                              std::to_string(spec.connections));
           }
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.connections != RunSpec{}.connections) {
             args.option("-c", std::to_string(spec.connections));
           }
         }},
    {.name = "max-connections",
     .flags = "--max-connections",
     .takes = SettingTakes::kWholeNumber,
     .scope = SettingScope::kEveryLoad,
     .help = "Open loop: the pool may grow to this many connections (default -c)",
     .read = [](const Texts& texts,
                RunSpec& spec) { spec.max_connections = whole_int(texts, "--max-connections"); },
     .check =
         [](const RunSpec& spec) {
           if (spec.max_connections && *spec.max_connections > kMaxConnections) {
             throw UsageError("--max-connections must be at most " +
                              std::to_string(kMaxConnections));
           }
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.max_connections) {
             args.option("--max-connections", std::to_string(*spec.max_connections));
           }
         }},
    {.name = "duration",
     .flags = "-d,--duration",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kRunShape,
     // Not a RunSpec default: without -d, plan_run runs 10 s, or until -n's requests are done.
     .help = "How long to run, e.g. 30s, 5m (default 10s; with -n, until its requests are done)",
     .read = [](const Texts& texts,
                RunSpec& spec) { spec.duration_ns = parse_duration_ns(one(texts)); },
     .check =
         [](const RunSpec& spec) {
           if (spec.duration_ns && *spec.duration_ns <= 0) {
             throw UsageError("-d must be longer than 0, got '" +
                              format_duration(*spec.duration_ns) + "'");
           }
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.duration_ns) args.option("-d", format_duration(*spec.duration_ns));
         }},
    {.name = "warmup",
     .flags = "--warmup",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kRunShape,
     .help = "Recorded apart and excluded from the results",
     .default_text = "0s",
     .read = [](const Texts& texts,
                RunSpec& spec) { spec.warmup_ns = parse_duration_ns(one(texts)); },
     .check =
         [](const RunSpec& spec) {
           if (spec.warmup_ns < 0) throw UsageError("--warmup must not be negative");
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.warmup_ns != RunSpec{}.warmup_ns) {
             args.option("--warmup", format_duration(spec.warmup_ns));
           }
         }},
    {.name = "requests",
     .flags = "-n,--requests",
     .takes = SettingTakes::kWholeNumber,
     .scope = SettingScope::kRunShape,
     .help = "Stop after this many requests",
     .read = [](const Texts& texts, RunSpec& spec) { spec.requests_limit = whole(texts); },
     .check =
         [](const RunSpec& spec) {
           if (spec.requests_limit && *spec.requests_limit < 1) {
             throw UsageError("-n must be at least 1 (leave it out for no request limit), got " +
                              std::to_string(*spec.requests_limit));
           }
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.requests_limit) args.option("-n", std::to_string(*spec.requests_limit));
         },
     .plan =
         [](const RunSpec& spec, Planning& planning) {
           planning.recorded.requests_limit = result::Field<int64_t>::or_null(spec.requests_limit);
         }},
    {.name = "queue",
     .flags = "--queue",
     .takes = SettingTakes::kWholeNumber,
     .scope = SettingScope::kEveryLoad,
     .help = "Open loop: requests that may wait for a connection",
     .default_text = "10000",
     .read = [](const Texts& texts, RunSpec& spec) { spec.queue = whole(texts); },
     .check =
         [](const RunSpec& spec) {
           if (spec.queue < 0) throw UsageError("--queue must not be negative");
           if (spec.queue > static_cast<int64_t>(schedule::OpenLoopDispatcher::kMaxQueueCapacity)) {
             throw UsageError("--queue must be at most " +
                              std::to_string(schedule::OpenLoopDispatcher::kMaxQueueCapacity));
           }
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.queue != RunSpec{}.queue) args.option("--queue", std::to_string(spec.queue));
         },
     .plan = [](const RunSpec& spec,
                Planning& planning) { planning.recorded.queue_capacity = spec.queue; }},
};
#pragma GCC diagnostic pop

std::span<const RunSetting> load_settings() { return kLoad; }

}  // namespace proofload::plan::settings
