// A hostile HTTP/2 server's bytes (which proofload never trusts) through the real Worker's h2c
// path (engine/worker_h2.cc: links, stream slots, GOAWAY, resets, timeouts, reconnects), built
// against simulated time and sockets (engine/simulated_io.h, scripted): every connection the
// worker opens gets the input's bytes, in pieces, from its SETTINGS on. A run is 50 simulated
// milliseconds of load, with 20 ms timeouts and grace. Whatever the server sends, what a user
// reads in the result must hold: the run ends on time without the worker failing (no busy
// loop), every request it counted has exactly one outcome, no response is counted that the
// server was never asked for, every response is timed and has its status, the windows add up to
// the totals, the bytes counted are the bytes that moved, and every streamed request ends as
// exactly one kind of stream end.
//
// Input: byte 0 says how the server plays the rest: bits 0-4 the piece size (0: a frame a piece,
// as each frame header gives its length; n: n bytes), bit 5 long gaps between pieces (2 ms, not
// 1 us), bit 6 the server closes the connection after its last piece. Byte 1 says the load:
// bit 0 open loop (500/s, one connection growing to two) rather than closed loop, bit 1 two
// connections (closed loop), bit 2 every response read as an event stream (--stream sse, with a
// 5 ms stream idle timeout). The rest is what the server sends. The first three connects get it,
// later ones are refused.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "engine/simulated_io.h"
#include "engine/window_mailbox.h"
#include "engine/worker.h"
#include "measure/outcome.h"

namespace {

using proofload::kNsPerMs;
using proofload::kNsPerUs;
using proofload::engine::Executor;
using proofload::engine::LoadSpec;
using proofload::engine::Protocol;
using proofload::engine::RunControl;
using proofload::engine::WindowMailbox;
using proofload::engine::Worker;
using proofload::measure::Outcome;
using proofload::measure::WindowStats;
namespace simulated = proofload::engine::simulated;

constexpr int64_t kDurationNs = 50 * kNsPerMs;
constexpr int64_t kTimeoutNs = 20 * kNsPerMs;  // connect, request and the grace after the end
constexpr int64_t kSweepNs = 10 * kNsPerMs;    // the worker's sweep: timeouts land within one

void require(bool holds) {
  if (!holds) std::abort();
}

// The server's bytes cut into the pieces it writes, a gap apart.
std::vector<std::string> pieces_of(const uint8_t* data, size_t size, size_t piece_bytes) {
  std::vector<std::string> pieces;
  for (size_t at = 0; at < size;) {
    size_t n = piece_bytes;
    if (n == 0) {  // a frame: its 9-byte header and the length it gives
      n = size - at >= 3 ? 9 + (size_t{data[at]} << 16 | size_t{data[at + 1]} << 8 | data[at + 2])
                         : size - at;
    }
    n = std::min(n, size - at);
    pieces.emplace_back(reinterpret_cast<const char*>(data + at), n);
    at += n;
  }
  return pieces;
}

LoadSpec load_of(uint8_t flags) {
  static const auto workload =
      proofload::workload::Workload::fixed("GET /a HTTP/1.1\r\nHost: sim\r\n\r\n", false);
  static const auto sse = std::make_shared<const proofload::workload::StreamRules>();
  LoadSpec spec;
  spec.workload = workload;
  spec.protocol = Protocol::kHttp2;
  spec.h2_streams = 4;
  if (flags & 1) {
    spec.executor = Executor::kOpenLoop;
    spec.profile = proofload::schedule::Profile::constant(500, kDurationNs);
    spec.connections = 1;
    spec.max_connections = 2;
    spec.queue_capacity = 100;
  } else {
    spec.executor = Executor::kClosedLoop;
    spec.connections = (flags & 2) ? 2 : 1;
    spec.max_connections = spec.connections;
    spec.profile = proofload::schedule::Profile::constant(spec.connections, kDurationNs);
  }
  if (flags & 4) {
    spec.stream = sse;
    spec.stream_idle_timeout_ns = 5 * kNsPerMs;
  }
  spec.send.connect_timeout_ns = kTimeoutNs;
  spec.send.request_timeout_ns = kTimeoutNs;
  spec.send.grace_ns = kTimeoutNs;
  return spec;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  simulated::ServerModel model;
  model.script = pieces_of(data + 2, size - 2, data[0] & 31);
  model.script_gap_ns = (data[0] & 32) ? 2 * kNsPerMs : kNsPerUs;
  model.script_close = (data[0] & 64) != 0;
  model.refuse_connects_after = 3;
  const LoadSpec spec = load_of(data[1]);

  simulated::World world(model);
  RunControl control;
  WindowMailbox mailbox(1);
  const int64_t start_ns = world.now();
  std::string failure;
  {
    Worker worker(spec, 0, start_ns, control, mailbox);
    worker.run();
    failure = worker.failure();
  }
  // The run ended, on time: no busy loop (the World fails one), nothing waited past the grace.
  require(failure.empty());
  require(world.now() <= start_ns + kDurationNs + spec.send.grace_ns + kSweepNs);

  WindowStats windows;  // every window's counts added up
  while (std::optional<WindowStats> window = mailbox.next_merged()) windows.merge(*window);
  WindowStats total = mailbox.measured_total();
  total.merge(mailbox.warmup_total());
  const simulated::ServerStats& server = world.stats();

  // Every request counted has exactly one outcome, in its window and in the totals.
  require(total.ended() == total.intended);
  require(windows.ended() == total.ended());
  require(windows.intended == total.intended);
  for (int o = 0; o < proofload::measure::kOutcomeCount; ++o) {
    require(windows.outcomes[o] == total.outcomes[o]);
  }
  if (spec.executor == Executor::kClosedLoop) require(total.count(Outcome::kNeverStarted) == 0);
  // A response is counted only for a request the server received, with its status and times.
  const int64_t responses = total.responses();
  require(responses <= server.requests);
  require(total.latency_us.total_count() == responses);
  require(total.service_us.total_count() == responses);
  int64_t statuses = 0;
  for (int64_t n : total.status) statuses += n;
  require(statuses == responses);
  // Bytes counted are the bytes that moved.
  require(windows.bytes_in == server.bytes_read);
  require(windows.bytes_out == server.bytes_written);
  require(windows.connects <= server.connects_attempted - server.connects_refused);
  // A streamed request (each one that went out, or failed on its way) ends as one kind of end.
  if (spec.stream) {
    const int64_t unsent =
        total.count(Outcome::kNeverStarted) + total.count(Outcome::kConnectError);
    require(total.streams.ended() == total.ended() - unsent);
    require(windows.streams.ended() == total.streams.ended());
  }
  return 0;
}
