// A shared limit that holds twice what each caller was promised, probed from two loopback
// sources: told two allowances, not one. Labelled `timing`: sharing shows only in how the split
// between the sources varies from second to second, and a generator as slow as a sanitizer's can
// split the limit so evenly, second after second, that no probe tells it from two allowances of
// their own (what the one-allowance test in probe_test.cc falls back on, the total against
// --expect, is here the same for both). Every load goes to 127.0.0.1 from 127.0.0.x and ends by
// itself.
#include <gtest/gtest.h>

#include "probe_support.h"
#include "process.h"

namespace proofload::testing {
namespace {

// The report's ingress case: one shared limit holding twice what each caller was promised (here
// 100/s where --expect says 50/s). Two sources split it and move against each other as sharers
// do, but together they get two allowances of 50/s, and the verdict must say two, not one. (At
// 100/s each source's count varies by about a tenth from second to second here; at 200/s the
// split came out too even to show sharing.)
TEST(Probe, TwoSourcesSharingTwoAllowancesAreToldTwoNotOne) {
  const std::string dir = make_temp_dir("probe-two-shared");
  ServeProcess server({"--routes", limited_routes(dir, "{rate: 100, burst: 50, key: shared:1}"),
                       "--exit-after", "60s"});
  std::string err;
  const int code = probe(
      server, dir + "/out",
      {"--sources", "127.0.0.2,127.0.0.3", "-d", "6s", "--settle", "1s", "--expect", "50/s"}, &err);
  EXPECT_EQ(code, 99) << "the limit does not work per address: " << err;
  const json result = read_json(dir + "/out/result.json");
  const json& probe = result["probe"];
  ASSERT_EQ(probe["verdict"], "shared allowance") << probe["reason"];
  EXPECT_EQ(probe["shared_by"], json::array({"127.0.0.2", "127.0.0.3"}));
  ASSERT_TRUE(probe["allowances_implied"].is_number()) << probe.dump();
  EXPECT_NEAR(probe["allowances_implied"].get<double>(), 2, 0.2) << probe["reason"];
  const std::string reason = probe["reason"];
  EXPECT_NE(reason.find("127.0.0.2 and 127.0.0.3 share two allowances: "), std::string::npos)
      << reason;
  EXPECT_EQ(reason.find("one allowance"), std::string::npos) << reason;
  const std::string summary = read_file(dir + "/out/summary.md");
  EXPECT_NE(summary.find("| Does each address get its own allowance? | Shared allowance: "
                         "127.0.0.2 and 127.0.0.3 share two allowances"),
            std::string::npos)
      << summary;
}

}  // namespace
}  // namespace proofload::testing
