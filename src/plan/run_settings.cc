// See run_settings.h. The table below is in the order the Reproduce command writes the settings
// (`--executor open` only with stages, so after --rate); help lists them in the same order.
#include "plan/run_settings.h"

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
#include "plan/segment.h"
#include "schedule/open_loop_dispatcher.h"
#include "schedule/stages.h"

namespace proofload::plan {

void CommandArgs::option(std::string_view flag, const std::string& value) {
  text_ += fmt::format(" {} {}", flag, shell_quote(value));
}
void CommandArgs::flag(std::string_view flag) { text_ += fmt::format(" {}", flag); }
void CommandArgs::raw(const std::string& text) { text_ += " " + text; }

// Named, inside the unnamed namespace: this file may be compiled in a unity batch with others.
namespace {
namespace settings {

constexpr int64_t kLatestPastNs = int64_t{24} * 3600 * kNsPerS;
constexpr int64_t kFurthestAheadNs = int64_t{366} * 24 * 3600 * kNsPerS;

using Texts = std::vector<std::string>;

const std::string& one(const Texts& texts) { return texts.back(); }

// A whole number the CLI has already read as one (SettingTakes::kWholeNumber).
int64_t whole(const Texts& texts) {
  int64_t value = 0;
  const std::string& text = one(texts);
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    throw UsageError("'" + text + "' is not a whole number");
  }
  return value;
}

int whole_int(const Texts& texts, std::string_view flag) {
  const int64_t value = whole(texts);
  if (value < INT_MIN || value > INT_MAX) {
    throw UsageError(fmt::format("{} must be at most {}, got {}", flag, INT_MAX, value));
  }
  return static_cast<int>(value);
}

double seconds_of(int64_t ns) { return static_cast<double>(ns) / 1e9; }

bool open_loop(const RunSpec& spec) { return spec.executor == engine::Executor::kOpenLoop; }

void stream_rule_needs_stream(const RunSpec& spec) {
  if (!spec.stream) {
    throw UsageError(
        "--stream-content, --stream-tokens, --stream-end and --stream-fixture need --stream sse "
        "(or chunked)");
  }
}

void duration_at_least(std::string_view flag, int64_t ns) {
  if (ns <= 0) {
    throw UsageError(fmt::format("{} must be longer than 0, got '{}'", flag, format_duration(ns)));
  }
}

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
  std::string text;
  if (flag) {
    text = *flag;
  } else if (const char* env = std::getenv("PROOFLOAD_IO"); env != nullptr && *env != '\0') {
    text = env;
    if (text != "uring" && text != "io_uring" && text != "epoll") {
      throw UsageError("PROOFLOAD_IO is '" + text + "': it must be uring or epoll");
    }
  } else {
    return std::nullopt;
  }
  if (text != "uring" && text != "io_uring" && text != "epoll") {
    throw UsageError("--io must be uring or epoll, got '" + text + "'");
  }
  return text == "epoll" ? net::IoBackend::kEpoll : net::IoBackend::kUring;
}

bool parse_int(std::string_view text, int& out) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

// Each entry below, in the Reproduce command's order. An entry leaves out what it does not have
// (RunSetting's members default to empty and null); GCC 12 warns of designated initializers
// that do, so the warning is off for the table alone.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
constexpr RunSetting kSettings[] = {
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
    {.name = "timeout",
     .flags = "--timeout",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "Request timeout, also the longest wait in the queue",
     .default_text = "10s",
     .read = [](const Texts& texts,
                RunSpec& spec) { spec.send.request_timeout_ns = parse_duration_ns(one(texts)); },
     .check =
         [](const RunSpec& spec) { duration_at_least("--timeout", spec.send.request_timeout_ns); },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.send.request_timeout_ns != RunSpec{}.send.request_timeout_ns) {
             args.option("--timeout", format_duration(spec.send.request_timeout_ns));
           }
         },
     .plan =
         [](const RunSpec& spec, Planning& planning) {
           planning.recorded.timeout_s = seconds_of(spec.send.request_timeout_ns);
         }},
    {.name = "connect-timeout",
     .flags = "--connect-timeout",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "Connect timeout",
     .default_text = "5s",
     .read = [](const Texts& texts,
                RunSpec& spec) { spec.send.connect_timeout_ns = parse_duration_ns(one(texts)); },
     .check =
         [](const RunSpec& spec) {
           duration_at_least("--connect-timeout", spec.send.connect_timeout_ns);
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.send.connect_timeout_ns != RunSpec{}.send.connect_timeout_ns) {
             args.option("--connect-timeout", format_duration(spec.send.connect_timeout_ns));
           }
         },
     .plan =
         [](const RunSpec& spec, Planning& planning) {
           planning.recorded.connect_timeout_s = seconds_of(spec.send.connect_timeout_ns);
         }},
    {.name = "grace",
     .flags = "--grace",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "Time for in-flight requests to finish at the end or on Ctrl-C",
     .default_text = "5s",
     .read = [](const Texts& texts,
                RunSpec& spec) { spec.send.grace_ns = parse_duration_ns(one(texts)); },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.send.grace_ns != RunSpec{}.send.grace_ns) {
             args.option("--grace", format_duration(spec.send.grace_ns));
           }
         },
     .plan =
         [](const RunSpec& spec, Planning& planning) {
           planning.recorded.grace_s = seconds_of(spec.send.grace_ns);
         }},
    // Connection setup (and the TLS handshake) as part of every request's cost, as ab without -k,
    // hey's -disable-keepalive and k6's --no-connection-reuse measure it. The request asks
    // `Connection: close`, so that the server closes first and holds the TIME_WAIT, not the
    // generator's ports.
    {.name = "no-connection-reuse",
     .flags = "--no-connection-reuse",
     .takes = SettingTakes::kSwitch,
     .scope = SettingScope::kEveryLoad,
     .help = "A new connection for every request (HTTP/1.1): each asks Connection: close and is "
             "closed after its answer, so connecting (and TLS's handshake) is part of each one",
     .aliases = "--disable-keepalive",
     .read = [](const Texts&, RunSpec& spec) { spec.send.reuse_connections = false; },
     .check =
         [](const RunSpec& spec) {
           if (!spec.send.reuse_connections && spec.protocol == engine::Protocol::kHttp2) {
             throw UsageError(
                 "--no-connection-reuse is for HTTP/1.1: an HTTP/2 connection carries many "
                 "requests by design; drop --http2");
           }
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (!spec.send.reuse_connections) args.flag("--no-connection-reuse");
         },
     .plan =
         [](const RunSpec& spec, Planning& planning) {
           if (spec.send.reuse_connections) return;  // absent: files unchanged
           planning.request.headers.emplace_back("Connection", "close");
           planning.recorded.record_key("connection_reuse", false);
         }},
    {.name = "cacert",
     .flags = "--cacert",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "Trust the CA certificates in this PEM file",
     .group = "TLS (https://)",
     .read = [](const Texts& texts, RunSpec& spec) { spec.tls.ca_file = one(texts); },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (!spec.tls.ca_file.empty()) args.option("--cacert", spec.tls.ca_file);
         }},
    {.name = "insecure",
     .flags = "--insecure",
     .takes = SettingTakes::kSwitch,
     .scope = SettingScope::kEveryLoad,
     .help = "Do not verify the server's certificate (chain or name)",
     .group = "TLS (https://)",
     .read = [](const Texts&, RunSpec& spec) { spec.tls.verify = false; },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (!spec.tls.verify) args.flag("--insecure");
         }},
    {.name = "sni",
     .flags = "--sni",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "Server name to send and to verify (default: the URL's host)",
     .group = "TLS (https://)",
     .read = [](const Texts& texts, RunSpec& spec) { spec.tls.server_name = one(texts); },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (!spec.tls.server_name.empty()) args.option("--sni", spec.tls.server_name);
         }},
    {.name = "cert",
     .flags = "--cert",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "Client certificate (PEM), with --key",
     .group = "TLS (https://)",
     .read = [](const Texts& texts, RunSpec& spec) { spec.tls.cert_file = one(texts); },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (!spec.tls.cert_file.empty()) args.option("--cert", spec.tls.cert_file);
         }},
    {.name = "key",
     .flags = "--key",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "The client certificate's private key (PEM)",
     .group = "TLS (https://)",
     .read = [](const Texts& texts, RunSpec& spec) { spec.tls.key_file = one(texts); },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (!spec.tls.key_file.empty()) args.option("--key", spec.tls.key_file);
         }},
    {.name = "tls-min",
     .flags = "--tls-min",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "Lowest TLS version: 1.2 or 1.3",
     .group = "TLS (https://)",
     .default_text = "1.2",
     .read =
         [](const Texts& texts, RunSpec& spec) {
           const std::string& version = one(texts);
           if (version != "1.2" && version != "1.3") {
             throw UsageError("--tls-min must be 1.2 or 1.3, got '" + version + "'");
           }
           spec.tls.min_version = version == "1.3" ? TLS1_3_VERSION : TLS1_2_VERSION;
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.tls.min_version == TLS1_3_VERSION) args.option("--tls-min", "1.3");
         }},
    {.name = "no-tls-resume",
     .flags = "--no-tls-resume",
     .takes = SettingTakes::kSwitch,
     .scope = SettingScope::kEveryLoad,
     .help = "A full handshake on every connection (default: resume sessions)",
     .group = "TLS (https://)",
     .read = [](const Texts&, RunSpec& spec) { spec.tls.resume = false; },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (!spec.tls.resume) args.flag("--no-tls-resume");
         }},
    {.name = "http2",
     .flags = "--http2",
     .takes = SettingTakes::kSwitch,
     .scope = SettingScope::kEveryLoad,
     .help = "HTTP/2: ALPN h2 over https, prior knowledge (h2c) over http",
     .group = "HTTP/2",
     .read = [](const Texts&, RunSpec& spec) { spec.protocol = engine::Protocol::kHttp2; },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.protocol == engine::Protocol::kHttp2) args.flag("--http2");
         }},
    {.name = "h2-streams",
     .flags = "--h2-streams",
     .takes = SettingTakes::kWholeNumber,
     .scope = SettingScope::kEveryLoad,
     .help = "Requests in flight on each connection, as streams (default 1; never more than the "
             "server allows)",
     .group = "HTTP/2",
     .read = [](const Texts& texts,
                RunSpec& spec) { spec.h2_streams = whole_int(texts, "--h2-streams"); },
     .check =
         [](const RunSpec& spec) {
           if (spec.h2_streams && spec.protocol != engine::Protocol::kHttp2) {
             throw UsageError("--h2-streams is for HTTP/2: add --http2");
           }
           if (spec.h2_streams && (*spec.h2_streams < 1 || *spec.h2_streams > kMaxH2Streams)) {
             throw UsageError("--h2-streams must be between 1 and " +
                              std::to_string(kMaxH2Streams) + ", got " +
                              std::to_string(*spec.h2_streams));
           }
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (spec.h2_streams) args.option("--h2-streams", std::to_string(*spec.h2_streams));
         }},
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
    // Read even when not given: PROOFLOAD_IO stands in for it.
    {.name = "io",
     .flags = "--io",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "What the workers' sockets go through: epoll (the default, or PROOFLOAD_IO's) or "
             "uring (io_uring; where the kernel refuses it, epoll with a note)",
     .read = [](const Texts& texts, RunSpec& spec) { spec.io = io_backend_from(one(texts)); },
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

}  // namespace settings
}  // namespace

std::vector<std::string> read_sources(const std::string& text) {
  int count = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (!text.empty() && error == std::errc() && end == text.data() + text.size()) {
    if (count < 1 || static_cast<size_t>(count) > kMaxSources) {
      throw UsageError(
          fmt::format("--sources {}: a count of loopback addresses is 1 to {}", text, kMaxSources));
    }
    std::vector<std::string> addresses;
    for (int i = 0; i < count; ++i) addresses.push_back(fmt::format("127.0.0.{}", i + 2));
    return addresses;
  }
  std::vector<std::string> addresses;
  std::stringstream list(text);
  for (std::string address; std::getline(list, address, ',');) {
    address = std::string(trim_spaces_tabs(address));
    if (address.empty()) throw UsageError("--sources '" + text + "' has an empty address");
    net::local_address(address);  // a numeric IP address, or one line saying it is not
    addresses.push_back(address);
  }
  if (addresses.empty()) throw UsageError("--sources needs addresses or a count");
  return addresses;
}

void read_segment(const std::string& text, int& index, int& count) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos ||
      !settings::parse_int(std::string_view(text).substr(0, slash), index) ||
      !settings::parse_int(std::string_view(text).substr(slash + 1), count)) {
    throw UsageError("--segment '" + text + "': expected I/N, such as 0/3 (I from 0 to N-1)");
  }
}

int64_t read_start_at(const std::string& text, int64_t now_wall_ns) {
  int64_t at = 0;
  if (text.starts_with('+')) {
    try {
      at = now_wall_ns + parse_duration_ns(std::string_view(text).substr(1));
    } catch (const UsageError&) {
      throw UsageError("--start-at '" + text + "': expected +DURATION such as +30s");
    }
  } else if (const std::optional<int64_t> parsed = parse_rfc3339_unix_ns(text)) {
    at = *parsed;
  } else {
    throw UsageError("--start-at '" + text +
                     "': expected an RFC 3339 time (2026-12-03T10:00:00Z) or +DURATION (+30s)");
  }
  if (at < now_wall_ns - settings::kLatestPastNs) {
    throw UsageError("--start-at '" + text + "' is more than a day ago");
  }
  if (at > now_wall_ns + settings::kFurthestAheadNs) {
    throw UsageError("--start-at '" + text + "' is more than a year ahead");
  }
  return at;
}

std::span<const RunSetting> run_settings() { return settings::kSettings; }

const RunSetting* find_run_setting(std::string_view name) {
  for (const RunSetting& setting : settings::kSettings) {
    if (setting.name == name) return &setting;
  }
  return nullptr;
}

void read_settings(const SettingTexts& texts, RunSpec& spec) {
  for (const RunSetting& setting : settings::kSettings) {
    const auto given = texts.find(setting.name);
    if (given != texts.end() && !given->second.empty()) {
      setting.read(given->second, spec);
    } else if (setting.name == "io") {
      spec.io = settings::io_backend_from(std::nullopt);  // PROOFLOAD_IO
    }
  }
}

void check_settings(const RunSpec& spec) {
  for (const RunSetting& setting : settings::kSettings) {
    if (setting.check != nullptr) setting.check(spec);
  }
}

void plan_settings(const RunSpec& spec, Planning& planning) {
  for (const RunSetting& setting : settings::kSettings) {
    if (setting.plan != nullptr) setting.plan(spec, planning);
  }
}

}  // namespace proofload::plan
