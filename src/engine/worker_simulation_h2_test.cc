// The real Worker over HTTP/2 in simulated time, where HTTP/2 differs from HTTP/1.1 (the cases
// both share run over each session in worker_simulation_test.cc): streams sharing a connection
// against nghttp2's server session, and a server scripted frame by frame.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/clock.h"
#include "engine/simulated_io.h"
#include "engine/worker_simulation_support.h"
#include "http/h2_frame_test_support.h"
#include "measure/outcome.h"

namespace proofload::engine {
namespace {

using measure::Outcome;
using proofload::testing::h2_frame;
using proofload::testing::kH2Data;
using proofload::testing::kH2EndHeaders;
using proofload::testing::kH2EndStream;
using proofload::testing::kH2Headers;
using proofload::testing::kH2Settings;
using simulation::closed_loop;
using simulation::expect_latency_us;
using simulation::open_loop;
using simulation::Result;
using simulation::run_worker;

// HTTP/2 with several streams a connection, against nghttp2's server session
// (ServerModel::http2): what differs from HTTP/1.1 is that the streams share their connection.
LoadSpec over_streams(LoadSpec spec, int streams) {
  spec.protocol = Protocol::kHttp2;
  spec.h2_streams = streams;
  return spec;
}

simulated::ServerModel h2_server(int64_t service_ns) {
  simulated::ServerModel model;
  model.http2 = true;
  model.service_ns = service_ns;
  return model;
}

// Two connections of four streams: eight users, each a request every 5 ms, on two connects.
TEST(WorkerSimulationHttp2, UsersAreStreamsSharingTheirConnection) {
  const Result r =
      run_worker(over_streams(closed_loop(2, 5 * kNsPerS), 4), h2_server(5 * kNsPerMs));
  ASSERT_EQ(r.failure, "");
  EXPECT_NEAR(static_cast<double>(r.measured.count(Outcome::kSuccess)), 8'000, 8);
  EXPECT_EQ(r.measured.errors(), 0);
  EXPECT_EQ(r.server.connects_attempted, 2);
  EXPECT_EQ(r.server.most_open, 2);
  expect_latency_us(r.measured.latency_us.max(), 5'000);
}

// A stream the server never answers times out alone: its connection and the other streams on it
// go on (over HTTP/1.1 the connection would close with it, and be reopened).
TEST(WorkerSimulationHttp2, AnUnansweredStreamTimesOutAndItsConnectionStays) {
  simulated::ServerModel model = h2_server(5 * kNsPerMs);
  model.ignore_every_nth_request = 10;
  LoadSpec spec = over_streams(open_loop(100, 3 * kNsPerS, 2, 2), 5);
  spec.send.request_timeout_ns = 500 * kNsPerMs;
  const Result r = run_worker(spec, model);
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.measured.intended, 300);
  EXPECT_EQ(r.server.ignored, 30);
  EXPECT_EQ(r.measured.count(Outcome::kTimeout), 30);
  EXPECT_EQ(r.measured.count(Outcome::kSuccess), 270);
  EXPECT_EQ(r.server.connects_attempted, 2);
  EXPECT_EQ(r.server.closes, 0);
  expect_latency_us(r.measured.latency_us.max(), 5'000);
}

// --h2-window: each stream's window is what the worker announced, and a response of six windows
// arrives whole, the worker growing the window as it reads (the default window never holds one).
TEST(WorkerSimulationHttp2, AResponseLargerThanTheStreamWindowArrivesAsTheWindowGrows) {
  simulated::ServerModel model = h2_server(5 * kNsPerMs);
  model.body = std::string(96 * 1024, 'x');
  LoadSpec spec = over_streams(closed_loop(1, kNsPerS), 2);
  spec.send.h2_stream_window_bytes = 16 * 1024;
  const Result small = run_worker(spec, model);
  ASSERT_EQ(small.failure, "");
  EXPECT_EQ(small.server.h2_stream_window, 16 * 1024);
  EXPECT_GT(small.measured.count(Outcome::kSuccess), 100);
  EXPECT_EQ(small.measured.errors(), 0);
  EXPECT_GE(small.server.bytes_read, small.measured.count(Outcome::kSuccess) * 96 * 1024);

  spec.send.h2_stream_window_bytes.reset();
  const Result large = run_worker(spec, model);
  EXPECT_EQ(large.server.h2_stream_window, (1 << 30) - 1);
  // Each window update the small window needed is bytes the worker wrote besides its requests.
  EXPECT_GT(small.server.bytes_written / small.server.requests,
            large.server.bytes_written / large.server.requests);
}

// A scripted server (ServerModel::script, the h2_worker fuzzing harness's), a frame a piece after
// the client's preface: SETTINGS frames with these payloads, then a 200 with the body "ok" on
// streams 1 and 3. One connection: those after it are refused.
simulated::ServerModel h2_script(const std::vector<std::string>& settings) {
  simulated::ServerModel model;
  for (const std::string& payload : settings) {
    model.script.push_back(h2_frame(kH2Settings, 0, 0, payload));
  }
  for (uint32_t stream : {1u, 3u}) {
    model.script.push_back(h2_frame(kH2Headers, kH2EndHeaders, stream, "\x88"));  // :status 200
    model.script.push_back(h2_frame(kH2Data, kH2EndStream, stream, "ok"));
  }
  model.refuse_connects_after = 1;
  return model;
}

// One connection of four streams, each a closed-loop user.
LoadSpec h2_users(int64_t duration_ns) {
  LoadSpec spec = closed_loop(1, duration_ns);
  spec.protocol = Protocol::kHttp2;
  spec.h2_streams = 4;
  return spec;
}

// SETTINGS at once, then a frame every 60 ms (the first after the run's start at 50 ms): 200 on
// streams 1 and 3 (the first two of the four slots), then a close. Two successes; the three
// streams still open are reset with it: 5, 7 and 9, which the first user sent at 120 ms, on its
// answer, before the end at 150 ms.
TEST(WorkerSimulationScripted, AnHttp2ServerFrameByFrame) {
  simulated::ServerModel model = h2_script({""});
  model.script_gap_ns = 60 * kNsPerMs;
  model.script_close = true;
  const Result r = run_worker(h2_users(100 * kNsPerMs), model);
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.server.requests, 5) << "the HEADERS of five streams";
  EXPECT_EQ(r.measured.count(Outcome::kSuccess), 2);
  EXPECT_EQ(r.measured.count(Outcome::kReset), 3);
  EXPECT_EQ(r.server.closes, 1);
  EXPECT_EQ(r.measured.ended(), r.measured.intended);
}

// A server that allows no stream until it is ready, then raises its limit (SETTINGS of
// MAX_CONCURRENT_STREAMS 0, then 4): the slots start once it does. Before, the worker read the
// limit from the first SETTINGS only, and nothing was ever sent on the connection.
TEST(WorkerSimulationScripted, AServerThatRaisesItsStreamLimitGetsTheStreamsItAllows) {
  const auto max_streams = [](char n) {
    return std::string("\x00\x03\x00\x00\x00", 5) + n;  // SETTINGS_MAX_CONCURRENT_STREAMS
  };
  simulated::ServerModel model = h2_script({max_streams(0), max_streams(4)});
  model.script_gap_ns = 30 * kNsPerMs;  // the raise at 30 ms, before the run's start at 50 ms;
                                        // the answers from 60 ms
  const Result r = run_worker(h2_users(200 * kNsPerMs), model);
  ASSERT_EQ(r.failure, "");
  EXPECT_GE(r.server.requests, 4) << "the four slots' streams, once the limit was raised";
  EXPECT_EQ(r.measured.count(Outcome::kSuccess), 2);
}

}  // namespace
}  // namespace proofload::engine
