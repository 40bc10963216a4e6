// See h2_raw_server.h.
#include "h2_raw_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>
#include <stdexcept>
#include <vector>

#include "process.h"

namespace proofload::testing {
namespace {

constexpr size_t kPrefaceBytes = 24;  // "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
constexpr size_t kFrameHeaderBytes = 9;

void send_all(int fd, const std::string& bytes) {
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t w = send(fd, bytes.data() + written, bytes.size() - written, MSG_NOSIGNAL);
    if (w <= 0) return;
    written += static_cast<size_t>(w);
  }
}

struct Peer {
  std::string in;
  bool preface_read = false;
};

}  // namespace

H2RawServer::H2RawServer(std::function<std::string(uint32_t)> answer)
    : answer_(std::move(answer)) {
  listen_fd_ = listen_on_loopback("H2RawServer", port_);
  thread_ = std::thread([this] { serve(); });
}

H2RawServer::~H2RawServer() {
  stop_ = true;
  thread_.join();
  close(listen_fd_);
}

void H2RawServer::serve() {
  std::map<int, Peer> peers;
  while (!stop_) {
    std::vector<pollfd> fds = {{listen_fd_, POLLIN, 0}};
    for (const auto& [fd, peer] : peers) fds.push_back({fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), 50) <= 0) continue;
    if (fds[0].revents & POLLIN) {
      const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) {
        peers[fd] = Peer{};
        send_all(fd, h2_frame(kH2Settings, 0, 0, ""));
      }
    }
    for (size_t i = 1; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const int fd = fds[i].fd;
      char buffer[16384];
      const ssize_t n = read(fd, buffer, sizeof buffer);
      if (n <= 0) {
        close(fd);
        peers.erase(fd);
        continue;
      }
      Peer& peer = peers[fd];
      peer.in.append(buffer, static_cast<size_t>(n));
      if (!peer.preface_read) {
        if (peer.in.size() < kPrefaceBytes) continue;
        peer.in.erase(0, kPrefaceBytes);
        peer.preface_read = true;
      }
      while (peer.in.size() >= kFrameHeaderBytes) {
        const auto byte = [&](size_t k) { return static_cast<uint8_t>(peer.in[k]); };
        const size_t length = (size_t{byte(0)} << 16) | (size_t{byte(1)} << 8) | byte(2);
        if (peer.in.size() < kFrameHeaderBytes + length) break;
        const uint8_t type = byte(3), flags = byte(4);
        const uint32_t stream_id = ((uint32_t{byte(5)} & 0x7f) << 24) |
                                   (uint32_t{byte(6)} << 16) | (uint32_t{byte(7)} << 8) | byte(8);
        peer.in.erase(0, kFrameHeaderBytes + length);
        if (type == kH2Settings && (flags & kH2Ack) == 0) {
          send_all(fd, h2_frame(kH2Settings, kH2Ack, 0, ""));
        } else if (type == kH2Headers) {
          ++requests_;
          send_all(fd, answer_(stream_id));
        } else if (type == kH2RstStream) {
          ++resets_;
        } else if (type == kH2Goaway) {
          ++goaways_;
        }
      }
    }
  }
  for (const auto& [fd, peer] : peers) close(fd);
}

}  // namespace proofload::testing
