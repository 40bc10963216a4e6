// The run settings of where the load goes and what it sends (run_settings.h): more targets, the
// streams' rules, and the request itself.
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
namespace {

void stream_rule_needs_stream(const RunSpec& spec) {
  if (!spec.stream) {
    throw UsageError(
        "--stream-content, --stream-tokens, --stream-end and --stream-fixture need --stream sse "
        "(or chunked)");
  }
}

}  // namespace

// An entry leaves out what it does not have (RunSetting's members default to empty and null);
// GCC 12 warns of designated initializers that do, so the warning is off for the table alone.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
constexpr RunSetting kTargetAndStream[] = {
    {.name = "target",
     .flags = "--target",
     .takes = SettingTakes::kTexts,
     .scope = SettingScope::kEveryLoad,
     .help = "Another URL of the same request (repeatable; the same scheme and path): "
             "connection i goes to target i mod n, the first being the URL given",
     .read = [](const Texts& texts, RunSpec& spec) { spec.more_targets = texts; },
     .check =
         [](const RunSpec& spec) {
           if (spec.more_targets.empty()) return;
           const http::Url first = http::parse_url(spec.target);
           for (const std::string& more : spec.more_targets) {
             const http::Url url = http::parse_url(more);
             if (url.scheme != first.scheme || url.path_and_query != first.path_and_query ||
                 (url.tls() && url.host != first.host)) {
               throw UsageError("--target " + more + " differs from " + spec.target +
                                " in more than host and port: the targets of one run share the "
                                "scheme and path (over https, the host too)");
             }
           }
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           for (const std::string& more : spec.more_targets) args.option("--target", more);
         },
     .plan =
         [](const RunSpec& spec, Planning& planning) {
           if (spec.more_targets.empty()) return;
           std::vector<std::string> targets = {spec.target};
           targets.insert(targets.end(), spec.more_targets.begin(), spec.more_targets.end());
           planning.recorded.targets = std::move(targets);
         }},
    {.name = "stream",
     .flags = "--stream",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "Read every response as a stream, event by event: sse (server-sent events) or "
             "chunked (each chunk an event)",
     .group = "Streams",
     .read =
         [](const Texts& texts, RunSpec& spec) {
           spec.stream.emplace();
           spec.stream->kind = one(texts);
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.stream) args.option("--stream", spec.stream->kind);
         }},
    {.name = "stream-content",
     .flags = "--stream-content",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "Which events carry content: a JSON pointer (/choices/0/delta/content) or a "
             "regular expression (default: every event with data)",
     .group = "Streams",
     .read =
         [](const Texts& texts, RunSpec& spec) {
           stream_rule_needs_stream(spec);
           spec.stream->content = one(texts);
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.stream && spec.stream->content) {
             args.option("--stream-content", *spec.stream->content);
           }
         }},
    {.name = "stream-tokens",
     .flags = "--stream-tokens",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "JSON pointer of the token count the server reports, e.g. "
             "/usage/completion_tokens (default: one per content event)",
     .group = "Streams",
     .read =
         [](const Texts& texts, RunSpec& spec) {
           stream_rule_needs_stream(spec);
           spec.stream->tokens = one(texts);
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.stream && spec.stream->tokens) {
             args.option("--stream-tokens", *spec.stream->tokens);
           }
         }},
    {.name = "stream-end",
     .flags = "--stream-end",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "The data of the event that ends a stream (default [DONE]; '' for the body's end)",
     .group = "Streams",
     .read =
         [](const Texts& texts, RunSpec& spec) {
           stream_rule_needs_stream(spec);
           spec.stream->terminator = one(texts);
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.stream && spec.stream->terminator) {
             args.option("--stream-end", *spec.stream->terminator);
           }
         }},
    {.name = "stream-fixture",
     .flags = "--stream-fixture",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "A file every stream's bytes must equal, byte for byte (others are counted as "
             "fixture_mismatch, not completed)",
     .group = "Streams",
     .read =
         [](const Texts& texts, RunSpec& spec) {
           stream_rule_needs_stream(spec);
           spec.stream->fixture_path = one(texts);
           spec.stream->fixture = std::make_shared<const std::string>(
               read_bounded_file(one(texts), "fixture", workload::kMaxFixtureBytes));
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.stream && !spec.stream->fixture_path.empty()) {
             args.option("--stream-fixture", spec.stream->fixture_path);
           }
         }},
    {.name = "stream-idle-timeout",
     .flags = "--stream-idle-timeout",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "A stream that has begun and gets no byte for this long ends as idle_timeout "
             "(default: only --timeout)",
     .group = "Streams",
     .read = [](const Texts& texts,
                RunSpec& spec) { spec.stream_idle_timeout_ns = parse_duration_ns(one(texts)); },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.stream_idle_timeout_ns) {
             args.option("--stream-idle-timeout", format_duration(*spec.stream_idle_timeout_ns));
           }
         }},
    {.name = "goodput",
     .flags = "--goodput",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "Per-stream SLO a completed stream must meet to count as goodput, e.g. "
             "'ttft<500ms,itl_p99<100ms,tokens_per_s>=20'",
     .group = "Streams",
     .read = [](const Texts& texts, RunSpec& spec) { spec.goodput = one(texts); },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.goodput) args.option("--goodput", *spec.goodput);
         }},
};
#pragma GCC diagnostic pop

std::span<const RunSetting> target_and_stream_settings() { return kTargetAndStream; }

// An entry leaves out what it does not have (RunSetting's members default to empty and null);
// GCC 12 warns of designated initializers that do, so the warning is off for the table alone.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
constexpr RunSetting kRequest[] = {
    {.name = "method",
     .flags = "-m,--method",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "HTTP method",
     .default_text = "GET",
     .read = [](const Texts& texts, RunSpec& spec) { spec.method = one(texts); },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.method != RunSpec{}.method) args.option("-m", spec.method);
         }},
    // -H values that look secret are shown as variables, with a note at the end of the command
    // (run_command_text).
    {.name = "header",
     .flags = "-H,--header",
     .takes = SettingTakes::kTexts,
     .scope = SettingScope::kEveryLoad,
     .help = "Request header 'Name: value' (repeatable)",
     .read =
         [](const Texts& texts, RunSpec& spec) {
           for (const std::string& h : texts) spec.headers.push_back(http::parse_header_flag(h));
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           for (const auto& [name, value] : spec.headers) {
             args.raw("-H " + shown_header_argument(name + ": " + value, args.variables()));
           }
         }},
    {.name = "body",
     .flags = "--body",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "Request body",
     .read = [](const Texts& texts, RunSpec& spec) { spec.body = one(texts); },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.body) args.option("--body", *spec.body);
         }},
    {.name = "body-file",
     .flags = "--body-file",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "Request body from a file",
     .read = [](const Texts& texts, RunSpec& spec) { spec.body_file = one(texts); },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.body_file) args.option("--body-file", *spec.body_file);
         }},
};
#pragma GCC diagnostic pop

std::span<const RunSetting> request_settings() { return kRequest; }

}  // namespace proofload::plan::settings
