// Tests of mistakes in scenario files: each kind gives one line with the file, line and column
// a user fixing the file needs, and the message says what is wrong and what is allowed.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "common/usage_error.h"
#include "workload/scenario_yaml.h"
#include "workload/scenario_yaml_test_support.h"

namespace proofload::workload {
namespace {

TEST(ScenarioYamlErrors, YamlSyntaxAndShape) {
  EXPECT_EQ(error_of("requests:\n  r: {path: /\n"),
            "s.yaml:3:1: invalid YAML: end of map flow not found (inside { } or [ ], quote values "
            "that contain { } [ ] or commas, like title: \"${word}\")");
  EXPECT_EQ(error_of(""), "s.yaml:1:1: the scenario file is empty: it needs a 'requests:' map");
  EXPECT_EQ(error_of("target: http://127.0.0.1:8080\n"),
            "s.yaml:1:1: the scenario file needs 'requests'");
  EXPECT_EQ(error_of("requests: 3\n"),
            "s.yaml:1:11: 'requests' in the scenario file: expected a map of named requests "
            "(\"lookup: {path: /sic/1}\"), got a single value");
  EXPECT_EQ(error_of(with("---\nrequests: {}\n")),
            "s.yaml:4:1: one YAML document per scenario file");
}

// yaml-cpp 0.7's LoadAll loops for ever on a document that begins with ',' (found by fuzzing:
// fuzz/regressions/scenario_file). Each of these is one line, at once.
TEST(ScenarioYamlErrors, ADocumentBeginningWithACommaIsRefusedNotAHang) {
  EXPECT_EQ(error_of(",\n"), "s.yaml:1:1: the scenario file is empty: it needs a 'requests:' map");
  EXPECT_EQ(error_of("# a comment\n  ,x\n"),
            "s.yaml:1:1: the scenario file is empty: it needs a 'requests:' map");
  EXPECT_EQ(error_of(with("---\n,\n")), "s.yaml:4:1: one YAML document per scenario file");
}

// A JSON body or `equals` with bytes that are not UTF-8 ended in an uncaught JSON error (found
// by fuzzing: fuzz/regressions/scenario_file/json-equals-not-utf8).
TEST(ScenarioYamlErrors, BytesThatAreNotUtf8AreRefusedWhereTheyAre) {
  EXPECT_EQ(error_of("requests:\n  r:\n    path: /\n    json: {name: \"caf\xc3\xa9 \xff\"}\n"),
            "s.yaml:4:24: invalid YAML: a byte that is not UTF-8 (YAML files are UTF-8 text)");
  EXPECT_EQ(
      error_of("requests:\n  r: {path: /, checks: [json: {path: /a, equals: \"\xc0\xaf\"}]}\n"),
      "s.yaml:2:51: invalid YAML: a byte that is not UTF-8 (YAML files are UTF-8 text)");
}

TEST(ScenarioYamlErrors, AliasesThatExpandWithoutEndAndDeepNestingAreOneLocatedLine) {
  // A billion laughs: nine levels of ten aliases each stand for 10^10 values. Loading it walked
  // them all (json_template_uses), or in an `equals` reached 8.2 GB in 60 s.
  std::string laughs = "requests:\n  r:\n    path: /\n    json:\n      a0: &a0 [x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    laughs += "      a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) laughs += (j ? ", *a" : "*a") + std::to_string(i - 1);
    laughs += "]\n";
  }
  const auto start = std::chrono::steady_clock::now();
  const std::string expanded = error_of(laughs);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));  // not a hang
  EXPECT_TRUE(expanded.starts_with("s.yaml:")) << expanded;
  EXPECT_NE(expanded.find("expands to more than 100000 values (YAML aliases repeat what they "
                          "name at every use)"),
            std::string::npos)
      << expanded;
  // A long text named many times: bounded by its bytes too.
  std::string long_text = "requests:\n  r:\n    path: /\n    json:\n      t: &t " +
                          std::string(1 << 20, 'x') + "\n      many: [";
  for (int j = 0; j < 40; ++j) long_text += (j ? ", *t" : "*t");
  EXPECT_NE(error_of(long_text + "]\n").find("expands to more than 16 MiB"), std::string::npos);
  // Deep nesting once said only "bad file".
  const std::string deep =
      "requests:\n  r: {path: /, json: " + std::string(5000, '[') + std::string(5000, ']') + "}\n";
  EXPECT_NE(error_of(deep).find("nested more than 64 levels deep"), std::string::npos);
  const std::string nested =
      "requests:\n  r: {path: /, json: " + std::string(100, '[') + std::string(100, ']') + "}\n";
  EXPECT_NE(error_of(nested).find("nested more than 64 levels deep"), std::string::npos);
}

TEST(ScenarioYamlErrors, MoreNamedRequestsThanTheStatedBoundAreRefused) {
  // 100,000 of them once reached 21 GB: each keeps its own figures.
  std::string many = "requests:\n";
  for (size_t i = 0; i <= kMaxNamedRequests; ++i)
    many += "  r" + std::to_string(i) + ": {path: /}\n";
  EXPECT_EQ(error_of(many),
            "s.yaml:2:3: 'requests' in the scenario file: more than 1000 named requests (1001): "
            "each keeps its own figures; merge those that need no figures of their own");
  many.resize(many.rfind("  r1000"));
  EXPECT_EQ(error_of(many), "");
}

TEST(ScenarioYamlErrors, UnknownKeysNameTheNearestAndTheAllowed) {
  EXPECT_EQ(error_of(with("targt: http://x\n")),
            "s.yaml:3:1: unknown key 'targt' in the scenario file; did you mean 'target'? allowed: "
            "target, protocol, defaults, executor, data, requests, flows, mix, thresholds, "
            "canaries");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, methd: GET}\n"),
            "s.yaml:2:16: unknown key 'methd' in request 'r'; did you mean 'method'? allowed: "
            "method, path, headers, body, json, checks, extract, stream, content, tokens, "
            "terminator");
  EXPECT_EQ(
      error_of(with("executor:\n  conections: 5\n")),
      "s.yaml:4:3: unknown key 'conections' in 'executor'; did you mean 'connections'? "
      "allowed: type, rate, stages, connections, max_connections, duration, warmup, requests, "
      "h2_streams");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, checks: [{status: 200, body_contains: x}]}\n"),
            "s.yaml:2:39: 'body_contains' in check 1 of request 'r': a check tests one thing, and "
            "'status' is already given (write one list item per check)");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, checks: [{stauts: 200}]}\n"),
            "s.yaml:2:26: unknown key 'stauts' in check 1 of request 'r'; did you mean 'status'? "
            "allowed: status, body_contains, body_matches, json, equals");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, checks: [{status: 200, equals: 1}]}\n"),
            "s.yaml:2:39: 'equals' in check 1 of request 'r': goes with a JSON pointer: {json: "
            "/id, equals: 42}");
  EXPECT_EQ(error_of("requests: {a: {path: /}}\ncanaries:\n  c: {path: '/i/${id}'}\n"),
            "s.yaml:3:17: canary 'c' uses ${id}: a canary is a known answer, the same request "
            "every time (secrets like ${env:NAME} are allowed)");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, extract: {x: {json: /a, header: B}}}\n"),
            "s.yaml:2:40: 'header' in extraction 'x' of request 'r': an extraction has one source, "
            "and 'json' is already given");
  EXPECT_EQ(
      error_of(with("data:\n  x: {wrd: {}}\n")),
      "s.yaml:4:7: unknown key 'wrd' in data 'x'; did you mean 'word'? allowed: values, file, "
      "csv, column, order, word, int, sequence, uuid, pool");
}

TEST(ScenarioYamlErrors, WrongTypes) {
  EXPECT_EQ(error_of(with("executor:\n  connections: lots\n")),
            "s.yaml:4:16: 'connections' in 'executor': expected an integer from 1 to 1000000, got "
            "'lots'");
  EXPECT_EQ(error_of(with("executor: fast\n")),
            "s.yaml:3:11: 'executor': expected a map of keys (type, rate, stages, connections, "
            "max_connections, duration, warmup, requests, h2_streams), got a single value");
  EXPECT_EQ(error_of("requests:\n  r: {path: [/a]}\n"),
            "s.yaml:2:13: 'path' in request 'r': expected a string, got a list");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, checks: {status: 200}}\n"),
            "s.yaml:2:24: 'checks' in request 'r': expected a list (\"- status: 200\"), got a map");
  EXPECT_EQ(error_of(with("thresholds: p95 < 1s\n")),
            "s.yaml:3:13: 'thresholds' in the scenario file: expected a list (\"- p95 < 200ms\"), "
            "got a single value");
}

TEST(ScenarioYamlErrors, ProtocolAndStreams) {
  EXPECT_EQ(error_of(with("protocol: h3\n")),
            "s.yaml:3:11: 'protocol' in the scenario file: unknown protocol 'h3'; did you mean "
            "'h2'? allowed: http/1.1, h2");
  EXPECT_EQ(error_of(with("executor:\n  h2_streams: 1001\n")),
            "s.yaml:4:15: 'h2_streams' in 'executor': expected an integer from 1 to 1000, got "
            "'1001'");
}

TEST(ScenarioYamlErrors, ExecutorValues) {
  EXPECT_EQ(error_of(with("executor:\n  type: opn\n")),
            "s.yaml:4:9: 'type' in 'executor': unknown executor type 'opn'; did you mean 'open'? "
            "allowed: closed, open");
  EXPECT_EQ(error_of(with("executor:\n  connections: 0\n")),
            "s.yaml:4:16: 'connections' in 'executor': expected an integer from 1 to 1000000, got "
            "'0'");
  EXPECT_EQ(
      error_of(with("executor:\n  duration: 10 parsecs\n")),
      "s.yaml:4:13: 'duration' in 'executor': invalid duration \"10 parsecs\": unknown unit "
      "\" parsecs\" (use a number and a unit h, m, s, ms, us or ns, like 500ms, 10s or 1m30s)");
  EXPECT_EQ(error_of(with("executor:\n  duration: 0s\n")),
            "s.yaml:4:13: 'duration' in 'executor': must be above 0");
  EXPECT_EQ(error_of(with("executor:\n  rate: fast\n")),
            "s.yaml:4:9: 'rate' in 'executor': invalid rate \"fast\": not a number (use a number "
            "like 1000, 1k or 2.5k)");
  EXPECT_EQ(error_of(with("executor:\n  rate: 0/s\n")),
            "s.yaml:4:9: 'rate' in 'executor': a rate must be above 0, got '0/s'");
  EXPECT_EQ(error_of(with("executor:\n  type: closed\n  rate: 10/s\n")),
            "s.yaml:5:3: 'rate' in 'executor': sets an open-loop schedule: use 'type: open' (or "
            "leave 'type' out)");
  EXPECT_EQ(error_of(with("executor:\n  rate: 10/s\n  stages: \"10s:5\"\n")),
            "s.yaml:5:3: 'stages' in 'executor': cannot be combined with 'rate' (with type: open "
            "the stages ramp the rate)");
  EXPECT_EQ(error_of(with("executor:\n  stages: \"10s:5\"\n  duration: 10s\n")),
            "s.yaml:5:3: 'duration' in 'executor': cannot be combined with 'stages' (the stages "
            "give the duration)");
  EXPECT_EQ(error_of(with("executor:\n  connections: 10\n  max_connections: 5\n")),
            "s.yaml:5:20: 'max_connections' in 'executor': must be at least 'connections' (10)");
  EXPECT_EQ(error_of(with("executor:\n  requests: 0\n")),
            "s.yaml:4:13: 'requests' in 'executor': expected an integer from 1 to 1000000000000, "
            "got '0'");
  EXPECT_EQ(error_of(with("defaults:\n  timeout: 0s\n")),
            "s.yaml:4:12: 'timeout' in 'defaults': must be above 0");
  EXPECT_EQ(error_of(with("target: ftp://x\n")),
            "s.yaml:3:9: 'target' in the scenario file: malformed URL 'ftp://x': unsupported "
            "scheme 'ftp' (http:// or https://)");
  Scenario open = parse(with("executor: {type: open, rate: 2.5k/s, duration: 1m, warmup: 0}\n"));
  EXPECT_EQ(open.setting("rate"), "2.5k/s");
  EXPECT_EQ(open.setting("duration"), "1m");
  EXPECT_EQ(open.setting("warmup"), "0");
}

TEST(ScenarioYamlErrors, Mix) {
  EXPECT_EQ(error_of(with("mix:\n  r: 0\n")),
            "s.yaml:4:6: weight of 'r' in 'mix': a weight must be above 0, got '0' (to leave an "
            "entry out, remove it)");
  EXPECT_EQ(error_of(with("mix:\n  r: -1\n")),
            "s.yaml:4:6: weight of 'r' in 'mix': a weight must be above 0, got '-1' (to leave an "
            "entry out, remove it)");
  EXPECT_EQ(
      error_of(with("mix:\n  r: heavy\n")),
      "s.yaml:4:6: weight of 'r' in 'mix': expected a weight (a number above 0), got 'heavy'");
  EXPECT_EQ(error_of("requests:\n  lookup: {path: /}\nmix:\n  lokup: 1\n"),
            "s.yaml:4:3: 'mix' names 'lokup', which is no request or flow; did you mean 'lookup'? "
            "(known: lookup)");
  EXPECT_EQ(error_of(with("mix: {}\n")),
            "s.yaml:3:6: 'mix' in the scenario file: expected a map of request or flow names to "
            "weights (\"lookup: 4\"), got an empty map");
}

TEST(ScenarioYamlErrors, Data) {
  EXPECT_EQ(error_of(with("data:\n  x: {}\n")),
            "s.yaml:4:6: data 'x' needs a kind: one of values, file, int, sequence, uuid, csv, "
            "word, pool");
  EXPECT_EQ(error_of(with("data:\n  x: {values: [a], file: f.txt}\n")),
            "s.yaml:4:20: 'file' in data 'x': a data entry has one kind, and 'values' is already "
            "given");
  EXPECT_EQ(error_of(with("data:\n  x: {file: f.txt, values: [a]}\n")),
            "s.yaml:4:20: 'values' in data 'x': a data entry has one kind, and 'file' is already "
            "given");
  EXPECT_EQ(error_of(with("data:\n  x: {int: {min: 5, max: 1}}\n")),
            "s.yaml:4:26: 'max' in 'int' of data 'x': must not be below 'min' (5)");
  EXPECT_EQ(error_of(with("data:\n  x: {int: {min: 5}}\n")),
            "s.yaml:4:12: 'int' of data 'x' needs 'max'");
  EXPECT_EQ(error_of(with("data:\n  x: {sequence: {step: 0}}\n")),
            "s.yaml:4:24: 'step' in 'sequence' of data 'x': must not be 0 (every value would be "
            "the same)");
  // A sequence that would wrap within 2^40 values (it used to wrap silently).
  EXPECT_EQ(error_of(with("data:\n  x: {sequence: {start: 0, step: 1000000000000000000}}\n")),
            "s.yaml:4:34: 'step' in 'sequence' of data 'x': leaves the 64-bit range after 10 "
            "values from 'start'; a sequence must reach 2^40 values without wrapping");
  EXPECT_NE(error_of(with("data:\n  x: {sequence: {start: -9223372036854775000, step: -1}}\n"))
                .find("leaves the 64-bit range after 809 values"),
            std::string::npos);
  EXPECT_EQ(error_of(with("data:\n  x: {sequence: {start: -9223372036854775808, step: 1}}\n"
                          "  y: {sequence: {start: 0, step: 8388607}}\n")),
            "");
  EXPECT_EQ(error_of(with("data:\n  x: {pool: {size: 0, of: {uuid: {}}}}\n")),
            "s.yaml:4:20: 'size' in 'pool' of data 'x': expected an integer from 1 to 10000000, "
            "got '0'");
  EXPECT_EQ(error_of(with("data:\n  x: {pool: {size: 5, of: {pool: {size: 1, of: [a]}}}}\n")),
            "s.yaml:4:28: 'pool' in 'of' of data 'x': a pool cannot be drawn from another pool");
  EXPECT_EQ(error_of(with("data:\n  x: {values: []}\n")),
            "s.yaml:4:15: 'values' in data 'x': needs at least one value");
  EXPECT_EQ(error_of(with("data:\n  x: {values: [a], order: shuffled}\n")),
            "s.yaml:4:27: 'order' in data 'x': unknown order 'shuffled'; allowed: random, "
            "sequential");
  EXPECT_EQ(error_of(with("data:\n  x: {uuid: {}, order: random}\n")),
            "s.yaml:4:17: 'order' in data 'x': goes with 'values', 'file' or 'csv' only (the "
            "others are drawn at random)");
  EXPECT_EQ(error_of(with("data:\n  x: {values: [a], column: c}\n")),
            "s.yaml:4:20: 'column' in data 'x': goes with 'csv' only");
  EXPECT_EQ(error_of(with("data:\n  x-y: [a]\n")),
            "s.yaml:4:3: data 'x-y': 'x-y' cannot be a variable name: use letters, digits and '_', "
            "not starting with a digit");
  EXPECT_EQ(error_of(with("data:\n  x: [a]\n  x: [b]\n")),
            "s.yaml:5:3: variable 'x' given twice in 'data' (first at line 4)");
}

TEST(ScenarioYamlErrors, DataFiles) {
  EXPECT_EQ(error_of(with("data:\n  x: {file: nope.txt}\n")),
            "s.yaml:4:13: 'file' in data 'x': cannot read data file '" +
                (kTestdata / "nope.txt").string() + "': No such file or directory");
  EXPECT_EQ(error_of(with("data:\n  x: {file: blank.txt}\n")),
            "s.yaml:4:13: 'file' in data 'x': the file 'blank.txt' has no values (blank lines are "
            "skipped)");
  EXPECT_EQ(error_of(with("data:\n  x: {word: {file: nope.txt}}\n")),
            "s.yaml:4:20: 'file' in 'word' of data 'x': cannot read data file '" +
                (kTestdata / "nope.txt").string() + "': No such file or directory");
  EXPECT_EQ(error_of(with("data:\n  x: {csv: companies.csv, column: sicc}\n")),
            "s.yaml:4:35: 'column' in data 'x': CSV file '" +
                (kTestdata / "companies.csv").string() +
                "' has no column 'sicc'; columns: name, sic");
  EXPECT_EQ(error_of(with("data:\n  x: {csv: nope.csv, column: sic}\n")),
            "s.yaml:4:12: 'csv' in data 'x': cannot read data file '" +
                (kTestdata / "nope.csv").string() + "': No such file or directory");
  EXPECT_EQ(error_of(with("data:\n  x: {csv: companies.csv}\n")),
            "s.yaml:4:6: data 'x' needs 'column'");
}

TEST(ScenarioYamlErrors, NamesAcrossRequestsAndFlows) {
  EXPECT_EQ(error_of("requests:\n  r: {path: /}\n  r: {path: /x}\n"),
            "s.yaml:3:3: request 'r' given twice in 'requests' (first at line 2)");
  EXPECT_EQ(error_of(with("flows:\n  r: [r]\n")),
            "s.yaml:4:3: 'r' names both a request (line 2) and a flow: the mix and thresholds need "
            "one meaning");
  EXPECT_EQ(error_of(with("flows:\n  f: [r]\n  f: [r]\n")),
            "s.yaml:5:3: flow 'f' given twice in 'flows' (first at line 4)");
  EXPECT_EQ(error_of("requests:\n  \"a b\": {path: /}\n"),
            "s.yaml:2:3: request 'a b': a name is 1 to 100 letters, digits, '_', '.' or '-' (it "
            "labels metrics and thresholds)");
  EXPECT_EQ(error_of(with("flows:\n  f: [nothing]\n")),
            "s.yaml:4:7: step 1 of flow 'f': no request named 'nothing' (requests: r)");
  EXPECT_EQ(error_of("requests:\n  assign: {path: /}\nflows:\n  f: [asign]\n"),
            "s.yaml:4:7: step 1 of flow 'f': no request named 'asign'; did you mean 'assign'? "
            "(requests: assign)");
  EXPECT_EQ(error_of(with("flows:\n  f: [r, g]\n  g: [r]\n")),
            "s.yaml:4:10: step 2 of flow 'f': 'g' is a flow; a step names a request (flows do not "
            "nest)");
  EXPECT_EQ(error_of(with("flows:\n  f: {steps: []}\n")),
            "s.yaml:4:14: flow 'f' needs at least one step");
  // A think on the last step is the pause at the end of each iteration: accepted.
  EXPECT_EQ(error_of(with("flows:\n  f: {steps: [{request: r, think: 1s}]}\n")), "");
  EXPECT_EQ(error_of(with("flows:\n  f: {steps: [{request: r, think: soon}, r]}\n")).substr(0, 51),
            "s.yaml:4:35: 'think' in step 1 of flow 'f': invalid");
}

TEST(ScenarioYamlErrors, Requests) {
  EXPECT_EQ(error_of("requests:\n  r: {method: GET}\n"), "s.yaml:2:6: request 'r' needs 'path'");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, method: \"GE T\"}\n"),
            "s.yaml:2:24: 'method' in request 'r': expected a method like GET or POST (letters, "
            "digits and !#$%&'*+-.^_`|~, no spaces), got 'GE T'");
  EXPECT_EQ(error_of("requests:\n  r: {path: items}\n"),
            "s.yaml:2:13: 'path' in request 'r': must start with '/' (a path on the target, like "
            "/items?q=${word}), or with a ${variable} whose values are paths");
  EXPECT_EQ(error_of("requests:\n  r: {path: \"${env:P}/x\"}\n"),
            "s.yaml:2:13: 'path' in request 'r': must start with '/' (a path on the target, like "
            "/items?q=${word}), or with a ${variable} whose values are paths");
  EXPECT_EQ(error_of("requests:\n  r: {path: /a b}\n"),
            "s.yaml:2:13: 'path' in request 'r': must not contain spaces or control characters "
            "(write a space as %20)");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, body: x, json: {a: 1}}\n"),
            "s.yaml:2:25: 'json' in request 'r': cannot be combined with 'body' (both give the "
            "body)");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, headers: {\"Bad Name\": x}}\n"),
            "s.yaml:2:26: header in request 'r': a header name is a token like Accept or "
            "X-Request-Id (letters, digits and !#$%&'*+-.^_`|~)");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, headers: {Accept: x, accept: y}}\n"),
            "s.yaml:2:37: header 'accept' in request 'r': given twice (names ignore case)");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, headers: {X: \"a\\nb\"}}\n"),
            "s.yaml:2:29: header 'X' in request 'r': a header value cannot hold line breaks or "
            "control characters");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, json: {a: 1, a: 2}}\n"),
            "s.yaml:2:29: 'json' in request 'r': key 'a' given twice");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, headers: {Content-Length: 5}}\n"),
            "s.yaml:2:26: header 'Content-Length' in request 'r': proofload sets it from the body");
  // A path may start with a variable whose values are paths.
  EXPECT_EQ(parse("data:\n  url: [/a, /b]\nrequests:\n  r: {path: \"${url}\"}\n")
                .requests[0]
                .path_template,
            "${url}");
  EXPECT_EQ(
      error_of("requests:\n  r: {path: \"${url}\"}\ndata:\n  url: [/a, b]\n"),
      "s.yaml:2:13: 'path' in request 'r': starts with ${url}, whose value 'b' does not start "
      "with '/'");
  EXPECT_EQ(error_of("requests:\n  r: {path: \"${n}/x\"}\ndata:\n  n: {int: {min: 1, max: 2}}\n"),
            "s.yaml:2:13: 'path' in request 'r': starts with ${n}, whose values are not paths; a "
            "path must start with '/'");
}

TEST(ScenarioYamlErrors, MalformedTemplatesPointAtTheReference) {
  EXPECT_EQ(error_of("requests:\n  r: {path: \"/${word\"}\n"),
            "s.yaml:2:15: 'path' in request 'r': unterminated '${' (a literal '${' is written "
            "'$${')");
  EXPECT_EQ(error_of("requests:\n  r:\n    path: /a/${}\n"),
            "s.yaml:3:14: 'path' in request 'r': empty reference '${}'");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, headers: {X: \"a ${sec:x}\"}}\n"),
            "s.yaml:2:32: header 'X' in request 'r': unknown prefix 'sec:': use ${name}, "
            "${env:NAME} or ${file:PATH}");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, json: {a: \"${x\"}}\n"),
            "s.yaml:2:27: 'json' in request 'r': unterminated '${' (a literal '${' is written "
            "'$${')");
  // Where the column cannot be known exactly (a block scalar), the offset stays in the message.
  EXPECT_EQ(error_of("requests:\n  r:\n    path: /\n    body: |\n      /a/${x\n"),
            "s.yaml:4:11: 'body' in request 'r': unterminated '${' at offset 3 (a literal '${' is "
            "written '$${')");
  // Secrets are references only: allowed, never read.
  Scenario s = parse(
      "requests:\n  r: {path: /, headers: {A: \"${env:NOT_SET_ANYWHERE}\", "
      "B: \"${file:/no/such/file}\"}}\n");
  EXPECT_EQ(s.requests[0].header_templates[1].second, "${file:/no/such/file}");
}

TEST(ScenarioYamlErrors, ChecksExtractionsAndThresholds) {
  EXPECT_EQ(error_of("requests:\n  r: {path: /, checks: [{status: 99}]}\n"),
            "s.yaml:2:34: 'status' in check 1 of request 'r': expected an integer from 100 to 599, "
            "got '99'");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, checks: [{status: \"300-200\"}]}\n"),
            "s.yaml:2:34: 'status' in check 1 of request 'r': status range 300-200 is empty (min > "
            "max)");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, checks: [{body_matches: \"(unclosed\"}]}\n"),
            "s.yaml:2:40: 'body_matches' in check 1 of request 'r': invalid regular expression "
            "'(unclosed': missing ): (unclosed (RE2 syntax: no backreferences or lookaround)");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, checks: [{json: {path: id, equals: 1}}]}\n"),
            "s.yaml:2:32: 'json' in check 1 of request 'r': invalid JSON pointer 'id': it must be "
            "empty or start with '/'");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, checks: [{json: {path: /id}}]}\n"),
            "s.yaml:2:32: 'json' of check 1 of request 'r' needs 'equals'");
  EXPECT_EQ(
      error_of("requests:\n  r: {path: /, extract: {x: {regex: \"a(b)\", group: 2}}}\n"),
      "s.yaml:2:52: 'group' in extraction 'x' of request 'r': regular expression 'a(b)' has 1 "
      "capture group(s); group 2 does not exist");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, extract: {x: {header: \"Bad Header\"}}}\n"),
            "s.yaml:2:38: 'header' in extraction 'x' of request 'r': 'Bad Header' is not a header "
            "name");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, extract: {x: {json: /a, group: 1}}}\n"),
            "s.yaml:2:40: 'group' in extraction 'x' of request 'r': goes with 'regex' only");
  EXPECT_EQ(error_of(with("thresholds:\n  - p95(r) < 1 parsec\n")),
            "s.yaml:4:5: invalid threshold \"p95(r) < 1 parsec\": invalid duration \"1parsec\": "
            "unknown unit \"parsec\" (use a number and a unit h, m, s, ms, us or ns, like 500ms, "
            "10s or 1m30s)");
  EXPECT_EQ(error_of("requests:\n  lookup: {path: /}\nthresholds:\n  - p95(lokup) < 1s\n"),
            "s.yaml:4:5: threshold 1 'p95(lokup) < 1s': no request or flow named 'lokup'; did you "
            "mean 'lookup'? (known: lookup)");
}

TEST(ScenarioYamlErrors, VariablesMustBeSetWhereTheyAreUsed) {
  EXPECT_EQ(error_of("requests:\n  r:\n    path: /items/${idd}\ndata:\n  id: [1]\n"),
            "s.yaml:3:18: variable 'idd' is used but never defined; did you mean 'id'? (data: id; "
            "extracted: none)");
  EXPECT_EQ(error_of("requests:\n  r: {path: \"/${x}\"}\n"),
            "s.yaml:2:15: variable 'x' is used but never defined (no variable is defined: add it "
            "to 'data')");
  // A request the mix picks on its own sees data variables only.
  EXPECT_EQ(error_of("requests:\n  create: {path: /, extract: {id: {json: /id}}}\n"
                     "  get: {path: \"/items/${id}\"}\n"),
            "s.yaml:3:23: variable 'id' is extracted by request 'create', but request 'get' is "
            "picked by the mix on its own (there is no 'mix', and no flow uses it), where only "
            "'data' variables are set; use it in a flow after that request");
  EXPECT_EQ(error_of("requests:\n  create: {path: /, extract: {id: {json: /id}}}\n"
                     "  get: {path: \"/items/${id}\"}\nflows:\n  f: [create, get]\nmix:\n  f: 1\n"
                     "  get: 1\n"),
            "s.yaml:3:23: variable 'id' is extracted by request 'create', but request 'get' is "
            "picked by the mix on its own (line 8), where only 'data' variables are set; use it in "
            "a flow after that request");
  // In a flow, a step sees what the steps before it extracted.
  EXPECT_EQ(error_of("requests:\n  create: {path: /, extract: {id: {json: /id}}}\n"
                     "  get: {path: \"/items/${id}\"}\nflows:\n  f: [get, create]\n"),
            "s.yaml:5:7: step 1 ('get') of flow 'f': variable 'id' is extracted by step 2 "
            "('create') of flow 'f', after this step uses it");
  EXPECT_EQ(error_of("requests:\n  me: {path: \"/items/${id}\", extract: {id: {json: /id}}}\n"
                     "flows:\n  f: [me, me]\n"),
            "s.yaml:4:7: step 1 ('me') of flow 'f': variable 'id' is extracted by step 1 ('me') of "
            "flow 'f', after this step uses it");
  EXPECT_EQ(error_of("requests:\n  create: {path: /, extract: {id: {json: /id}}}\n"
                     "  get: {path: \"/items/${id}\"}\nflows:\n  f: [create, get]\n  g: [get]\n"),
            "s.yaml:6:7: step 1 ('get') of flow 'g': variable 'id' is extracted only by request "
            "'create', which is not a step of flow 'g' before this one");
  EXPECT_EQ(
      error_of("data:\n  id: [1]\nrequests:\n  create: {path: /, extract: {id: {json: /id}}}\n"),
      "s.yaml:4:31: variable 'id' is defined both in 'data' (line 2) and by an extraction of "
      "request 'create'");
  EXPECT_EQ(error_of("defaults:\n  headers: {X: \"${id}\"}\nrequests:\n"
                     "  create: {path: /, extract: {id: {json: /id}}}\n"),
            "s.yaml:2:17: variable 'id' is extracted by request 'create', but default headers are "
            "sent with every request, so they may use 'data' variables only; give the header to "
            "the requests that follow it in a flow");
  // A request no one picks is still checked for typos, but may use extracted variables.
  Scenario s = parse(
      "requests:\n  create: {path: /, extract: {id: {json: /id}}}\n"
      "  get: {path: \"/items/${id}\"}\nmix:\n  create: 1\n");
  EXPECT_EQ(s.mix.size(), 1u);
}

}  // namespace
}  // namespace proofload::workload
