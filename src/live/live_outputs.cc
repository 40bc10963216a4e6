// See live_outputs.h.
#include "live/live_outputs.h"

#include <netinet/in.h>

#include <charconv>
#include <cstring>

#include "common/usage_error.h"

namespace proofload::live {
namespace {

// A replay (every kept event, queued at once) must leave a subscriber room for what comes next.
static_assert(kKeptBytes <= kMaxStreamBacklogBytes / 2);

// How long end() lets readers take what they were sent (event: end) before closing anyway: the
// process exits promptly whatever a browser does.
constexpr int64_t kFlushTimeoutNs = 1'000'000'000;

struct HostPort {
  std::string host;  // as it goes in a URL: "127.0.0.1", "[::1]"
  std::string bare;  // as it is resolved: "::1"
  uint16_t port = 0;
};

HostPort split_host_port(const std::string& flag, const std::string& text) {
  const size_t colon = text.rfind(':');
  const auto bad = [&] {
    return UsageError(
        flag + " needs ADDRESS:PORT (127.0.0.1:9464; port 0 for any free one), got '" + text + "'");
  };
  if (colon == std::string::npos || colon == 0) throw bad();
  HostPort out;
  out.host = text.substr(0, colon);
  out.bare = out.host;
  if (out.bare.front() == '[') {
    if (out.bare.size() < 3 || out.bare.back() != ']') throw bad();
    out.bare = out.bare.substr(1, out.bare.size() - 2);
  } else if (out.bare.find(':') != std::string::npos) {
    throw bad();  // an IPv6 address goes in brackets, as in a URL
  }
  const std::string port = text.substr(colon + 1);
  unsigned value = 0;
  auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || error != std::errc() || end != port.data() + port.size() || value > 65535) {
    throw bad();
  }
  out.port = static_cast<uint16_t>(value);
  return out;
}

std::string url_of(const std::string& flag, const std::string& text, uint16_t port) {
  return "http://" + split_host_port(flag, text).host + ":" + std::to_string(port) + "/";
}

}  // namespace

net::Address parse_listen_address(const std::string& flag, const std::string& text) {
  const HostPort where = split_host_port(flag, text);
  try {
    return net::resolve(where.bare, where.port);
  } catch (const UsageError& e) {
    throw UsageError(flag + ": " + e.what());
  }
}

bool is_loopback(const net::Address& address) {
  if (address.storage.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(address.storage);
    return (ntohl(v4.sin_addr.s_addr) >> 24) == 127;
  }
  if (address.storage.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address.storage);
    return std::memcmp(&v6.sin6_addr, &in6addr_loopback, sizeof(in6_addr)) == 0;
  }
  return false;
}

LiveOutputs::LiveOutputs(const LiveSettings& settings) {
  if (settings.dashboard) {
    const std::string what = "--dashboard " + *settings.dashboard;
    const net::Address address = parse_listen_address("--dashboard", *settings.dashboard);
    // The page shows the target, the load and the server's figures: not for the whole network
    // unless asked for.
    if (!is_loopback(address) && !settings.dashboard_public) {
      throw UsageError("--dashboard " + *settings.dashboard +
                       " is not a loopback address: anyone who can reach it sees the run; add "
                       "--dashboard-public to serve it there");
    }
    dashboard_ = std::make_unique<HttpListener>(address, what);
    dashboard_->add_page("/", "text/html; charset=utf-8",
                         [page = settings.page_html] { return page; });
    dashboard_->add_page("/metrics", "text/plain; version=0.0.4; charset=utf-8",
                         [this] { return metrics_.render(); });
    HttpListener* listener = dashboard_.get();
    dashboard_->add_stream(
        "/events", "text/event-stream",
        [this, listener](uint64_t client) {
          feed_.subscribe(client, [listener, client](std::string_view event) {
            return listener->send(client, event);
          });
        },
        [this](uint64_t client) { feed_.unsubscribe(client); }, ": keep-alive\n\n", kKeepAliveNs);
    dashboard_url_ = url_of("--dashboard", *settings.dashboard, dashboard_->port());
  }
  if (settings.metrics_listen) {
    const net::Address address = parse_listen_address("--metrics-listen", *settings.metrics_listen);
    metrics_listener_ =
        std::make_unique<HttpListener>(address, "--metrics-listen " + *settings.metrics_listen);
    metrics_listener_->add_page("/metrics", "text/plain; version=0.0.4; charset=utf-8",
                                [this] { return metrics_.render(); });
    metrics_url_ =
        url_of("--metrics-listen", *settings.metrics_listen, metrics_listener_->port()) + "metrics";
  }
  // Started once both are bound: a port in use stops the command before either serves.
  if (dashboard_) dashboard_->start();
  if (metrics_listener_) metrics_listener_->start();
}

LiveOutputs::~LiveOutputs() { end(); }

void LiveOutputs::begin_step(const std::string& label, std::vector<std::string> request_names) {
  metrics_.begin_step(label, std::move(request_names));
}

void LiveOutputs::add_window(const measure::WindowStats& w, const nlohmann::json& window,
                             const std::string& label, std::optional<double> planned_s) {
  metrics_.add_window(w);
  if (!dashboard_) return;
  nlohmann::json event = {{"window", window}, {"label", label}, {"planned_s", nullptr}};
  if (planned_s) event["planned_s"] = *planned_s;
  // An observer's error text may hold bytes that are not UTF-8: replaced, never thrown.
  feed_.publish(
      sse_event("window", event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
}

void LiveOutputs::end() {
  if (ended_) return;
  ended_ = true;
  feed_.end(sse_event("end", "{}"));
  if (dashboard_) dashboard_->finish("", kFlushTimeoutNs);
  if (metrics_listener_) metrics_listener_->finish("", kFlushTimeoutNs);
}

}  // namespace proofload::live
