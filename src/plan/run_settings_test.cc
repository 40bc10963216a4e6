// What the one table of run settings promises the rest of proofload: a default said in help is
// the RunSpec's own; what a setting reads, its Reproduce writes back in a form that reads the same;
// its check and its record are the run's; names and flags are each declared once.
#include "plan/run_settings.h"

#include <gtest/gtest.h>

#include <set>

#include "common/usage_error_test_support.h"
#include "plan/plan_run.h"

namespace proofload::plan {
namespace {

RunSpec with_target() {
  RunSpec spec;
  spec.target = "http://127.0.0.1:8080/";
  return spec;
}

// The Reproduce command's arguments after the URL.
std::string reproduced(const RunSpec& spec) {
  const std::string bare = run_command_text(with_target(), std::nullopt);
  const std::string text = run_command_text(spec, spec.seed);
  EXPECT_EQ(text.substr(0, bare.size()), bare);
  return text.substr(bare.size());
}

TEST(RunSettings, EachNameAndFlagIsDeclaredOnce) {
  std::set<std::string> names, flags;
  for (const RunSetting& setting : run_settings()) {
    EXPECT_TRUE(names.insert(std::string(setting.name)).second) << setting.name;
    EXPECT_NE(setting.read, nullptr) << setting.name;
    EXPECT_FALSE(setting.help.empty()) << setting.name;
    // The setting's name is its long flag.
    EXPECT_NE(std::string(setting.flags).find("--" + std::string(setting.name)), std::string::npos)
        << setting.flags;
    for (std::string_view list : {setting.flags, setting.aliases}) {
      std::string all(list);
      for (size_t start = 0; start < all.size();) {
        size_t comma = all.find(',', start);
        if (comma == std::string::npos) comma = all.size();
        EXPECT_TRUE(flags.insert(all.substr(start, comma - start)).second)
            << all.substr(start, comma - start) << " is declared twice";
        start = comma + 1;
      }
    }
  }
  EXPECT_EQ(find_run_setting("grace")->flags, "--grace");
  EXPECT_EQ(find_run_setting("no-such-setting"), nullptr);
}

TEST(RunSettings, TheDefaultHelpSaysIsTheRunSpecsOwn) {
  for (const RunSetting& setting : run_settings()) {
    if (setting.default_text.empty()) continue;
    RunSpec spec = with_target();
    setting.read({std::string(setting.default_text)}, spec);
    EXPECT_EQ(reproduced(spec), "")
        << setting.name << " reads its default '" << setting.default_text << "' as something else";
  }
}

TEST(RunSettings, WhatASettingReadsItsReproduceWritesBackTheSame) {
  const SettingTexts texts = {
      {"rate", {"2.5k"}},
      {"connections", {"7"}},
      {"duration", {"1m30s"}},
      {"warmup", {"2s"}},
      {"requests", {"900"}},
      {"queue", {"12"}},
      {"method", {"POST"}},
      {"header", {"X-A: 1"}},
      {"body", {"{}"}},
      {"timeout", {"1.5s"}},
      {"connect-timeout", {"2s"}},
      {"grace", {"250ms"}},
      {"insecure", {"true"}},
      {"tls-min", {"1.3"}},
      {"workers", {"3"}},
      {"io", {"epoll"}},
      {"sources", {"2"}},
      {"segment", {"1/3"}},
      {"threshold", {"p95 < 1s"}},
      {"seed", {"42"}},
      {"observe", {"host", "pid:1"}},
      {"observe-every", {"100ms"}},
      {"no-connection-reuse", {"true"}},
      {"h2-window", {"16KiB"}},
      {"target", {"http://127.0.0.1:8081/"}},
  };
  RunSpec first = with_target();
  read_settings(texts, first);
  const std::string args = reproduced(first);
  // Read back, setting by setting, the written arguments make the same run.
  SettingTexts again;
  for (const auto& [name, values] : texts) {
    const RunSetting* setting = find_run_setting(name);
    ASSERT_NE(setting, nullptr) << name;
    RunSpec alone = with_target();
    setting->read(values, alone);
    const std::string written = reproduced(alone);
    EXPECT_NE(written, "") << name << " writes nothing back";
    EXPECT_NE(args.find(written), std::string::npos) << name << ": " << written << " in " << args;
  }
  EXPECT_NE(args.find(" --rate 2500 "), std::string::npos) << args;
  EXPECT_NE(args.find(" -d 1m30s "), std::string::npos) << args;
  EXPECT_NE(args.find(" --grace 250ms "), std::string::npos) << args;
  EXPECT_NE(args.find(" --segment 1/3"), std::string::npos) << args;
}

TEST(RunSettings, ASettingsOwnCheckIsTheRunsAndItsRecordIsInTheSpec) {
  RunSpec spec = with_target();
  read_settings({{"queue", {"-1"}}}, spec);
  EXPECT_EQ(testing::usage_error_of([&] { plan_run(spec); }), "--queue must not be negative");

  RunSpec recorded = with_target();
  read_settings({{"timeout", {"1.5s"}}, {"reconcile", {"echo 1"}}}, recorded);
  const nlohmann::json spec_json = result::spec_to_json(plan_run(recorded).spec);
  EXPECT_EQ(spec_json["timeout_s"], 1.5);
  EXPECT_EQ(spec_json["reconcile"], "echo 1");
  EXPECT_EQ(spec_json["queue_capacity"], 10000);
}

TEST(RunSettings, WithoutConnectionReuseEachRequestAsksForTheCloseOverHttp11Only) {
  RunSpec spec = with_target();
  read_settings({{"no-connection-reuse", {"true"}}}, spec);
  const PlannedRun run = plan_run(spec);
  EXPECT_FALSE(run.load.send.reuse_connections);
  EXPECT_EQ(result::spec_to_json(run.spec)["connection_reuse"], false);
  EXPECT_EQ(result::spec_to_json(run.spec)["headers"][0]["name"], "Connection");
  EXPECT_EQ(result::spec_to_json(plan_run(with_target()).spec).count("connection_reuse"), 0u);
  spec.protocol = engine::Protocol::kHttp2;
  EXPECT_EQ(testing::usage_error_of([&] { plan_run(spec); }),
            "--no-connection-reuse is for HTTP/1.1: an HTTP/2 connection carries many requests "
            "by design; drop --http2");
}

TEST(RunSettings, AnHttp2StreamWindowIsASizeTheEngineGetsAndTheSpecRecords) {
  RunSpec spec = with_target();
  read_settings({{"http2", {"true"}}, {"h2-window", {"16KiB"}}}, spec);
  const PlannedRun run = plan_run(spec);
  EXPECT_EQ(run.load.send.h2_stream_window_bytes, 16 * 1024);
  EXPECT_EQ(result::spec_to_json(run.spec)["h2_window_bytes"], 16 * 1024);
  EXPECT_NE(reproduced(spec).find(" --h2-window 16384"), std::string::npos) << reproduced(spec);
  // Unset: the session's own window, and nothing recorded.
  RunSpec plain = with_target();
  read_settings({{"http2", {"true"}}}, plain);
  EXPECT_FALSE(plan_run(plain).load.send.h2_stream_window_bytes);
  EXPECT_EQ(result::spec_to_json(plan_run(plain).spec).count("h2_window_bytes"), 0u);

  RunSpec http1 = with_target();
  read_settings({{"h2-window", {"64KiB"}}}, http1);
  EXPECT_EQ(testing::usage_error_of([&] { plan_run(http1); }),
            "--h2-window is for HTTP/2: add --http2");
  for (const char* bad : {"0", "2GiB", "lots"}) {
    EXPECT_EQ(testing::usage_error_of([&] {
                RunSpec s = with_target();
                read_settings({{"h2-window", {bad}}}, s);
              }),
              std::string("--h2-window must be a size from 1 byte to 2147483647 bytes ('64KiB'), "
                          "got '") +
                  bad + "'");
  }
}

TEST(RunSettings, ATextThatIsNoValueIsOneLineNamingTheFlag) {
  auto error_of = [](const SettingTexts& texts) {
    return testing::usage_error_of([&] {
      RunSpec spec = with_target();
      read_settings(texts, spec);
    });
  };
  EXPECT_EQ(error_of({{"tls-min", {"1.1"}}}), "--tls-min must be 1.2 or 1.3, got '1.1'");
  EXPECT_EQ(error_of({{"executor", {"half"}}}),
            "--executor must be 'open' or 'closed', got 'half'");
  EXPECT_EQ(error_of({{"stream-tokens", {"/n"}}}),
            "--stream-content, --stream-tokens, --stream-end and --stream-fixture need --stream "
            "sse (or chunked)");
  EXPECT_EQ(error_of({{"workers", {"9999999999"}}}),
            "--workers must be at most 2147483647, got "
            "9999999999");
}

}  // namespace
}  // namespace proofload::plan
