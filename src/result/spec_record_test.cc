// result.json's spec as a SpecRecord: every recorded spec reads and writes back byte for byte
// (the report's golden files, the segment corpus, every key a run writes, a hand-written partial
// spec, a newer file's unknown keys); a value of the wrong type is an error naming its key.
#include "result/spec_record.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace proofload::result {
namespace {

using nlohmann::json;

// A field takes a value without narrowing: a double is no count, a pointer no bool.
static_assert(std::is_convertible_v<int, Field<int64_t>>);
static_assert(!std::is_convertible_v<double, Field<int64_t>>);
static_assert(!std::is_convertible_v<const char*, Field<bool>>);
static_assert(std::is_convertible_v<const char*, Field<std::string>>);

std::string source_path(const std::string& relative) {
  return std::string(PL_SOURCE_DIR) + "/" + relative;
}

// The first line of a file (a segment.jsonl's header), or the whole file.
json read_json(const std::string& path, bool first_line_only) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::string text;
  if (first_line_only) {
    std::getline(in, text);
  } else {
    std::stringstream all;
    all << in.rdbuf();
    text = all.str();
  }
  return json::parse(text);
}

void expect_round_trip(const json& spec, const std::string& where) {
  const SpecRecord record = spec_from_json(spec, "test");
  EXPECT_EQ(spec_to_json(record).dump(), spec.dump()) << where;
  // And once more from what it wrote.
  EXPECT_EQ(spec_from_json(spec_to_json(record), "test"), record) << where;
}

// Every recorded file in the tree whose spec a report or merge reads: each JSON file under
// src/report/testdata and tests/ with a top-level `spec` object, and each segment.jsonl header of
// the fuzz corpus.
std::vector<std::pair<std::string, json>> specs_on_file() {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, json>> out;
  for (const char* dir : {"src/report/testdata", "tests"}) {
    for (auto it = fs::recursive_directory_iterator(source_path(dir));
         it != fs::recursive_directory_iterator(); ++it) {
      if (it->is_directory() && it->path().filename() == "node_modules") {
        it.disable_recursion_pending();  // the browser tests' packages, not ours
        continue;
      }
      if (!it->is_regular_file() || it->path().extension() != ".json") continue;
      const json result = read_json(it->path().string(), false);
      if (result.is_object() && result.contains("spec") && result["spec"].is_object()) {
        out.emplace_back(it->path().string(), result);
      }
    }
  }
  for (const auto& entry : fs::directory_iterator(source_path("fuzz/corpus/segment_file"))) {
    const json header = read_json(entry.path().string(), true);
    if (header.is_object() && header.contains("spec")) {
      out.emplace_back(entry.path().string(), header);
    }
  }
  return out;
}

TEST(SpecRecord, RecordedFilesRoundTripByteForByte) {
  const std::vector<std::pair<std::string, json>> files = specs_on_file();
  // At least the run's two golden results and the two segment headers.
  EXPECT_GE(files.size(), 4u);
  for (const auto& [file, document] : files) {
    expect_round_trip(document["spec"], file);
    // The whole document too: spec is one key of it.
    json again = document;
    again["spec"] = spec_to_json(spec_from_json(document["spec"], "test"));
    EXPECT_EQ(again.dump(2), document.dump(2)) << file;
  }
}

// Every key plan_run and aim write, in the shapes they write them.
TEST(SpecRecord, EveryKeyARunWritesRoundTrips) {
  const json spec = json::parse(R"({
    "address": "127.0.0.1:8443", "addresses": ["127.0.0.1:8443", "127.0.0.1:8444"],
    "body_bytes": 12, "connect_timeout_s": 5.0, "connections": 4, "duration_s": null,
    "executor": "open_loop", "grace_s": 5.0, "h2_streams": 8,
    "headers": [{"name": "Authorization", "value": "[redacted]"}], "io": "io_uring",
    "max_connections": 16, "method": "POST", "observe": ["pid:42"], "observe_every_s": 0.25,
    "protocol": "h2", "queue_capacity": 10000, "rate_per_s": 412.5, "reconcile": "prom:http://127.0.0.1:9/metrics#n",
    "requests_limit": 1000, "segment": {"count": 3, "index": 1}, "sources": ["127.0.0.2"],
    "stages": [{"duration_s": 2.0, "target": 100.0}, {"duration_s": 1.5, "target": 0.0}],
    "start_at_unix_ns": 1796265916584808328,
    "stream": {"content": "/choices/0/delta/content", "fixture": "chat.sse", "goodput": "ttft<=1s",
               "idle_timeout_s": 30.0, "kind": "sse", "terminator": "[DONE]", "tokens": null},
    "target": "https://127.0.0.1:8443/", "targets": ["https://127.0.0.1:8443/", "https://127.0.0.1:8444/"],
    "thresholds": ["p99 <= 3ms"], "timeout_s": 10.0,
    "tls": {"alpn": null, "ca_file": null, "client_certificate": "c.pem", "min_version": "TLSv1.2",
            "resume": true, "server_name": "localhost", "verify": false, "version": "TLSv1.3"},
    "warmup_s": 0.0, "window_s": 1.0, "workers": 2})");
  expect_round_trip(spec, "a run's spec");
  const SpecRecord record = spec_from_json(spec, "test");
  EXPECT_EQ(record.goodput_slo(), "ttft<=1s");
  EXPECT_TRUE(record.streams());
  EXPECT_FALSE(record.observe_only());
  EXPECT_FALSE(record.scenario.present());
  EXPECT_TRUE(record.duration_s.present());
  EXPECT_FALSE(record.duration_s.has_value());
  EXPECT_EQ(*record.start_at_unix_ns, 1796265916584808328);

  const json per_request = json::parse(R"({"stream": {"kind": "per request", "requests": ["a"]},
    "scenario": {"data": [{"kind": "csv", "name": "ids"}], "default_headers": [], "file": "s.yaml",
      "flows": [], "mix": [{"kind": "request", "name": "a", "share": 1.0}],
      "requests": [{"body_template_bytes": 0, "checks": ["status == 200"], "extracts": ["id"],
                    "headers": [{"name": "X-A", "value": "${id}"}], "method": "GET", "name": "a",
                    "path": "/a/${id}"}],
      "seed": 18446744073709551615, "thresholds": []}})");
  expect_round_trip(per_request, "a scenario's spec");
  EXPECT_EQ(*spec_from_json(per_request, "test").scenario->seed, UINT64_MAX);
}

TEST(SpecRecord, ObserveOnlyShapeRoundTrips) {
  const json spec = {{"command", "observe"},
                     {"observe", {"host"}},
                     {"observe_every_s", 1.0},
                     {"duration_s", 5.0},
                     {"window_s", 1.0}};
  expect_round_trip(spec, "observe");
  EXPECT_TRUE(spec_from_json(spec, "test").observe_only());
}

TEST(SpecRecord, KeepsAbsentNullNumberFormsAndUnknownKeys) {
  // Hand-written: integers where a run writes floats, a float where it writes an integer, a null
  // and an absent key, and keys from a newer proofload at two levels.
  const json spec = json::parse(R"({"duration_s": 3, "connections": 10.0, "rate_per_s": null,
    "future_key": {"x": [1, 2]}, "tls": {"version": "TLSv1.3", "future_tls": 1}})");
  expect_round_trip(spec, "hand-written");
  const SpecRecord record = spec_from_json(spec, "test");
  EXPECT_EQ(*record.duration_s, 3.0);
  EXPECT_EQ(*record.connections, 10);
  EXPECT_TRUE(record.rate_per_s.present());
  EXPECT_FALSE(record.rate_per_s.has_value());
  EXPECT_FALSE(record.stages.present());
  EXPECT_EQ(record.unknown, json({{"future_key", {{"x", {1, 2}}}}}));
  EXPECT_EQ(spec_key_json(record, "future_key"), json({{"x", {1, 2}}}));
  EXPECT_EQ(spec_key_json(record, "stages"), json(nullptr));

  // A value set anew is written as its type writes it.
  SpecRecord changed = record;
  changed.duration_s = 3.0;
  EXPECT_EQ(spec_to_json(changed)["duration_s"].dump(), "3.0");
  changed.workers = 4;
  EXPECT_EQ(spec_to_json(changed)["workers"].dump(), "4");
}

TEST(SpecRecord, WrongTypesAreErrorsNamingTheKey) {
  const auto error = [](const json& spec) {
    try {
      spec_from_json(spec, "run result.json");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error(json::array()), "run result.json: 'spec' is not an object");
  EXPECT_EQ(error({{"connections", "ten"}}),
            "run result.json: 'spec.connections' is not a whole number");
  EXPECT_EQ(error({{"connections", 2.5}}),
            "run result.json: 'spec.connections' is not a whole number");
  EXPECT_EQ(error({{"rate_per_s", "fast"}}), "run result.json: 'spec.rate_per_s' is not a number");
  EXPECT_EQ(error({{"target", 1}}), "run result.json: 'spec.target' is not a string");
  EXPECT_EQ(error({{"tls", {{"verify", "yes"}}}}),
            "run result.json: 'spec.tls.verify' is not true or false");
  EXPECT_EQ(error({{"tls", "TLSv1.3"}}), "run result.json: 'spec.tls' is not an object");
  EXPECT_EQ(error({{"observe", "host"}}), "run result.json: 'spec.observe' is not an array");
  EXPECT_EQ(error({{"stages", {{{"duration_s", 1.0}, {"target", "x"}}}}}),
            "run result.json: 'spec.stages[0].target' is not a number");
  EXPECT_EQ(error({{"scenario", {{"seed", -1}}}}),
            "run result.json: 'spec.scenario.seed' is not a whole number 0 or more");
  EXPECT_EQ(error({{"scenario", {{"requests", {1}}}}}),
            "run result.json: 'spec.scenario.requests[0]' is not an object");
}

}  // namespace
}  // namespace proofload::result
