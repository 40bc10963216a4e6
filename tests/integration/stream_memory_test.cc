// A stream far larger than memory should allow, read as it arrives: 1 GiB of server-sent events
// from the built-in server's sse route, through `proofload run --stream sse`. Apart from the
// other stream tests because it moves a gibibyte: labelled `heavy` (tests/CMakeLists.txt), run by
// `make test`, left out of the sanitizer runs where it would take minutes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "process.h"

namespace proofload::testing {
namespace {

using nlohmann::json;
using std::chrono::seconds;

// A 1 GiB stream (2,048 events of 512 KiB) is read as it arrives: the generator's own peak
// memory stays a small fraction of it. The schedule of one request ends once it is sent: the
// grace is the stream's time to finish, as long as the timeout on a slow or busy machine.
TEST(StreamScenario, AGibibyteStreamIsReadInBoundedMemory) {
  const std::string dir = make_temp_dir("stream-gib");
  const std::string routes = dir + "/routes.yaml";
  write_file(routes,
             "routes:\n  - {path: /big, sse: {events: 2048, over: 1s, event_bytes: 512KiB}}\n");
  ServeProcess server({"--routes", routes, "--exit-after", "120s"});
  const Completed done = run_to_completion(
      {proofload_binary(), "run", server.url("/big"), "--stream", "sse", "--stream-end", "", "-c",
       "1", "-n", "1", "--timeout", "100s", "--grace", "100s", "-q", "-o", dir + "/out"},
      seconds(110));
  ASSERT_EQ(done.exit_code, 0) << done.err;
  const json r = json::parse(read_file(dir + "/out/result.json"));
  const json& s = r["summary"]["streams"];
  EXPECT_EQ(s["completed"], 1) << s.dump(2);
  EXPECT_GE(s["bytes"].get<int64_t>(), int64_t{1} << 30);
  const double peak = r["observed"]["self"]["rss_bytes_peak"].get<double>();
  EXPECT_LT(peak, 128.0 * (1 << 20)) << "peak RSS " << peak;
}

}  // namespace
}  // namespace proofload::testing
