// See simulated_io.h.
#include "engine/simulated_io.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <stdexcept>

namespace proofload::engine::simulated {
namespace {

thread_local World* g_current = nullptr;

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

std::string http1_text(const Answer& answer) {
  std::string text = answer.status == 429 ? "HTTP/1.1 429 Too Many Requests\r\n"
                                          : "HTTP/1.1 " + std::to_string(answer.status) + " OK\r\n";
  for (const auto& [name, value] : answer.headers) text += name + ": " + value + "\r\n";
  text += "Content-Length: " + std::to_string(answer.body.size()) + "\r\n";
  if (answer.close) text += "Connection: close\r\n";
  return text + "\r\n" + answer.body;
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

void World::schedule(int64_t at_ns, int fd, DueKind kind, int32_t stream) {
  due_.push(Due{at_ns, sequence_++, fd, kind, stream});
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
  if (model_.http2) {
    take_streams(fd, *s);
  } else if (model_.script.empty()) {
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
    take_request(fd, 0);
  }
}

// HTTP/2: the client's frames go to the connection's server session; each stream whose request
// ended is a request. What the session answers (its SETTINGS, ACKs) goes back at once; a client
// that broke the protocol has the connection closed on it.
void World::take_streams(int fd, Socket& s) {
  if (!s.h2) s.h2 = std::make_unique<H2Server>();
  std::vector<int32_t> completed;
  const bool valid = s.h2->receive(s.to_server, completed);
  s.to_server.clear();
  for (int32_t stream : completed) take_request(fd, stream);
  s.h2->send_into(s.to_client);
  stats_.h2_stream_window = s.h2->client_stream_window();
  if (!valid) {
    s.closed_by_server = true;
    ++stats_.closes;
  }
}

void World::take_request(int fd, int32_t stream) {
  ++stats_.requests;
  if (every_nth(model_.ignore_every_nth_request, stats_.requests)) {
    ++stats_.ignored;
    return;
  }
  schedule(answer_time(now_ns_), fd, DueKind::kAnswer, stream);
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

// The next answer, by the model: its status and headers, its body, and whether the connection
// ends after it.
Answer World::next_answer() const {
  Answer answer;
  answer.close = every_nth(model_.close_after_every_nth_answer, stats_.answers);
  if (model_.limited_from_answer > 0) {
    answer.body = "no";
    if (stats_.answers >= model_.limited_from_answer) {
      answer.status = 429;
      answer.headers = {{"Retry-After", "1"}, {"RateLimit-Remaining", "0"}};
    } else {
      const int64_t left = std::max<int64_t>(0, model_.limited_from_answer - 1 - stats_.answers);
      answer.headers = {{"RateLimit-Remaining", std::to_string(left)}};
    }
  } else {
    answer.body = model_.body.empty() ? "ok" : model_.body;
  }
  return answer;
}

void World::answer(int fd, int32_t stream) {
  Socket* s = socket(fd);
  if (s == nullptr || s->closed_by_server) return;  // the client gave up on it and closed
  if (s->h2 && !s->h2->has_stream(stream)) return;  // the client reset the stream
  ++stats_.answers;
  const Answer answer = next_answer();
  if (s->h2) {
    s->h2->answer(stream, answer);
    if (answer.close) s->h2->go_away();
    s->h2->send_into(s->to_client);
  } else {
    s->to_client.append(http1_text(answer));
  }
  if (answer.close) {
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
      if (due.kind == DueKind::kAnswer) answer(due.fd, due.stream);
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
