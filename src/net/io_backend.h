// Which kernel interface the load engine's workers do their socket I/O through (`--io`).
#pragma once

#include <cstdint>
#include <string_view>

namespace proofload::net {

enum class IoBackend : uint8_t {
  kEpoll,  // readiness (epoll), then a send and a recv per request
  kUring,  // io_uring: one multishot receive per connection, sends batched per turn (LoadLoop)
};

// "epoll", "io_uring": as result.json records it and `--io` takes it ("uring" too).
inline std::string_view io_backend_name(IoBackend backend) {
  return backend == IoBackend::kUring ? "io_uring" : "epoll";
}

}  // namespace proofload::net
