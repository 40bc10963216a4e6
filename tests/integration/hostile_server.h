// Test support: a hostile HTTP "server" on 127.0.0.1, one thread per connection. After each
// request head it writes `reply`; with `flood` it then writes `flood` again and again, as fast as
// the client takes it, until the client goes away: 103 Early Hints without end, a chunk extension
// without end, a body without end. The modes a load generator must survive without hanging,
// crashing or growing its memory. Runs until destroyed.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace proofload::testing {

class HostileServer {
 public:
  HostileServer(std::string reply, std::string flood = "");
  ~HostileServer();
  HostileServer(const HostileServer&) = delete;
  HostileServer& operator=(const HostileServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/"; }
  int64_t bytes_sent() const { return bytes_sent_.load(); }

  // Canned modes.
  static HostileServer early_hints_flood();        // 103 responses, never a final one
  static HostileServer endless_chunk_extension();  // "5;aaaa..." without end
  static HostileServer endless_body();             // a chunked body that never ends

 private:
  void accept_loop();
  void serve(int fd);

  std::string reply_;
  std::string flood_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> bytes_sent_{0};
  std::mutex mutex_;
  std::vector<int> clients_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

}  // namespace proofload::testing
