// Every Reproduce section is a command its own parser accepts: the command block of a run's, a
// ladder's, a ladder level's and the demo's summary.md (and the --seed a run's names) is split as
// a shell would split it and run again with --plan, which checks everything and sends nothing.
// A seed of 2^60 and more must come back as the same integer, not as 1.79e+18.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "process.h"

namespace proofload::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// The command in the fenced block under "## Reproduce".
std::string reproduce_command(const std::string& summary) {
  const size_t section = summary.find("## Reproduce\n");
  EXPECT_NE(section, std::string::npos) << summary;
  const size_t open = summary.find("```\n", section);
  const size_t close = summary.find("\n```", open + 4);
  if (open == std::string::npos || close == std::string::npos) return "";
  return summary.substr(open + 4, close - open - 4);
}

// Words as a POSIX shell splits them: spaces apart, '...' literal, "..." with \" and \\ and
// $NAME taken from `env`, a # starting a word begins a comment.
std::vector<std::string> shell_words(const std::string& command,
                                     const std::map<std::string, std::string>& env = {}) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (c == ' ' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else if (c == '\'') {
      const size_t end = command.find('\'', i + 1);
      word += command.substr(i + 1, end - i - 1);
      i = end;
      in_word = true;
    } else if (c == '#' && !in_word) {
      break;
    } else if (c == '"') {
      for (++i; i < command.size() && command[i] != '"'; ++i) {
        if (command[i] == '$') {
          size_t end = i + 1;
          while (end < command.size() && (std::isalnum(command[end]) || command[end] == '_')) ++end;
          const auto value = env.find(command.substr(i + 1, end - i - 1));
          EXPECT_NE(value, env.end()) << "unset variable in " << command;
          if (value != env.end()) word += value->second;
          i = end - 1;
          continue;
        }
        if (command[i] == '\\' && i + 1 < command.size()) ++i;
        word += command[i];
      }
      in_word = true;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

// Runs `command` (as printed: "proofload run ...") again with --plan; its exit code.
Completed replan(const std::string& command, const std::vector<std::string>& extra = {},
                 const std::map<std::string, std::string>& env = {}) {
  std::vector<std::string> words = shell_words(command, env);
  EXPECT_GE(words.size(), 2u) << command;
  EXPECT_EQ(words[0], "proofload") << command;
  words[0] = proofload_binary();
  words.insert(words.end(), extra.begin(), extra.end());
  words.push_back("--plan");
  return run_to_completion(words, 30s);
}

TEST(Reproduce, ARunsCommandAndItsSeedAreAcceptedByRun) {
  ServeProcess server({"--profile", "demo"});
  const std::string dir = make_temp_dir("repro-run");
  std::ofstream(dir + "/mix.yaml") << "data:\n  w: {word: {}}\nrequests:\n"
                                      "  a: {path: \"/sic/description?q=${w}\"}\n";
  // No --seed: the clock picks one (above 2^60), which the report must print exactly.
  const Completed c = run_to_completion({proofload_binary(), "run", dir + "/mix.yaml", server.url(),
                                         "-d", "1s", "-q", "-o", dir + "/out"},
                                        30s);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const json result = json::parse(read_file(dir + "/out/result.json"));
  const uint64_t seed = result["spec"]["scenario"]["seed"].get<uint64_t>();
  const std::string summary = read_file(dir + "/out/summary.md");
  const std::string seed_flag = "--seed " + std::to_string(seed);
  EXPECT_NE(summary.find("`" + seed_flag + "`"), std::string::npos) << summary;
  const Completed again = replan(reproduce_command(summary), {"--seed", std::to_string(seed)});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("seed " + std::to_string(seed)), std::string::npos) << again.out;
}

TEST(Reproduce, ALadderAndEachOfItsLevelsReproduceWithTheirOwnCommands) {
  ServeProcess server;
  const std::string dir = make_temp_dir("repro-ladder");
  const Completed c = run_to_completion(
      {proofload_binary(), "ladder", server.url("/hello"), "--rates", "50,100", "--hold", "1s",
       "--warmup", "0s", "-H", "X-Trace: one two", "-q", "-o", dir + "/out", "--workers", "1"},
      60s);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const std::string ladder = reproduce_command(read_file(dir + "/out/summary.md"));
  EXPECT_TRUE(ladder.starts_with("proofload ladder ")) << ladder;
  const Completed ladder_again = replan(ladder);
  EXPECT_EQ(ladder_again.exit_code, 0) << ladder_again.err;
  // A level's Reproduce is that level's run, not the whole ladder.
  const std::string level = reproduce_command(read_file(dir + "/out/levels/02-100/summary.md"));
  EXPECT_TRUE(level.starts_with("proofload run ")) << level;
  EXPECT_NE(level.find("--rate 100"), std::string::npos) << level;
  EXPECT_NE(level.find("-d 1s"), std::string::npos) << level;
  EXPECT_EQ(level.find("-o "), std::string::npos) << "re-running must not overwrite: " << level;
  const Completed level_again = replan(level);
  EXPECT_EQ(level_again.exit_code, 0) << level_again.err;
  EXPECT_NE(level_again.out.find("open loop at 100"), std::string::npos) << level_again.out;
}

TEST(Reproduce, TheDemoAndItsLevelsReproduce) {
  const std::string dir = make_temp_dir("repro-demo");
  const Completed c = run_to_completion({proofload_binary(), "demo", "--rates", "100", "--hold",
                                         "1s", "--warmup", "0s", "-o", dir + "/out"},
                                        60s);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const std::string demo = reproduce_command(read_file(dir + "/out/summary.md"));
  EXPECT_TRUE(demo.starts_with("proofload demo ")) << demo;
  EXPECT_EQ(replan(demo).exit_code, 0);
  const std::string level = reproduce_command(read_file(dir + "/out/levels/01-100/summary.md"));
  EXPECT_TRUE(level.starts_with("proofload run ")) << level;
  EXPECT_NE(level.find("scenario.yaml"), std::string::npos) << level;  // the demo wrote it there
  const Completed level_again = replan(level);
  EXPECT_EQ(level_again.exit_code, 0) << level_again.err;
}

// A secret given with -H in any spelling, and a header named by --redact: in no file and no
// output of run, ladder and report; the Reproduce lines name the variables to set instead, and
// pasted with them set they run again. A command that refuses the flag does not echo it.
TEST(Reproduce, ASecretHeaderIsWrittenNowhereAndReproduceNamesItsVariable) {
  const std::vector<std::string> secrets = {"SEKRIT-auth", "SEKRIT-cookie", "SEKRIT-key",
                                            "SEKRIT-mine"};
  const std::vector<std::string> headers = {
      "-H", "Authorization: Bearer SEKRIT-auth", "--header=cookie:SEKRIT-cookie",
      "-HX-Api-Key: SEKRIT-key", "--header", "X-Mine: SEKRIT-mine", "--redact", "x-mine"};
  auto expect_nowhere = [&](const std::string& where, const std::string& text) {
    for (const std::string& secret : secrets) {
      EXPECT_EQ(text.find(secret), std::string::npos) << secret << " in " << where;
    }
  };
  auto expect_no_file_holds_them = [&](const std::string& dir) {
    int files = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
      if (!entry.is_regular_file()) continue;
      ++files;
      expect_nowhere(entry.path().string(), read_file(entry.path().string()));
    }
    EXPECT_GT(files, 3) << dir;
  };
  const std::map<std::string, std::string> env = {{"AUTHORIZATION", "Bearer x"},
                                                  {"COOKIE", "c=1"},
                                                  {"X_API_KEY", "k"},
                                                  {"X_MINE", "m"}};
  ServeProcess server;
  const std::string dir = make_temp_dir("repro-secrets");

  std::vector<std::string> run = {proofload_binary(), "run", server.url("/hello"), "-d", "1s",
                                  "-c", "1", "--workers", "1", "-o", dir + "/run"};
  run.insert(run.end(), headers.begin(), headers.end());
  const Completed ran = run_to_completion(run, 30s);
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  expect_nowhere("run's output", ran.out + ran.err);
  expect_no_file_holds_them(dir + "/run");
  const std::string command = reproduce_command(read_file(dir + "/run/summary.md"));
  EXPECT_NE(command.find("-H \"Authorization: $AUTHORIZATION\""), std::string::npos) << command;
  EXPECT_NE(command.find("--header=\"cookie: $COOKIE\""), std::string::npos) << command;
  EXPECT_NE(command.find("# set AUTHORIZATION, COOKIE, X_API_KEY, X_MINE first: their values "
                         "are not recorded"),
            std::string::npos)
      << command;
  EXPECT_EQ(replan(command, {}, env).exit_code, 0);

  std::vector<std::string> ladder = {proofload_binary(), "ladder", server.url("/hello"), "--rates",
                                     "50", "--hold", "1s", "--warmup", "0s", "--workers", "1",
                                     "-o", dir + "/ladder"};
  ladder.insert(ladder.end(), headers.begin(), headers.end());
  const Completed laddered = run_to_completion(ladder, 60s);
  ASSERT_EQ(laddered.exit_code, 0) << laddered.err;
  expect_nowhere("ladder's output", laddered.out + laddered.err);
  expect_no_file_holds_them(dir + "/ladder");
  const std::string level = reproduce_command(read_file(dir + "/ladder/levels/01-50/summary.md"));
  EXPECT_NE(level.find("-H \"X-Mine: $X_MINE\""), std::string::npos) << level;
  EXPECT_EQ(replan(level, {}, env).exit_code, 0);

  const Completed reported = run_to_completion({proofload_binary(), "report", dir + "/ladder"}, 30s);
  EXPECT_EQ(reported.exit_code, 0) << reported.err;
  expect_nowhere("report's output", reported.out + reported.err);
  expect_no_file_holds_them(dir + "/ladder");

  // Refused: demo takes no -H, serve none either; CLI11's message quotes the argument.
  for (const std::string command_name : {"demo", "serve"}) {
    const Completed refused = run_to_completion(
        {proofload_binary(), command_name, "--plan", "--header=Authorization: Bearer SEKRIT-auth"},
        30s);
    EXPECT_EQ(refused.exit_code, 2) << refused.err;
    expect_nowhere(command_name + "'s refusal", refused.out + refused.err);
  }
}

}  // namespace
}  // namespace proofload::testing
