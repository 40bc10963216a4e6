// Every example the docs and README show, as written, against the built-in server: a documented
// example that never matches (`body_matches: '^ok$'` against "ok\n"), a flag renamed since, a
// scenario whose checks the server it names fails, fails here, not in a user's day-long soak.
//
// - every ```yaml block is a scenario (run against the demo profile: no errors), a canary section
//   (soaked: every canary right), a routes file (served, and a plain route of it answers), a
//   compare matrix (planned), a Prometheus configuration (checked by promtool) or a `json:` body
//   (sent as a POST's); a block of no known kind fails, so that a new one is given its test;
// - every `proofload` command of a ```sh block is planned (`--plan` sends nothing) when it is a
//   load, run when it only reads files that exist, and has only flags its command knows
//   otherwise (it needs what an earlier example made: a recorded directory, a running soak).
//
// Usage synopses (`proofload run URL [options]`) are ```text blocks and are not run. Every load
// goes to 127.0.0.1 and ends by itself; a command naming another address is only planned, and a
// plan sends nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "process.h"

namespace proofload::testing {
namespace {

namespace fs = std::filesystem;

struct Block {
  std::string where;  // "soak.md:90"
  std::string lang;   // "yaml", "sh", "text", ""
  std::string text;
};

std::vector<Block> blocks_of(const fs::path& file) {
  std::vector<Block> blocks;
  const std::string text = read_file(file.string());
  size_t line_number = 0, at = 0;
  std::optional<Block> open;
  while (at < text.size()) {
    const size_t end = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, end - at);
    ++line_number;
    if (line.starts_with("```")) {
      if (open) {
        blocks.push_back(std::move(*open));
        open.reset();
      } else {
        open =
            Block{file.filename().string() + ":" + std::to_string(line_number), line.substr(3), ""};
      }
    } else if (open) {
      open->text += line + "\n";
    }
    at = end + 1;
  }
  return blocks;
}

// README.md and every page of docs/.
std::vector<Block> documented_blocks() {
  std::vector<fs::path> files{fs::path(PL_DOCS_DIR) / ".." / "README.md"};
  for (const fs::directory_entry& entry : fs::directory_iterator(PL_DOCS_DIR)) {
    if (entry.path().extension() == ".md") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<Block> blocks;
  for (const fs::path& file : files) {
    for (Block& b : blocks_of(file)) blocks.push_back(std::move(b));
  }
  return blocks;
}

bool has_top_key(const std::string& yaml, const std::string& key) {
  return yaml.starts_with(key + ":") || yaml.find("\n" + key + ":") != std::string::npos;
}

enum class Kind { kScenario, kCanaries, kRoutes, kMatrix, kPrometheus, kJsonBody };

Kind kind_of(const Block& b) {
  if (has_top_key(b.text, "routes")) return Kind::kRoutes;
  if (has_top_key(b.text, "checks")) return Kind::kMatrix;
  if (has_top_key(b.text, "scrape_configs")) return Kind::kPrometheus;
  if (has_top_key(b.text, "requests")) return Kind::kScenario;
  if (has_top_key(b.text, "canaries")) return Kind::kCanaries;
  if (has_top_key(b.text, "json")) return Kind::kJsonBody;
  ADD_FAILURE() << b.where << ": a yaml block of no known kind; say in docs_examples_test what "
                << "it is and how it is tested:\n"
                << b.text;
  return Kind::kJsonBody;
}

std::vector<Block> yaml_blocks(Kind kind) {
  std::vector<Block> out;
  for (Block& b : documented_blocks()) {
    if (b.lang == "yaml" && kind_of(b) == kind) out.push_back(std::move(b));
  }
  return out;
}

// A directory holding a copy of examples/ (scenarios' data files, routes, matrices), as the
// docs' relative paths expect, with the fixture the stream example records.
std::string example_workspace(const std::string& name, const ServeProcess* server = nullptr) {
  const std::string dir = make_temp_dir(name);
  fs::copy(PL_EXAMPLES_DIR, dir + "/examples", fs::copy_options::recursive);
  if (server != nullptr) {
    fs::create_directories(dir + "/examples/fixtures");
    const std::string answer = http_get(server->port(), "/stream");
    const size_t body = answer.find("\r\n\r\n");
    EXPECT_NE(body, std::string::npos) << "/stream gave no answer";
    write_file(dir + "/examples/fixtures/events.sse",
               body == std::string::npos ? "" : answer.substr(body + 4));
  }
  return dir;
}

int64_t json_count(const nlohmann::json& v) { return v.is_number() ? v.get<int64_t>() : 0; }

TEST(DocsExamples, EveryDocumentedScenarioRunsCleanAgainstTheBuiltInServer) {
  std::vector<Block> scenarios = yaml_blocks(Kind::kScenario);
  for (Block& b : yaml_blocks(Kind::kJsonBody)) {
    // A `json:` body shown alone: the body of a POST, with the variables it uses.
    b.text =
        "data:\n  word: {word: {}}\n  company: {values: [acme]}\nrequests:\n  create:\n"
        "    method: POST\n    path: /items\n    " +
        b.text;
    scenarios.push_back(std::move(b));
  }
  ASSERT_GE(scenarios.size(), 5u) << "scenario.md, soak.md and streaming.md show scenarios";

  ServeProcess server({"--profile", "demo", "--exit-after", "300s"});
  const std::string dir = example_workspace("docs-scenarios", &server);
  int index = 0;
  for (const Block& b : scenarios) {
    SCOPED_TRACE(b.where);
    // Beside examples' own files, so that `data/companies.csv` and `fixtures/` resolve; at a
    // modest rate, so that the demo's item store never fills (its 503 is an answer, not a mistake
    // of the example), with a grace that lets every stream begun finish (the demo's completions
    // take up to 3 s, queued past 8 at once).
    const std::string file = dir + "/examples/docs-" + std::to_string(++index) + ".yaml";
    write_file(file, b.text);
    const std::string out = dir + "/out-" + std::to_string(index);
    const Completed run = run_to_completion(
        {"/usr/bin/env", "TOKEN=docs-example", proofload_binary(), "run", file, server.url(), "-d",
         "4s", "--rate", "10", "--warmup", "0", "--grace", "30s", "-q", "-o", out},
        std::chrono::seconds(60));
    EXPECT_EQ(run.exit_code, 0) << run.err;
    const nlohmann::json result =
        nlohmann::json::parse(read_file(out + "/result.json"), nullptr, false);
    ASSERT_TRUE(result.is_object()) << run.err;
    EXPECT_GT(json_count(result["summary"]["requests"]), 0) << result["summary"].dump();
    EXPECT_EQ(json_count(result["summary"]["errors"]), 0) << result["requests"].dump(1);
    for (const auto& [name, request] : result["requests"].items()) {
      EXPECT_GT(json_count(request["requests"]), 0) << name << " was never sent";
    }
  }
}

TEST(DocsExamples, EveryDocumentedCanaryIsRightAgainstTheBuiltInServer) {
  std::vector<Block> blocks = yaml_blocks(Kind::kCanaries);
  for (Block& b : yaml_blocks(Kind::kScenario)) {
    if (has_top_key(b.text, "canaries")) blocks.push_back(std::move(b));
  }
  ASSERT_GE(blocks.size(), 2u) << "soak.md and scenario.md each show canaries";

  ServeProcess server({"--profile", "demo", "--exit-after", "100s"});
  const std::string dir = make_temp_dir("docs-canaries");
  int index = 0;
  for (const Block& b : blocks) {
    SCOPED_TRACE(b.where);
    // A `canaries:` section shown alone is a scenario's part: the load is one cheap request.
    std::string scenario = b.text;
    if (!has_top_key(scenario, "requests")) {
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
    EXPECT_GT(json_count(canaries["total"]), 0) << canaries.dump();
    EXPECT_EQ(canaries["right"], canaries["total"]) << canaries.dump(1);
  }
}

// The first `path:` of a routes file without `{` or a method other than GET: a route to ask.
std::string first_plain_path(const std::string& routes) {
  size_t at = 0;
  while ((at = routes.find("path: ", at)) != std::string::npos) {
    const size_t line_start = routes.rfind('\n', at) + 1;
    const std::string line = routes.substr(line_start, routes.find('\n', at) - line_start);
    at += 6;
    if (line.find("method:") != std::string::npos ||
        line.find('{', line.find("path:")) != std::string::npos) {
      continue;
    }
    std::string path = line.substr(line.find("path: ") + 6);
    path = path.substr(0, path.find_first_of(",} "));
    if (!path.empty()) return path;
  }
  return "";
}

TEST(DocsExamples, EveryDocumentedRoutesFileServesItsRoutes) {
  const std::vector<Block> blocks = yaml_blocks(Kind::kRoutes);
  ASSERT_GE(blocks.size(), 4u) << "serve-routes.md and probe.md show routes files";
  const std::string dir = make_temp_dir("docs-routes");
  int index = 0;
  for (const Block& b : blocks) {
    SCOPED_TRACE(b.where);
    const std::string file = dir + "/routes-" + std::to_string(++index) + ".yaml";
    write_file(file, b.text);
    ServeProcess server({"--routes", file, "--exit-after", "30s"});
    const std::string path = first_plain_path(b.text);
    ASSERT_FALSE(path.empty()) << "no plain GET route to ask";
    EXPECT_TRUE(http_get(server.port(), path).starts_with("HTTP/1.1 "))
        << path << " gave no answer";
  }
}

TEST(DocsExamples, EveryDocumentedMatrixIsPlanned) {
  const std::vector<Block> blocks = yaml_blocks(Kind::kMatrix);
  ASSERT_GE(blocks.size(), 2u) << "compare.md shows matrices";
  const std::string dir = make_temp_dir("docs-matrices");
  int index = 0;
  for (const Block& b : blocks) {
    SCOPED_TRACE(b.where);
    const std::string file = dir + "/m-" + std::to_string(++index) + ".yaml";
    write_file(file, b.text);
    const Completed plan =
        run_to_completion({proofload_binary(), "compare", file, "--a", "http://127.0.0.1:8081",
                           "--b", "http://127.0.0.1:8082", "--reset", "true", "--plan"});
    EXPECT_EQ(plan.exit_code, 0) << plan.err;
    EXPECT_TRUE(plan.out.starts_with("Compare: ")) << plan.out.substr(0, 400);
  }
}

TEST(DocsExamples, EveryDocumentedPrometheusConfigurationIsValid) {
  if (!fs::exists("/usr/bin/promtool")) {
    GTEST_SKIP() << "no /usr/bin/promtool (Debian's prometheus package; scripts/bootstrap "
                    "installs it)";
  }
  const std::vector<Block> blocks = yaml_blocks(Kind::kPrometheus);
  ASSERT_GE(blocks.size(), 1u) << "live.md shows a scrape configuration";
  const std::string dir = make_temp_dir("docs-prometheus");
  for (const Block& b : blocks) {
    SCOPED_TRACE(b.where);
    write_file(dir + "/prometheus.yml", b.text);
    const Completed check =
        run_to_completion({"/usr/bin/promtool", "check", "config", dir + "/prometheus.yml"});
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  }
}

// ---- commands ----

struct Command {
  std::string where;
  std::string line;                // joined over `\` continuations, its comment cut
  std::vector<std::string> words;  // split as sh would, quotes removed
};

// Splits `line` into words as sh would (quotes, no expansion) and cuts a comment (` #` outside
// quotes). $(...) and ${...} stay inside their word.
std::vector<std::string> shell_words(std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  int parens = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote != 0) {
      if (c == quote)
        quote = 0;
      else
        word += c;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '(' && i > 0 && line[i - 1] == '$') {
      ++parens;
      word += c;
    } else if (c == ')' && parens > 0) {
      --parens;
      word += c;
    } else if ((c == ' ' || c == '\t') && parens == 0) {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else if (c == '#' && !in_word && parens == 0) {
      line = line.substr(0, i);
      break;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

std::vector<Command> documented_commands() {
  std::vector<Command> commands;
  for (const Block& b : documented_blocks()) {
    if (b.lang != "sh") continue;
    std::vector<std::string> lines;
    size_t at = 0;
    while (at < b.text.size()) {
      const size_t end = b.text.find('\n', at);
      lines.push_back(b.text.substr(at, end - at));
      at = end + 1;
    }
    for (size_t i = 0; i < lines.size(); ++i) {
      std::string line = lines[i];
      const size_t first = i;
      while (line.ends_with("\\") && i + 1 < lines.size()) {
        line = line.substr(0, line.size() - 1) + " " + lines[++i];
      }
      const size_t start = line.find_first_not_of(' ');
      if (start == std::string::npos || line.compare(start, 10, "proofload ") != 0) continue;
      line = line.substr(start);
      Command c{b.where + "+" + std::to_string(first + 1), line, {}};
      c.words = shell_words(c.line);
      while (!c.line.empty() && (c.line.back() == ' ' || c.line.back() == '&')) c.line.pop_back();
      if (!c.words.empty() && c.words.back() == "&") c.words.pop_back();
      commands.push_back(std::move(c));
    }
  }
  return commands;
}

// The long flags `proofload SUB [SUB2] --help` lists.
std::set<std::string> flags_of(const std::vector<std::string>& command) {
  std::vector<std::string> args{proofload_binary()};
  args.insert(args.end(), command.begin(), command.end());
  args.push_back("--help");
  const Completed help = run_to_completion(args);
  std::set<std::string> flags;
  size_t at = 0;
  while ((at = help.out.find("--", at)) != std::string::npos) {
    size_t end = at + 2;
    while (end < help.out.size() &&
           (std::isalnum(static_cast<unsigned char>(help.out[end])) || help.out[end] == '-')) {
      ++end;
    }
    flags.insert(help.out.substr(at, end - at));
    at = end;
  }
  return flags;
}

const std::set<std::string> kLoads = {"run", "ladder", "soak", "probe", "compare", "sizing"};

TEST(DocsExamples, EveryDocumentedCommandIsPlannedOrKnowsItsFlags) {
  const std::vector<Command> commands = documented_commands();
  ASSERT_GE(commands.size(), 40u) << "README and the docs show commands";
  const std::string dir = example_workspace("docs-commands");
  // What the examples name as already there: a CA file, the scenario's secret.
  const std::string pem = dir + "/ca.pem";
  { ServeProcess tls({"--tls-self-signed", pem, "--exit-after", "10s"}); }
  std::map<std::string, std::set<std::string>> known_flags;
  int planned = 0, checked = 0;
  for (const Command& c : commands) {
    SCOPED_TRACE(c.where + ": " + c.line);
    ASSERT_GE(c.words.size(), 2u);
    const std::string& sub = c.words[1];
    // `compare --a DIR --b DIR` judges recorded directories: it reads files, and plans nothing.
    const bool recorded = sub == "compare" && c.words.size() > 2 && c.words[2] == "--a";
    if (sub == "analyze") {
      // Reads a table that examples/ holds: run as written.
      const Completed analyze = run_to_completion(
          {"/bin/sh", "-c", "cd '" + dir + "' && '" + proofload_binary() + "'" + c.line.substr(9)});
      EXPECT_TRUE(analyze.exit_code == 0 || analyze.exit_code == 99) << analyze.err;
      ++planned;
      continue;
    }
    if (kLoads.contains(sub) && !recorded) {
      // The date a segment example names is in the past by now: the plan refuses a start more
      // than a day ago, so it is planned two minutes ahead instead.
      std::string line = c.line;
      if (const size_t at = line.find("--start-at 20"); at != std::string::npos) {
        line.replace(at, line.find(' ', at + 11) - at, "--start-at +2m");
      }
      // serve.md's certificate, written by the server it starts: the one made above.
      if (const size_t at = line.find("/tmp/serve.pem"); at != std::string::npos) {
        line.replace(at, 14, pem);
      }
      const Completed plan = run_to_completion(
          {"/bin/sh", "-c",
           "cd '" + dir + "' && PATH='" + fs::path(proofload_binary()).parent_path().string() +
               "':$PATH && export I=0 API_TOKEN=docs-example TOKEN=docs-example && " + line +
               " --plan"});
      EXPECT_EQ(plan.exit_code, 0) << plan.err;
      ++planned;
      continue;
    }
    // Needs what an earlier example made: its flags, at least, are its command's.
    std::vector<std::string> command{sub};
    if (sub == "k8s" && c.words.size() > 2) command.push_back(c.words[2]);
    const std::string key = command.size() == 1 ? sub : sub + " " + command[1];
    if (!known_flags.contains(key)) known_flags[key] = flags_of(command);
    const std::set<std::string>& flags = known_flags[key];
    EXPECT_FALSE(flags.empty()) << "proofload " << key << " --help lists no flag";
    for (size_t i = 2; i < c.words.size(); ++i) {
      if (c.words[i] == "--") break;  // what follows is the experiment's own command line
      if (!c.words[i].starts_with("--")) continue;
      const std::string flag = c.words[i].substr(0, c.words[i].find('='));
      EXPECT_TRUE(flags.contains(flag)) << flag << " is not a flag of proofload " << key;
    }
    ++checked;
  }
  EXPECT_GT(planned, 20);
  EXPECT_GT(checked, 10);
}

}  // namespace
}  // namespace proofload::testing
