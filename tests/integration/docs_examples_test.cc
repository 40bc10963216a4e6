// The canaries the docs (and README) show, run as written against the built-in server: a
// documented example that never matches (`body_matches: '^ok$'` against "ok\n") fails here, not
// in a user's day-long soak. Every load goes to 127.0.0.1 and ends by itself.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "process.h"

namespace proofload::testing {
namespace {

namespace fs = std::filesystem;

struct Block {
  std::string where;  // "soak.md:90"
  std::string text;
};

// Every ```yaml block of `file` with a top-level `canaries:` key.
std::vector<Block> canary_blocks(const fs::path& file) {
  std::vector<Block> blocks;
  const std::string text = read_file(file.string());
  size_t line_number = 0, start_line = 0;
  bool inside = false;
  std::string block;
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, end - at);
    ++line_number;
    if (!inside && line.starts_with("```yaml")) {
      inside = true;
      block.clear();
      start_line = line_number;
    } else if (inside && line.starts_with("```")) {
      inside = false;
      if (block.starts_with("canaries:") || block.find("\ncanaries:") != std::string::npos) {
        blocks.push_back({file.filename().string() + ":" + std::to_string(start_line), block});
      }
    } else if (inside) {
      block += line + "\n";
    }
    at = end + 1;
  }
  return blocks;
}

TEST(DocsExamples, EveryDocumentedCanaryIsRightAgainstTheBuiltInServer) {
  std::vector<Block> blocks;
  for (const fs::directory_entry& entry : fs::directory_iterator(PL_DOCS_DIR)) {
    if (entry.path().extension() != ".md") continue;
    for (Block& b : canary_blocks(entry.path())) blocks.push_back(std::move(b));
  }
  for (Block& b : canary_blocks(fs::path(PL_DOCS_DIR) / ".." / "README.md")) {
    blocks.push_back(std::move(b));
  }
  ASSERT_GE(blocks.size(), 2u) << "soak.md and scenario.md each show canaries";

  ServeProcess server({"--profile", "demo", "--exit-after", "100s"});
  const std::string dir = make_temp_dir("docs-canaries");
  int index = 0;
  for (const Block& b : blocks) {
    SCOPED_TRACE(b.where);
    // A `canaries:` section shown alone is a scenario's part: the load is one cheap request.
    std::string scenario = b.text;
    if (scenario.find("requests:") == std::string::npos) {
      scenario = "requests:\n  health: {path: /health}\n" + scenario;
    }
    const std::string case_dir = dir + "/" + std::to_string(++index);
    fs::create_directories(case_dir);
    write_file(case_dir + "/s.yaml", scenario);
    const Completed soak = run_to_completion(
        {proofload_binary(), "soak", case_dir + "/s.yaml", server.url(), "--rate", "5", "--hold",
         "2s", "--window", "1s", "--canary-every", "1s", "-q", "-o", case_dir + "/out"},
        std::chrono::seconds(60));
    EXPECT_EQ(soak.exit_code, 0) << soak.err;
    const nlohmann::json result =
        nlohmann::json::parse(read_file(case_dir + "/out/result.json"), nullptr, false);
    ASSERT_TRUE(result.is_object()) << soak.err;
    const nlohmann::json& canaries = result["soak"]["canaries"];
    EXPECT_GT(canaries["total"].get<int64_t>(), 0) << canaries.dump();
    EXPECT_EQ(canaries["right"], canaries["total"]) << canaries.dump(1);
  }
}

}  // namespace
}  // namespace proofload::testing
