// See simulated_io.h.
#include "engine/simulated_io.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <stdexcept>

namespace proofload::engine::simulated {
namespace {

thread_local World* g_current = nullptr;

constexpr std::string_view kAnswer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
constexpr std::string_view kLastAnswer =
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";

bool every_nth(int n, int64_t count) { return n > 0 && count % n == 0; }

// The body length a request's head announces (0 without Content-Length).
size_t content_length(std::string_view head) {
  constexpr std::string_view kName = "content-length:";
  for (size_t line = 0; line < head.size();) {
    size_t end = head.find("\r\n", line);
    if (end == std::string_view::npos) end = head.size();
    std::string_view text = head.substr(line, end - line);
    if (text.size() > kName.size() &&
        std::equal(kName.begin(), kName.end(), text.begin(),
                   [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); })) {
      return std::stoul(std::string(text.substr(kName.size())));
    }
    line = end + 2;
  }
  return 0;
}

}  // namespace

World::World(ServerModel model) : model_(model) {
  if (g_current != nullptr) throw std::logic_error("one simulated World per thread");
  g_current = this;
}

World::~World() { g_current = nullptr; }

World& World::current() {
  if (g_current == nullptr) throw std::logic_error("no simulated World on this thread");
  return *g_current;
}

World::Socket* World::socket(int fd) {
  auto it = sockets_.find(fd);
  return it == sockets_.end() ? nullptr : &it->second;
}

const World::Socket* World::socket(int fd) const {
  auto it = sockets_.find(fd);
  return it == sockets_.end() ? nullptr : &it->second;
}

void World::schedule(int64_t at_ns, int fd, DueKind kind) {
  due_.push(Due{at_ns, sequence_++, fd, kind});
}

int World::open_socket(const std::string& address) {
  const int fd = next_fd_++;
  Socket& s = sockets_[fd];
  ++stats_.connects_attempted;
  ++stats_.connects_to[address];
  s.open_at_ns = now_ns_ + model_.connect_ns;
  s.refused = every_nth(model_.refuse_every_nth_connect, stats_.connects_attempted) ||
              (model_.refuse_connects_after > 0 &&
               stats_.connects_attempted > model_.refuse_connects_after);
  if (s.refused) ++stats_.connects_refused;
  stats_.most_open = std::max(stats_.most_open, static_cast<int>(sockets_.size()));
  schedule(s.open_at_ns, fd, DueKind::kConnect);
  return fd;
}

int World::finish_connect(int fd) {
  const Socket* s = socket(fd);
  if (s == nullptr) return EBADF;
  if (now_ns_ < s->open_at_ns) return EINPROGRESS;
  return s->refused ? ECONNREFUSED : 0;
}

net::Io World::read(int fd, char* buffer, size_t size) {
  Socket* s = socket(fd);
  if (s == nullptr || s->refused) return {net::IoStatus::kFailed};
  if (now_ns_ < s->open_at_ns) return {net::IoStatus::kWantRead};
  if (!s->to_client.empty()) {
    const size_t n = std::min(size, s->to_client.size());
    std::memcpy(buffer, s->to_client.data(), n);
    s->to_client.erase(0, n);
    stats_.bytes_read += static_cast<int64_t>(n);
    return {net::IoStatus::kOk, n};
  }
  return {s->closed_by_server ? net::IoStatus::kClosed : net::IoStatus::kWantRead};
}

net::Io World::write(int fd, const char* data, size_t size) {
  Socket* s = socket(fd);
  if (s == nullptr || s->refused || s->closed_by_server) return {net::IoStatus::kFailed};
  if (now_ns_ < s->open_at_ns) return {net::IoStatus::kWantWrite};
  s->to_server.append(data, size);
  stats_.bytes_written += static_cast<int64_t>(size);
  if (model_.script.empty()) {
    take_requests(fd, *s);
  } else {
    if (!s->script_started) {
      s->script_started = true;
      schedule(now_ns_, fd, DueKind::kScriptPiece);
    }
    take_frames(*s);
  }
  return {net::IoStatus::kOk, size};
}

// Scripted: the client's HTTP/2 frames, after its preface, are only counted (HEADERS as
// requests); whatever they say, the script goes on.
void World::take_frames(Socket& s) {
  constexpr size_t kPrefaceBytes = 24;  // "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
  constexpr size_t kFrameHeaderBytes = 9;
  constexpr uint8_t kHeadersFrame = 0x1;
  if (!s.preface_read) {
    if (s.to_server.size() < kPrefaceBytes) return;
    s.to_server.erase(0, kPrefaceBytes);
    s.preface_read = true;
  }
  size_t at = 0;
  while (s.to_server.size() - at >= kFrameHeaderBytes) {
    const auto* header = reinterpret_cast<const unsigned char*>(s.to_server.data() + at);
    const size_t length = size_t{header[0]} << 16 | size_t{header[1]} << 8 | header[2];
    if (s.to_server.size() - at < kFrameHeaderBytes + length) break;
    if (header[3] == kHeadersFrame) ++stats_.requests;
    at += kFrameHeaderBytes + length;
  }
  s.to_server.erase(0, at);
}

void World::write_script_piece(int fd) {
  Socket* s = socket(fd);
  if (s == nullptr || s->closed_by_server) return;  // the client closed it first
  s->to_client.append(model_.script[s->script_next++]);
  if (s->script_next < model_.script.size()) {
    schedule(now_ns_ + model_.script_gap_ns, fd, DueKind::kScriptPiece);
  } else if (model_.script_close) {
    s->closed_by_server = true;
    ++stats_.closes;
  }
}

// Every complete request in what the client sent is answered, one after the other.
void World::take_requests(int fd, Socket& s) {
  for (;;) {
    const size_t head_end = s.to_server.find("\r\n\r\n");
    if (head_end == std::string::npos) return;
    const size_t length =
        head_end + 4 + content_length(std::string_view(s.to_server).substr(0, head_end));
    if (s.to_server.size() < length) return;
    s.to_server.erase(0, length);
    ++stats_.requests;
    if (every_nth(model_.ignore_every_nth_request, stats_.requests)) {
      ++stats_.ignored;
      continue;
    }
    schedule(answer_time(now_ns_), fd, DueKind::kAnswer);
  }
}

int64_t World::answer_time(int64_t arrival_ns) const {
  const int64_t since_first = arrival_ns - (kStartNs + model_.stall_first_ns);
  if (model_.stall_length_ns > 0 && model_.stall_every_ns > 0 && since_first >= 0) {
    const int64_t into_stall = since_first % model_.stall_every_ns;
    if (into_stall < model_.stall_length_ns) {
      return arrival_ns - into_stall + model_.stall_length_ns + model_.service_ns;
    }
  }
  return arrival_ns + model_.service_ns;
}

void World::answer(int fd) {
  Socket* s = socket(fd);
  if (s == nullptr || s->closed_by_server) return;  // the client gave up on it and closed
  ++stats_.answers;
  const bool close = every_nth(model_.close_after_every_nth_answer, stats_.answers);
  if (model_.limited_from_answer > 0) {
    const int64_t left = std::max<int64_t>(0, model_.limited_from_answer - 1 - stats_.answers);
    s->to_client.append(stats_.answers >= model_.limited_from_answer
                            ? "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\n"
                              "RateLimit-Remaining: 0\r\nContent-Length: 2\r\n"
                            : "HTTP/1.1 200 OK\r\nRateLimit-Remaining: " + std::to_string(left) +
                                  "\r\nContent-Length: 2\r\n");
    s->to_client.append(close ? "Connection: close\r\n\r\nno" : "\r\nno");
  } else if (!model_.body.empty()) {
    s->to_client.append("HTTP/1.1 200 OK\r\nContent-Length: " +
                        std::to_string(model_.body.size()) +
                        (close ? "\r\nConnection: close\r\n\r\n" : "\r\n\r\n") + model_.body);
  } else {
    s->to_client.append(close ? kLastAnswer : kAnswer);
  }
  if (close) {
    s->closed_by_server = true;
    ++stats_.closes;
  }
}

void World::close_socket(int fd) {
  sockets_.erase(fd);
  unwatch(fd);
}

void World::watch(int fd, uint32_t events, uint64_t token) { watched_[fd] = Watch{events, token}; }

void World::unwatch(int fd) { watched_.erase(fd); }

// As level-triggered epoll reports a socket: an error once a refused connect completes;
// writable once open; readable while answer bytes wait or after the server's close.
uint32_t World::ready_events(int fd, const Watch& watch) const {
  const Socket* s = socket(fd);
  if (s == nullptr || now_ns_ < s->open_at_ns) return 0;  // a real fd (the wake-up) or connecting
  if (s->refused) return EPOLLOUT | EPOLLERR | EPOLLHUP;
  uint32_t events = 0;
  if (watch.events & EPOLLOUT) events |= EPOLLOUT;
  if ((watch.events & EPOLLIN) && (!s->to_client.empty() || s->closed_by_server)) {
    events |= EPOLLIN;
  }
  return events;
}

void World::collect_ready() {
  ready_.clear();
  for (const auto& [fd, watch] : watched_) {
    if (uint32_t events = ready_events(fd, watch)) {
      epoll_event e{};
      e.events = events;
      e.data.u64 = watch.token;
      ready_.push_back(e);
    }
  }
}

std::span<const epoll_event> World::wait(int64_t deadline_ns) {
  collect_ready();
  if (ready_.empty()) {
    const int64_t next_ns = due_.empty() ? INT64_MAX : due_.top().at_ns;
    const int64_t until_ns = std::min(next_ns, deadline_ns);
    if (until_ns == INT64_MAX) {
      throw std::runtime_error("simulation: the worker waits with no deadline and nothing due");
    }
    if (until_ns > now_ns_) {
      now_ns_ = until_ns;
      polls_at_this_instant_ = 0;
    }
    while (!due_.empty() && due_.top().at_ns <= now_ns_) {
      const Due due = due_.top();
      due_.pop();
      // A completed connect needs nothing: it is by time.
      if (due.kind == DueKind::kAnswer) answer(due.fd);
      if (due.kind == DueKind::kScriptPiece) write_script_piece(due.fd);
    }
    collect_ready();
  }
  if (++polls_at_this_instant_ > kMaxPollsAtOneInstant) {
    throw std::runtime_error("simulation: the worker polled a million times at one instant");
  }
  return ready_;
}

}  // namespace proofload::engine::simulated
