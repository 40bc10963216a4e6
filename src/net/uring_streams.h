// The io_uring data path of the load engine's loop (LoadLoop). A connected plain-TCP socket
// handed to it ("streamed") gets one multishot receive, whose bytes land in a ring of buffers
// the kernel picks from (a provided-buffer ring); its writes are copied into a per-socket queue
// and sent by one send request each, all submitted together once per turn of the loop. So the
// steady state costs one io_uring_enter per turn (submitting the turn's sends and reaping every
// completion), where epoll costs a send and a recv per request and a wait per turn.
//
// What the worker sees does not change: Transport's read and write, and level-triggered
// readiness events (EPOLLIN while bytes, the end or an error wait to be read; EPOLLOUT while it
// asked for it and the queue has room), as epoll gives them. Sockets not streamed (connecting,
// TLS, the worker's wake-up eventfd) stay in an epoll set, which the ring watches with a
// multishot poll, so one wait covers both.
//
// Memory is bounded whatever a server sends: received bytes wait only in the provided buffers
// (a fixed ring; when it runs dry a socket's receive stops until the worker has read and given
// buffers back), and a socket's queued writes are capped (kMaxQueuedBytes, then kWantWrite).
//
// One thread: the ring is made with IORING_SETUP_SINGLE_ISSUER and DEFER_TASKRUN, so it must be
// constructed on the thread that waits on it. Not thread-safe.
//
// Files are not registered with the ring: a connection's fd changes with each reconnect, and
// registering one is a system call of its own, where the lookup it saves (fget) is under 1% of
// the generator's profile (bench/profile_generator.sh).
#pragma once

#include <liburing.h>
#include <sys/epoll.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "net/transport.h"

namespace proofload::net {

// "" when this process can use UringStreams here (io_uring allowed, a ring with the flags above,
// a provided-buffer ring, multishot receive); else why not, in a few words: "io_uring is
// disabled (sysctl kernel.io_uring_disabled)", "Operation not permitted".
std::string uring_unavailable_reason();

class UringStreams {
 public:
  // `streams`: about how many sockets will be streamed at once (sizes the rings). Throws
  // std::system_error when the ring cannot be made.
  UringStreams(int epoll_fd, int streams);
  ~UringStreams();
  UringStreams(const UringStreams&) = delete;
  UringStreams& operator=(const UringStreams&) = delete;

  bool attached(int fd) const {
    return fd >= 0 && static_cast<size_t>(fd) < streams_.size() && streams_[fd].attached;
  }
  // From now on `fd`'s bytes come and go through the ring; its events carry `token`. The caller
  // has taken it out of the epoll set.
  void attach(int fd, uint64_t token);
  // Cancels what the ring still does with `fd` and forgets its unread bytes; the caller closes it.
  void detach(int fd);
  // EPOLLOUT wanted or not (the worker's modify).
  void want_write(int fd, bool on);

  // As Transport::read and write: kOk with bytes, kWantRead (nothing waiting), kWantWrite (the
  // queue is full), kClosed (the peer's end, after every byte before it), kFailed with
  // `error_number` (a reset, or a failed send).
  Io read(int fd, char* buffer, size_t size, int& error_number);
  Io write(int fd, const char* data, size_t size, int& error_number);
  // When the last send of `fd`'s written bytes was submitted to the kernel (monotonic ns; 0 if
  // none was): writes wait in the queue until the end of the turn.
  int64_t sent_ns(int fd) const { return streams_[static_cast<size_t>(fd)].sent_ns; }

  // Submits the turn's sends and waits for a completion until deadline_ns (kNoDeadline: no
  // limit; poll: not at all), then appends an event for every streamed socket that is ready.
  // Returns whether the epoll set has become readable.
  bool wait(int64_t deadline_ns, bool poll, std::vector<epoll_event>& events);

  static constexpr size_t kBufferBytes = 4096;
  static constexpr size_t kMaxQueuedBytes = 256 * 1024;

 private:
  struct Stream {
    uint64_t token = 0;
    uint32_t generation = 0;  // told apart from an earlier socket with the same fd
    bool attached = false;
    bool want_write = false;
    bool receiving = false;  // the multishot receive is armed
    bool starved = false;    // it stopped for want of buffers: re-armed when some come back
    bool eof = false;
    bool listed = false;       // in ready_ (at most once)
    bool send_listed = false;  // in to_send_ (at most once)
    bool sending = false;      // a send request is in flight (of in_flight)
    int error = 0;
    // Received and unread: a chain of provided buffers (next_), from first_offset of the first.
    int32_t first_buffer = -1;
    int32_t last_buffer = -1;
    uint32_t first_offset = 0;
    std::string queued;     // written, not yet handed to a send
    std::string in_flight;  // what the send in flight sends, from in_flight_sent on
    size_t in_flight_sent = 0;
    int64_t sent_ns = 0;  // sent_ns()
  };

  io_uring_sqe* next_sqe();
  void arm_receive(int fd, Stream& s);
  void arm_epoll_poll();
  void submit_sends();
  void send_from(int fd, Stream& s);
  // A completion as the kernel posted it (io_uring_cqe without its flexible tail, so that some
  // can be set aside in a vector).
  struct Completion {
    uint64_t data;
    int32_t res;
    uint32_t flags;
  };
  void set_aside_completions();
  bool take_completion(Completion& out);
  void on_completion(const Completion& cqe, bool& epoll_ready);
  void on_receive(Stream* s, int fd, const Completion& cqe);
  void on_send(Stream* s, const Completion& cqe);
  void give_back(int32_t buffer);
  void list(int fd);
  uint32_t ready_events(const Stream& s) const;
  char* buffer_data(int32_t buffer) {
    return buffers_ + static_cast<size_t>(buffer) * kBufferBytes;
  }
  uint64_t user_data(int kind, int fd, uint32_t generation) const;

  io_uring ring_{};
  int epoll_fd_;
  bool epoll_polled_ = false;  // the multishot poll of the epoll set is armed
  // The provided-buffer ring and the buffers it hands out.
  io_uring_buf_ring* buffer_ring_ = nullptr;
  size_t buffer_ring_bytes_ = 0;
  char* buffers_ = nullptr;
  size_t buffers_bytes_ = 0;
  uint32_t buffer_count_ = 0;
  std::vector<int32_t> next_;     // a received buffer's successor in its socket's chain
  std::vector<uint32_t> length_;  // bytes the kernel put in each received buffer
  bool gave_back_ = false;        // buffers were given back since starved sockets were looked at

  std::vector<Stream> streams_;  // by fd
  std::vector<int> ready_;       // streamed sockets with an event in the next batch
  std::vector<int> reported_;    // reported in the last batch: still ready, reported again
  std::vector<int> to_send_;     // streamed sockets with queued bytes
  std::vector<int> starved_;
  std::vector<int> unstamped_;  // sockets whose send is prepared and not yet submitted
  // Completions reaped early, to make room when the kernel took no more submissions (its
  // completion queue had overflowed); handled first on the next wait.
  std::vector<Completion> set_aside_;
  // A detached socket's send still in flight keeps its bytes here until its completion comes.
  std::vector<std::pair<uint64_t, std::string>> retired_sends_;
};

}  // namespace proofload::net
