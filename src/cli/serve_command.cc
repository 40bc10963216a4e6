// `proofload serve`: turns flags into ServerOptions, prints the one "listening on" line that
// scripts and tests read the port from, and serves until SIGTERM or SIGINT, or --exit-after
// (exit 0 for each).
#include <signal.h>
#include <time.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "cli/subcommand.h"
#include "common/clock.h"
#include "common/file_text.h"
#include "common/stop_signals.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "net/self_signed.h"
#include "net/tcp.h"
#include "report/atomic_file.h"
#include "serve/routes/routes_yaml.h"
#include "serve/server.h"

namespace proofload::cli {

namespace {

struct ServeFlags {
  std::string host = "127.0.0.1";
  int port = 8080;
  std::string body = "ok\n";
  int64_t body_size = -1;  // < 0: use body
  std::string delay = "0s";
  std::string stall;
  std::string stall_every;
  std::string stall_first;
  int threads = 1;
  std::string routes_file;  // --routes FILE
  std::string profile;      // --profile NAME
  std::string request_timeout = "30s";
  std::string idle_timeout = "60s";
  int max_connections = 10'000;
  std::string exit_after;       // --exit-after DURATION: stop by itself, for a restart
  std::string tls_cert;         // --tls-cert FILE (PEM, the chain)
  std::string tls_key;          // --tls-key FILE
  std::string tls_self_signed;  // --tls-self-signed FILE: make one, write its certificate there
};

// The certificate and key a TLS server uses (PEM), from the flags; none for plain HTTP.
void add_tls(const ServeFlags& flags, serve::ServerOptions& options) {
  constexpr int64_t kMaxPemBytes = 1 << 20;
  if (!flags.tls_self_signed.empty()) {
    const net::PemPair pem = net::make_self_signed("localhost");
    report::write_file_atomically(flags.tls_self_signed, pem.certificate);
    options.tls_certificate_pem = pem.certificate;
    options.tls_key_pem = pem.private_key;
    return;
  }
  if (flags.tls_cert.empty() != flags.tls_key.empty()) {
    throw UsageError("--tls-cert and --tls-key go together (the certificate and its key)");
  }
  if (flags.tls_cert.empty()) return;
  options.tls_certificate_pem = read_bounded_file(flags.tls_cert, "--tls-cert", kMaxPemBytes);
  options.tls_key_pem = read_bounded_file(flags.tls_key, "--tls-key", kMaxPemBytes);
}

int64_t duration_flag_ns(const std::string& text, const char* flag) {
  try {
    return parse_duration_ns(text);
  } catch (const UsageError& e) {
    throw UsageError(std::string(flag) + ": " + e.what());
  }
}

serve::ServerOptions to_options(const ServeFlags& flags) {
  serve::ServerOptions options;
  options.host = flags.host;
  options.port = flags.port;
  options.threads = flags.threads;
  if (flags.body_size >= 0) {
    // A body of a chosen size: letters, ending in a newline so it reads well in a terminal.
    options.body.assign(static_cast<size_t>(flags.body_size), 'x');
    if (!options.body.empty()) options.body.back() = '\n';
  } else {
    options.body = flags.body;
  }
  options.delay_ns = duration_flag_ns(flags.delay, "--delay");
  options.request_timeout_ns = duration_flag_ns(flags.request_timeout, "--timeout");
  options.idle_timeout_ns = duration_flag_ns(flags.idle_timeout, "--idle-timeout");
  options.max_connections = flags.max_connections;
  if (!flags.exit_after.empty()) {
    options.exit_after_ns = duration_flag_ns(flags.exit_after, "--exit-after");
    if (options.exit_after_ns <= 0) throw UsageError("--exit-after: must be longer than 0");
  }
  if (!flags.routes_file.empty()) options.routes = serve::load_routes_file(flags.routes_file);
  if (!flags.profile.empty()) options.routes = serve::builtin_profile(flags.profile);
  bool any_stall_flag =
      !flags.stall.empty() || !flags.stall_every.empty() || !flags.stall_first.empty();
  if (any_stall_flag) {
    if (flags.stall.empty() || flags.stall_every.empty()) {
      throw UsageError("--stall and --stall-every go together (e.g. --stall 1s --stall-every 5s)");
    }
    options.stall_ns = duration_flag_ns(flags.stall, "--stall");
    options.stall_every_ns = duration_flag_ns(flags.stall_every, "--stall-every");
    if (!flags.stall_first.empty()) {
      options.stall_first_ns = duration_flag_ns(flags.stall_first, "--stall-first");
    }
  }
  add_tls(flags, options);
  return options;
}

// Something counts from time zero: stalls, a route's drift or faults, --exit-after.
bool has_schedule(const serve::ServerOptions& options) {
  if (options.stall_ns > 0 || options.exit_after_ns > 0) return true;
  if (!options.routes) return false;
  if (options.routes->stalls) return true;
  for (const serve::RouteSpec& route : options.routes->routes) {
    if (route.drift || !route.faults.empty()) return true;
  }
  return false;
}

// "serve: time zero at unix ms 1717243200123 (2024-06-01T12:00:00.123Z); ...": the wall-clock
// moment of the server's monotonic time zero, so a test can tell which seconds a fault covers.
void print_time_zero(const serve::Server& server) {
  int64_t zero_ms = (wall_clock_ns() - (monotonic_ns() - server.start_ns())) / kNsPerMs;
  time_t seconds = static_cast<time_t>(zero_ms / 1000);
  tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &utc);
  std::fprintf(stderr,
               "serve: time zero at unix ms %lld (%s.%03lldZ); stalls, drift, faults and "
               "--exit-after count from it\n",
               static_cast<long long>(zero_ms), text, static_cast<long long>(zero_ms % 1000));
}

// Server::stop() is async-signal-safe.
void stop_server(void* server) { static_cast<serve::Server*>(server)->stop(); }

int serve(const ServeFlags& flags) {
  // A server takes as many connections as the hard limit allows (a load of 10,000 connections
  // must not find it refusing past the usual soft limit of 1,024).
  net::raise_fd_limit(int64_t{1} << 20);  // the kernel's usual fs.nr_open
  serve::ServerOptions options = to_options(flags);
  bool scheduled = has_schedule(options);
  serve::Server server(std::move(options));
  StopSignals signals(stop_server, &server);
  if (!server.notice().empty()) std::fprintf(stderr, "serve: %s\n", server.notice().c_str());
  if (!flags.tls_self_signed.empty()) {
    // stderr: the listening line is on stdout, where scripts read the port.
    std::fprintf(stderr,
                 "serve: TLS with a fresh self-signed certificate for localhost, 127.0.0.1 and "
                 "::1, written to %s (a client trusts it with --cacert %s)\n",
                 flags.tls_self_signed.c_str(), flags.tls_self_signed.c_str());
  }
  // Before the listening line, so a test that has read that line finds this one written.
  if (scheduled) print_time_zero(server);
  std::printf("listening on %s\n", server.address().c_str());
  std::fflush(stdout);
  server.run();
  if (server.exited_after_deadline()) {
    // Exit 0: a planned restart, told apart from a crash by a wrapper or a test's loop.
    std::fprintf(stderr, "serve: --exit-after %s reached: closed gracefully, exit 0\n",
                 flags.exit_after.c_str());
  }
  return kExitOk;
}

}  // namespace

Subcommand add_serve_command(CLI::App& parent) {
  auto flags = std::make_shared<ServeFlags>();
  CLI::App* app = parent.add_subcommand(
      "serve",
      "Run the built-in HTTP/1.1 target (plain or TLS): a fixed 200, or routes with known "
      "behaviours");
  app->add_option("--host", flags->host, "Address to listen on (loopback unless you say so)")
      ->capture_default_str();
  app->add_option("--port", flags->port, "Port to listen on; 0 picks a free one")
      ->capture_default_str();
  CLI::Option* body =
      app->add_option("--body", flags->body, "Body of every response")->default_str("\"ok\\n\"");
  app->add_option("--body-size", flags->body_size, "Answer with a body of N bytes instead")
      ->check(CLI::Range(int64_t{0}, int64_t{64} * 1024 * 1024))
      ->excludes(body);
  app->add_option("--delay", flags->delay,
                  "Send each response this long after its request was read (e.g. 1ms)")
      ->capture_default_str();
  app->add_option("--stall", flags->stall,
                  "Pause the whole server this long, like a GC pause (needs --stall-every)");
  app->add_option("--stall-every", flags->stall_every, "Begin a stall this often (e.g. 5s)");
  app->add_option("--stall-first", flags->stall_first,
                  "When the first stall begins after start (default: --stall-every)");
  app->add_option("--workers", flags->threads, "Event-loop threads, each with its own socket")
      ->capture_default_str();
  add_hidden_alias(app, "--threads", flags->threads);
  CLI::Option* routes = app->add_option("--routes", flags->routes_file,
                                        "Serve the routes of this YAML file (docs/serve-routes.md)")
                            ->excludes(body);
  app->add_option("--timeout", flags->request_timeout,
                  "A request begun but not complete this long gets 408 and a close")
      ->capture_default_str();
  add_hidden_alias(app, "--request-timeout", flags->request_timeout);
  app->add_option("--idle-timeout", flags->idle_timeout,
                  "A connection with no request in progress this long is closed")
      ->capture_default_str();
  app->add_option("--max-connections", flags->max_connections,
                  "Connections held at once; beyond, new ones are closed at once (logged)")
      ->capture_default_str();
  app->add_option("--exit-after", flags->exit_after,
                  "Stop by itself (gracefully, exit 0) this long after it began listening, "
                  "so a wrapper restarts it (e.g. 45s)");
  app->add_option("--profile", flags->profile, "Serve a built-in set of routes: demo, soak-faults")
      ->excludes(routes)
      ->excludes(body);
  CLI::Option* cert =
      app->add_option("--tls-cert", flags->tls_cert, "Serve TLS with this certificate (PEM)")
          ->group("TLS");
  app->add_option("--tls-key", flags->tls_key, "The certificate's private key (PEM)")->group("TLS");
  app->add_option("--tls-self-signed", flags->tls_self_signed,
                  "Serve TLS with a fresh self-signed certificate for localhost, 127.0.0.1 and "
                  "::1, written to this file (for --cacert)")
      ->excludes(cert)
      ->group("TLS");
  return Subcommand{app, [flags] { return serve(*flags); }};
}

}  // namespace proofload::cli
