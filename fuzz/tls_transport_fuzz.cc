// A TLS server that misbehaves at each step, against the client's real net::Transport and the
// engine's read step (engine/read_step.h) over one socketpair, both sides in this thread. The
// server is an OpenSSL SSL over memory BIOs: what it writes waits in the harness, which puts it
// on the socket as the input says (in part, late, never), or puts raw bytes there instead, then
// ends with a FIN wherever the input says. The client reads with the worker's calls, and the
// response it reads goes through the read step as in Worker::read_response.
//
// Invariants (a broken one aborts, as a crash): no hang; a read's kOk moves bytes that are a
// prefix of what the server wrote (TLS lets nothing else through); after kClosed or kFailed no
// read returns bytes; kFailed leaves failure() saying why, never with a certificate verdict (the
// client verifies none: --insecure); an end read as close_notify comes only after the server's
// close_notify reached the socket, and one read as a bare FIN only when it did not (or raw bytes
// broke the stream first); a response completed by the end of the stream (a body delimited by
// the close) is complete only when close_notify came.
//
// Input: byte 0 sets up (bit 0: the server speaks TLS 1.2 at most, else 1.3; bit 1: it requires
// a client certificate, which the client has not; bit 2: the client offers a session the server
// gave before (a resumption: no certificate, and fast); bits 3-5: the client's read size; bit 6:
// the request is HEAD). Then steps, each a byte (bits 0-2: what, bit 3: hold, bits 4-7: p) and its
// arguments. Unless held, what the server wrote so far goes on the socket before the step.
//   0 deliver     next byte n: put (p * 256 + n + 1) of the server's waiting bytes on the socket
//   1 data        next two bytes: a length; one SSL_write (a record up to 16 KiB) of that many
//                 bytes, from the input or (p bit 0) a filler
//   2 close       the server's close_notify
//   3 fin         the server's end (the last step): shutdown(SHUT_WR); p 1: close(); p 2: a reset
//                 (close() with bytes unread, which a socketpair reports as ECONNRESET)
//   4 garbage     next byte n: n raw bytes from the input on the socket, not through the server
//   5 alert       a broken record (p picks which) to the server, which answers with a fatal alert
//   6 key update  TLS 1.3: a KeyUpdate (p bit 0: update requested); TLS 1.2: a renegotiation
//   7 ticket      TLS 1.3: a NewSessionTicket
// At the end of the input, what waits is delivered and the server ends with a FIN.
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "engine/read_step.h"
#include "http/response_parser.h"
#include "net/self_signed.h"
#include "net/tls.h"
#include "net/tls_server.h"
#include "net/transport.h"

namespace {

namespace net = proofload::net;
using net::IoStatus;
using proofload::engine::ReadStep;

void check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "tls_transport: broken invariant: %s\n", what);
  std::abort();
}

// Made once: a P-256 certificate (the cheapest handshake signature), the server's context and
// the client's (no verification: the chain is not what is fuzzed; resumption on, so tickets
// reach the client's session cache as in a run).
struct Contexts {
  static net::TlsOptions client_options() {
    net::TlsOptions options;
    options.verify = false;
    return options;
  }
  net::PemPair pem = net::make_self_signed("localhost");
  net::TlsServerContext server{pem.certificate, pem.private_key};
  net::TlsContext client{client_options(), "localhost"};
  // A session of TLS 1.3 [0] and of 1.2 [1] from a clean exchange, for the inputs that resume;
  // each input gets its own copy (OpenSSL marks a session it failed on not resumable).
  SSL_SESSION* sessions[2] = {nullptr, nullptr};
};

class Input {
 public:
  Input(const uint8_t* data, size_t size) : bytes_(reinterpret_cast<const char*>(data), size) {}
  bool empty() const { return bytes_.empty(); }
  uint8_t byte() {
    if (bytes_.empty()) return 0;
    const auto b = static_cast<uint8_t>(bytes_[0]);
    bytes_.remove_prefix(1);
    return b;
  }
  std::string_view take(size_t n) {
    const std::string_view taken = bytes_.substr(0, n);
    bytes_.remove_prefix(taken.size());
    return taken;
  }

 private:
  std::string_view bytes_;
};

constexpr std::array<size_t, 8> kReadSizes = {1, 2, 5, 64, 1000, 4096, 16384, 65536};
constexpr size_t kMaxFiller = 256 * 1024;  // filler bytes an input may have the server write
constexpr int kMaxRounds = 100000;         // pump rounds before the exchange counts as hung

// One connection: the client's Transport on one end of a socketpair, the server's SSL (memory
// BIOs) behind the other. Frees everything it made when it ends.
class Exchange {
 public:
  Exchange(const Contexts& contexts, uint8_t setup) {
    const SSL_SESSION* offered = (setup & 4) != 0 ? contexts.sessions[setup & 1] : nullptr;
    if (offered != nullptr) cache_.store(SSL_SESSION_dup(offered));
    int fds[2];
    check(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) == 0,
          "socketpair");
    server_fd_ = fds[1];
    client_.adopt(fds[0]);
    client_.begin_tls(contexts.client, &cache_);
    server_ = SSL_new(contexts.server.get());
    check(server_ != nullptr, "SSL_new");
    server_out_ = BIO_new(BIO_s_mem());
    BIO* in = BIO_new(BIO_s_mem());
    SSL_set_bio(server_, in, server_out_);
    server_in_ = in;
    SSL_set_accept_state(server_);
    if ((setup & 1) != 0) SSL_set_max_proto_version(server_, TLS1_2_VERSION);
    if ((setup & 2) != 0) {
      SSL_set_verify(server_, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
                     [](int, X509_STORE_CTX*) { return 1; });
    }
    read_size_ = kReadSizes[(setup >> 3) & 7];
    head_ = (setup & 0x40) != 0;
    request_ = head_ ? "HEAD / HTTP/1.1\r\nHost: localhost\r\n\r\n"
                     : "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
    parser_.start(head_);
  }
  ~Exchange() {
    SSL_free(server_);
    if (server_fd_ >= 0) ::close(server_fd_);
    ERR_clear_error();
  }
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  // The session the server gave last (the caller's reference).
  SSL_SESSION* take_session() {
    SSL_SESSION* session = cache_.session();
    if (session != nullptr) SSL_SESSION_up_ref(session);
    return session;
  }

  void run(Input& input) {
    pump();
    while (!input.empty() && !fin_) step(input);
    if (!fin_) {
      deliver(pending_.size());
      fin(0);
    }
    for (int round = 0; phase_ != Phase::kEnded; ++round) {
      check(round < kMaxRounds, "the client did not end after the server's FIN");
      if (!pump()) check(phase_ == Phase::kEnded, "the client waits on a socket at its end");
    }
    check_end();
  }

 private:
  enum class Phase { kHandshake, kWrite, kRead, kEnded };

  void step(Input& input) {
    const uint8_t op = input.byte();
    const unsigned what = op & 7;
    const bool hold = (op & 8) != 0;
    const unsigned p = op >> 4;
    if (what != 0 && !hold) deliver(pending_.size());
    switch (what) {
      case 0:
        deliver(p * 256u + input.byte() + 1u);
        break;
      case 1: {
        const size_t high = input.byte();  // two statements: the order of the bytes is fixed
        const size_t length = (high << 8 | input.byte()) % 16385;
        std::string filler;
        std::string_view payload;
        if ((p & 1) != 0) {
          filler.assign(std::min(length, kMaxFiller - std::min(kMaxFiller, filler_)), 'a');
          filler_ += filler.size();
          payload = filler;
        } else {
          payload = input.take(length);
        }
        server_write(payload);
        break;
      }
      case 2:
        server_close_notify();
        break;
      case 3:
        fin(p % 3);
        break;
      case 4:
        inject(input.take(input.byte()));
        break;
      case 5:
        server_alert(p);
        break;
      case 6:
        server_key_update((p & 1) != 0);
        break;
      case 7:
        server_ticket();
        break;
    }
    pump();
  }

  // The client's side, as the worker drives it: handshake, write the request, read. True when
  // anything moved.
  bool client_step() {
    bool progress = false;
    while (phase_ != Phase::kEnded) {
      if (phase_ == Phase::kHandshake) {
        const net::Io io = client_.handshake();
        if (io.status == IoStatus::kOk) {
          phase_ = Phase::kWrite;
        } else if (io.status == IoStatus::kFailed) {
          end(io.status);
        } else {
          check(io.status == IoStatus::kWantRead || io.status == IoStatus::kWantWrite,
                "a handshake ends only in kOk or kFailed");
          return progress;
        }
      } else if (phase_ == Phase::kWrite) {
        const net::Io io = client_.write(request_.data() + written_, request_.size() - written_);
        if (io.status == IoStatus::kOk) {
          check(io.bytes > 0 && io.bytes <= request_.size() - written_, "a write's size");
          written_ += io.bytes;
          if (written_ == request_.size()) phase_ = Phase::kRead;
        } else if (io.status == IoStatus::kWantRead || io.status == IoStatus::kWantWrite) {
          return progress;
        } else {
          end(io.status);
        }
      } else {
        const net::Io io = client_.read(buffer_.data(), read_size_);
        if (io.status == IoStatus::kOk) {
          on_bytes(io.bytes);
        } else if (io.status == IoStatus::kWantRead || io.status == IoStatus::kWantWrite) {
          return progress;
        } else {
          end(io.status);
        }
      }
      progress = true;
    }
    return progress;
  }

  void on_bytes(size_t n) {
    check(n > 0 && n <= read_size_, "a read's size");
    check(received_ + n <= sent_.size() && sent_.compare(received_, n, buffer_.data(), n) == 0,
          "the client read bytes the server did not write, in its order");
    received_ += n;
    if (step_ == ReadStep::kNeedMore) {
      step_ = proofload::engine::on_response_bytes(parser_, buffer_.data(), n, true);
    }
  }

  void end(IoStatus status) {
    ended_reading_ = phase_ == Phase::kRead;
    phase_ = Phase::kEnded;
    status_ = status;
    bare_fin_ = client_.closed_without_close_notify();
    if (status == IoStatus::kFailed) {
      const net::TransportFailure& failure = client_.failure();
      check(failure.error_number != 0 || failure.tls() || failure.eof,
            "kFailed without a failure()");
      check(failure.verify_result == X509_V_OK,
            "a failure called a refused certificate by a client that verifies none");
      check(!net::failure_text(failure).empty(), "failure_text");
    } else {
      check(status == IoStatus::kClosed, "an end is kClosed or kFailed");
      if (ended_reading_ && step_ == ReadStep::kNeedMore) {
        eof_step_ = true;
        step_ = proofload::engine::on_response_eof(parser_, bare_fin_);
      }
    }
    // Nothing more after the end, whatever the socket still holds.
    const net::Io again = client_.read(buffer_.data(), read_size_);
    check(again.status != IoStatus::kOk, "a read returned bytes after kClosed or kFailed");
  }

  void check_end() {
    const bool close_notify_delivered = close_notify_end_ <= delivered_;
    if (status_ == IoStatus::kClosed && ended_reading_) {
      if (!bare_fin_) {
        check(close_notify_delivered, "an end read as close_notify that the server never sent");
        if (!injected_) check(received_ == sent_.size(), "close_notify before all the data");
      } else if (!injected_) {
        check(!close_notify_delivered, "the server's close_notify arrived, read as a bare FIN");
      }
    }
    if (eof_step_ && step_ == ReadStep::kCompleteNotReusable) {
      check(close_notify_delivered, "a body delimited by a bare FIN counted complete");
    }
    if (step_ == ReadStep::kTruncated) {
      check(eof_step_ && bare_fin_, "kTruncated without a bare FIN");
    }
  }

  // The server's side: what came on the socket into its SSL, which handshakes, then reads (and
  // drops) the request and whatever the client says next. True when anything moved.
  bool server_step() {
    bool progress = false;
    char chunk[16384];
    for (;;) {
      const ssize_t n = recv(server_fd_, chunk, sizeof chunk, 0);
      if (n <= 0) break;
      BIO_write(server_in_, chunk, static_cast<int>(n));
      progress = true;
    }
    if (!server_failed_) {
      if (!SSL_is_init_finished(server_)) {
        const int ret = SSL_do_handshake(server_);
        if (ret <= 0) note_server_error(ret);
      }
      if (!server_failed_ && SSL_is_init_finished(server_)) {
        size_t n = 0;
        int ret;
        while ((ret = SSL_read_ex(server_, chunk, sizeof chunk, &n)) == 1) progress = true;
        note_server_error(ret);
      }
      ERR_clear_error();  // the thread's queue is the client's too: Transport reads it
    }
    return collect() || progress;
  }

  void note_server_error(int ret) {
    const int error = SSL_get_error(server_, ret);
    if (error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE) server_failed_ = true;
    ERR_clear_error();
  }

  // The server SSL's output into the bytes waiting for the socket.
  bool collect() {
    char chunk[16384];
    bool any = false;
    int n;
    while ((n = BIO_read(server_out_, chunk, sizeof chunk)) > 0) {
      pending_.append(chunk, static_cast<size_t>(n));
      written_out_ += static_cast<size_t>(n);
      any = true;
    }
    return any;
  }

  // Both sides until neither moves. True when anything moved.
  bool pump() {
    bool any = false;
    for (int round = 0;; ++round) {
      check(round < kMaxRounds, "the exchange never settles");
      bool progress = client_step();
      progress = server_step() || progress;
      if (!progress) return any;
      any = true;
    }
  }

  // Up to `n` of the server's waiting bytes onto the socket, in its order.
  void deliver(size_t n) {
    n = std::min(n, pending_.size());
    size_t done = 0;
    while (done < n && !fin_) {
      const ssize_t w = send(server_fd_, pending_.data() + done, n - done, MSG_NOSIGNAL);
      if (w > 0) {
        done += static_cast<size_t>(w);
      } else if (w < 0 && errno == EINTR) {
        continue;
      } else if (w < 0 && errno == EAGAIN) {
        if (!pump()) break;  // the client reads no more: the rest waits
      } else {
        break;  // the client closed its end
      }
    }
    pending_.erase(0, done);
    delivered_ += done;
    pump();
  }

  void inject(std::string_view raw) {
    if (raw.empty()) return;
    injected_ = true;
    size_t done = 0;
    while (done < raw.size()) {
      const ssize_t w = send(server_fd_, raw.data() + done, raw.size() - done, MSG_NOSIGNAL);
      if (w > 0) {
        done += static_cast<size_t>(w);
      } else if (w < 0 && errno == EAGAIN && pump()) {
        continue;
      } else if (w < 0 && errno == EINTR) {
        continue;
      } else {
        break;
      }
    }
  }

  // 0: shutdown(SHUT_WR); 1: close(); 2: close() with a byte unread (as if the client had sent
  // it), which ends the client's reads, once its socket is empty, in ECONNRESET.
  void fin(unsigned how) {
    fin_ = true;
    if (how == 0) {
      shutdown(server_fd_, SHUT_WR);
      return;
    }
    if (how == 2) check(send(client_.fd(), "x", 1, MSG_NOSIGNAL) == 1, "a byte left unread");
    ::close(server_fd_);
    server_fd_ = -1;
  }

  bool server_ready() const {
    return !server_failed_ && SSL_is_init_finished(server_) &&
           (SSL_get_shutdown(server_) & SSL_SENT_SHUTDOWN) == 0;
  }

  void server_write(std::string_view payload) {
    if (payload.empty() || !server_ready()) return;
    size_t n = 0;
    if (SSL_write_ex(server_, payload.data(), payload.size(), &n) == 1) {
      sent_.append(payload.data(), n);
    } else {
      note_server_error(0);
    }
    collect();
  }

  void server_close_notify() {
    if (!server_ready()) return;
    if (SSL_shutdown(server_) >= 0) {
      collect();
      close_notify_end_ = written_out_;
    } else {
      note_server_error(-1);
    }
    ERR_clear_error();
  }

  // Records the server cannot take: it answers each with a fatal alert (encrypted once keys
  // are set) and stops.
  void server_alert(unsigned kind) {
    static constexpr std::string_view kBroken[] = {
        // application data that fails its authentication
        std::string_view("\027\003\003\000\040BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", 37),
        // a plaintext ClientHello of length 0
        std::string_view("\x16\x03\x03\x00\x04\x01\x00\x00\x00", 9),
        // a content type that does not exist
        std::string_view("\x42\x03\x03\x00\x01\x00", 6),
        // a record longer than any allowed
        std::string_view("\x17\x03\x03\xff\xff", 5),
    };
    if (server_failed_) return;
    const std::string_view record = kBroken[kind % 4];
    BIO_write(server_in_, record.data(), static_cast<int>(record.size()));
    server_step();
  }

  void server_key_update(bool requested) {
    if (!server_ready()) return;
    if (SSL_version(server_) == TLS1_3_VERSION) {
      SSL_key_update(server_, requested ? SSL_KEY_UPDATE_REQUESTED : SSL_KEY_UPDATE_NOT_REQUESTED);
    } else {
      SSL_renegotiate(server_);
    }
    const int ret = SSL_do_handshake(server_);
    if (ret <= 0) note_server_error(ret);
    ERR_clear_error();
    collect();
  }

  void server_ticket() {
    if (!server_ready() || SSL_version(server_) != TLS1_3_VERSION) return;
    SSL_new_session_ticket(server_);
    const int ret = SSL_do_handshake(server_);
    if (ret <= 0) note_server_error(ret);
    ERR_clear_error();
    collect();
  }

  // Client. The cache outlives the Transport, whose SSL may store a ticket in it.
  net::TlsSessionCache cache_;
  net::Transport client_;
  Phase phase_ = Phase::kHandshake;
  std::string request_;
  bool head_ = false;
  size_t written_ = 0;  // of the request
  size_t read_size_ = 0;
  size_t received_ = 0;  // bytes the client read
  IoStatus status_ = IoStatus::kOk;
  bool ended_reading_ = false;  // the end came to a read (not the handshake or the write)
  bool bare_fin_ = false;       // closed_without_close_notify() at the end
  proofload::http::ResponseParser parser_;
  ReadStep step_ = ReadStep::kNeedMore;
  bool eof_step_ = false;  // step_ is on_response_eof's
  static inline std::array<char, 65536> buffer_{};

  // Server.
  int server_fd_ = -1;
  SSL* server_ = nullptr;
  BIO* server_in_ = nullptr;   // owned by server_
  BIO* server_out_ = nullptr;  // owned by server_
  bool server_failed_ = false;
  std::string pending_;                 // the server's bytes not yet on the socket
  size_t written_out_ = 0;              // bytes the server's SSL wrote, all told
  size_t delivered_ = 0;                // of them, put on the socket (in order)
  size_t close_notify_end_ = SIZE_MAX;  // where the server's close_notify ends in them
  std::string sent_;                    // application data the server wrote
  size_t filler_ = 0;
  bool injected_ = false;  // raw bytes went on the socket
  bool fin_ = false;
};

// Contexts with their sessions, from one clean exchange of each version: two bytes, then
// close_notify and the FIN.
const Contexts& shared_contexts() {
  static const Contexts* made = [] {
    auto* contexts = new Contexts;
    // Tickets outlive any fuzzing run (the default is 5 minutes).
    SSL_CTX_set_timeout(contexts->server.get(), 24 * 3600);
    for (uint8_t tls12 = 0; tls12 < 2; ++tls12) {
      static constexpr uint8_t kClean[] = {1, 0, 2, 'o', 'k', 2, 3};
      Input input(kClean, sizeof kClean);
      Exchange exchange(*contexts, tls12);
      exchange.run(input);
      contexts->sessions[tls12] = exchange.take_session();
      check(contexts->sessions[tls12] != nullptr, "the server gave no session to resume");
    }
    return contexts;
  }();
  return *made;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Contexts& contexts = shared_contexts();
  if (size == 0) return 0;
  Input input(data, size);
  const uint8_t setup = input.byte();
  Exchange exchange(contexts, setup);
  exchange.run(input);
  return 0;
}
