// The run settings of how each request is sent (run_settings.h): the timeouts, the grace at the
// end, connection reuse, TLS and HTTP/2.
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
constexpr RunSetting kConnection[] = {
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
    // As h2load's -w: a window smaller than a response makes the server wait for the client's
    // WINDOW_UPDATE within it, which is how a large or streamed response holds up under flow
    // control. The window of the whole connection stays large.
    {.name = "h2-window",
     .flags = "--h2-window",
     .takes = SettingTakes::kText,
     .scope = SettingScope::kEveryLoad,
     .help = "The flow-control window of each stream, a size (64KiB): a server sends at most this "
             "much of a response before it waits for the window to grow (default 1 GiB less a "
             "byte: never held)",
     .group = "HTTP/2",
     .read =
         [](const Texts& texts, RunSpec& spec) {
           const std::optional<int64_t> bytes = parse_bytes(one(texts), INT32_MAX);
           if (!bytes || *bytes < 1) {
             throw UsageError(
                 "--h2-window must be a size from 1 byte to 2147483647 bytes "
                 "('64KiB'), got '" +
                 one(texts) + "'");
           }
           spec.send.h2_stream_window_bytes = static_cast<int32_t>(*bytes);
         },
     .check =
         [](const RunSpec& spec) {
           if (spec.send.h2_stream_window_bytes && spec.protocol != engine::Protocol::kHttp2) {
             throw UsageError("--h2-window is for HTTP/2: add --http2");
           }
         },
     .reproduce =
         [](const RunSpec& spec, CommandArgs& args) {
           if (const auto bytes = spec.send.h2_stream_window_bytes) {
             args.option("--h2-window", std::to_string(*bytes));
           }
         },
     .plan =
         [](const RunSpec& spec, Planning& planning) {
           if (const auto bytes = spec.send.h2_stream_window_bytes) {
             planning.recorded.record_key("h2_window_bytes", *bytes);
           }
         }},
};
#pragma GCC diagnostic pop

std::span<const RunSetting> connection_settings() { return kConnection; }

}  // namespace proofload::plan::settings
