// A scenario file as parsed: plain data, validated for form (types, ranges, known keys, defined
// variables) but not yet compiled for the engine. The YAML parser (scenario_yaml.h) produces it;
// compile_workload (workload.h) turns it into what the engine runs; the CLI merges its executor
// settings under the command-line flags (flags win). Secrets are kept as references
// (${env:NAME}, ${file:PATH}) here, never as values. Thread-safe to read.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace proofload::workload {

// At most this many named requests and flows in a scenario: each keeps its own figures in every
// worker (docs/scenario.md states the bound).
constexpr size_t kMaxNamedRequests = 1'000;
constexpr size_t kMaxFlows = 1'000;
// A scenario file is read up to this size (its YAML's expansion is bounded as well: yaml_reader).
constexpr int64_t kMaxScenarioFileBytes = int64_t{16} << 20;

// Where something was written, for messages: "FILE:LINE:COLUMN" (1-based; 0 when unknown).
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
  std::string text() const;  // "FILE:LINE:COLUMN", or "FILE" when line is 0
};

// One named variable fed by data (the YAML `data:` map). A value is drawn once per iteration
// (one pick of the mix: a single request, or a whole flow), so every ${name} in that iteration
// sees the same value.
struct DataSpec {
  enum class Kind {
    kList,       // `values: [a, b]`, inline
    kFileLines,  // `file: PATH`, one value a line (blank lines skipped)
    kCsvColumn,  // `csv: PATH, column: NAME` (first row is the header)
    kWord,       // `word: {}` or `word: {file: PATH}`: a random word (default list ships along)
    kIntRange,   // `int: {min: A, max: B}`: uniform, both ends included
    kSequence,   // `sequence: {start: A, step: B}`: A, A+B, ... (unique across workers)
    kUuid,       // `uuid: {}`: a random version-4 UUID
    kPool,       // `pool: {size: N, of: {...}}`: N values drawn once from `of`, then reused
  };
  std::string name;
  Kind kind = Kind::kList;
  // kList, kFileLines, kCsvColumn: loaded at parse time (files are read then, so an unreadable
  // file is a parse error with its location). kWord: the words (the default list if no file).
  std::vector<std::string> values;
  std::string path;         // kFileLines, kCsvColumn, kWord with a file: as written
  std::string column;       // kCsvColumn
  bool sequential = false;  // kList, kFileLines, kCsvColumn: `order: sequential` (else random)
  int64_t min = 0;          // kIntRange
  int64_t max = 0;          // kIntRange
  int64_t start = 0;        // kSequence
  int64_t step = 1;         // kSequence
  int64_t pool_size = 0;    // kPool
  std::vector<DataSpec> pool_of;  // kPool: exactly one element, the generator drawn from
  SourceLocation where;
};

// A check on a response. A failed check makes the request's outcome `check_failed`.
struct CheckSpec {
  enum class Kind {
    kStatusIn,      // status is one of `statuses`
    kStatusRange,   // status in [status_min, status_max]
    kBodyContains,  // the body contains `text`
    kBodyMatches,   // the body matches the regular expression `text` (ECMAScript, search)
    kJsonEquals,    // the JSON value at pointer `path` equals `json_value` (JSON text)
  };
  Kind kind = Kind::kStatusIn;
  std::vector<int> statuses;
  int status_min = 0;
  int status_max = 0;
  std::string text;         // kBodyContains, kBodyMatches
  std::string path;         // kJsonEquals: a JSON pointer ("/id", "/items/0/name")
  std::string json_value;   // kJsonEquals: the expected value as JSON text ("42", "\"open\"")
  std::string description;  // as written, for reports: "status 200-299", "body contains 'ok'"
  SourceLocation where;
};

// Extraction of one variable from a response, for later steps of a flow. A step whose
// extraction finds nothing fails its check (the flow cannot go on meaningfully).
struct ExtractSpec {
  enum class Kind {
    kJsonPointer,  // `json: /id`: the value at the pointer (strings unquoted, others as JSON)
    kRegex,        // `regex: 'id=(\d+)'`: capture group `group` of the first match in the body
    kHeader,       // `header: Location`: the first header of that name (case-insensitive)
  };
  std::string variable;
  Kind kind = Kind::kJsonPointer;
  std::string expression;
  int group = 1;  // kRegex
  SourceLocation where;
};

// How a stream is to be read, as written (a scenario request's `stream:`, `content:`, `tokens:`,
// `terminator:` and fixture check, or run's --stream flags): plain data, compiled by
// compile_stream_rules.
struct StreamSpec {
  std::string kind = "sse";            // "sse" or "chunked"
  std::optional<std::string> content;  // a JSON pointer ("/choices/0/delta/content") or a regex
  std::optional<std::string> tokens;   // a JSON pointer to a count
  std::optional<std::string> terminator;  // the ending event's data (sse; default "[DONE]")
  std::string fixture_path;                     // as written; "" when no fixture is checked
  std::shared_ptr<const std::string> fixture;   // its bytes, read when the spec was parsed
};

// At most this large a fixture (`checks: [{fixture: FILE}]`), read whole when the file is parsed.
constexpr int64_t kMaxFixtureBytes = int64_t{64} << 20;

// One named request. Templates hold ${name} references to data and extracted variables, and
// ${env:NAME} / ${file:PATH} secret references; they are compiled once.
struct RequestSpec {
  std::string name;
  std::string method = "GET";
  std::string path_template;  // path and query: "/sic/description?q=${word}"
  std::vector<std::pair<std::string, std::string>> header_templates;  // name, value template
  std::optional<std::string> body_template;  // `body:` text, or `json:` re-serialized
  bool json_body = false;  // body came from `json:` (sets Content-Type: application/json)
  std::vector<CheckSpec> checks;
  std::vector<ExtractSpec> extracts;
  std::optional<StreamSpec> stream;  // `stream: sse|chunked`: read as a stream, event by event
  SourceLocation where;
};

// One step of a flow: a request (by name), then a pause before the next step.
struct StepSpec {
  std::string request;
  int64_t think_ns = 0;  // pause after this step, before the next one (none after the last)
  SourceLocation where;
};

// Ordered steps sharing variables. Its outcome (every step answered and passed its checks) is
// counted apart from the requests' outcomes.
struct FlowSpec {
  std::string name;
  std::vector<StepSpec> steps;
  SourceLocation where;
};

// One entry of the weighted mix: the name of a request or of a flow, and its weight.
struct MixEntry {
  std::string name;
  double weight = 1;
  SourceLocation where;
};

// A threshold, kept as written; parsed and checked by measure/threshold.h.
struct ThresholdSpec {
  std::string expression;  // "p95(lookup) < 200ms"
  SourceLocation where;
};

struct Scenario {
  std::string file;                   // where it was read from
  std::optional<std::string> target;  // base URL: scheme, host, port and an optional base path
  std::optional<std::string> protocol;  // "http/1.1" or "h2" (as --http2)
  std::vector<std::pair<std::string, std::string>> default_headers;  // sent on every request
  // The run settings the file gives (`executor:` and `defaults.timeout`), each by its run
  // setting's name (the flag without its dashes: "connections", "max-connections", "timeout")
  // with the text its flag would take, already checked where the file gives it. The command line
  // overrides them (cli/scenario_options.cc); a YAML list of stages is joined to "10s:100,...".
  std::vector<std::pair<std::string, std::string>> settings;
  // The text of setting `name`, if the file gives it.
  std::optional<std::string> setting(std::string_view name) const {
    for (const auto& [key, text] : settings) {
      if (key == name) return text;
    }
    return std::nullopt;
  }
  std::vector<DataSpec> data;
  std::vector<RequestSpec> requests;
  std::vector<FlowSpec> flows;
  // Empty: every flow, and every request that is not a step of a flow, with weight 1. The parser
  // fills it in by that rule when the file has no `mix`, so it is empty only when built by hand.
  std::vector<MixEntry> mix;
  std::vector<ThresholdSpec> thresholds;
  // `canaries:`: known-answer requests (fixed, with checks) that `proofload soak` sends every
  // --canary-every on a connection of their own, apart from the load. Other commands ignore them.
  std::vector<RequestSpec> canaries;
};

}  // namespace proofload::workload
