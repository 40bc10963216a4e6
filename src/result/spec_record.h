// result.json's `spec` (docs/result-schema.md "Run") as one typed value, SpecRecord, with its one
// paired spec_to_json / spec_from_json: plan::plan_run and aim write it, `proofload observe`
// writes its own shape ({"command": "observe", ...}), merge rewrites a segment's, and every report
// reads its fields. The segment header (segment.jsonl) embeds the same value.
//
// A file's bytes are kept: each key is a Field, absent, null or a value, because today's files
// differ by it (`rate_per_s: null` in a closed loop; `sources` absent without --sources); a number
// is written back in the form it was read (3 stays 3, not 3.0); keys it does not know are kept in
// `unknown` at every level, so merge writes a newer file's spec back whole. Reading a value of the
// wrong type throws std::runtime_error naming the key ("run result.json: 'spec.connections' is
// not a whole number"). Pure; thread-safe.
#pragma once

#include <concepts>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace proofload::result {

// How a number was written in the file it was read from, so that it is written back the same.
enum class NumberForm : uint8_t { kAsTyped, kInteger, kFloat };

// A key of a recorded object: absent, null, or a value.
template <typename T>
class Field {
 public:
  Field() = default;  // absent
  // A value, converted without narrowing (a double is no count, a pointer no bool).
  template <typename U>
  requires(!std::is_same_v<std::remove_cvref_t<U>, Field> &&
           requires(U && u) { T{std::forward<U>(u)}; }) Field(U&& value)
      : value_(T(std::forward<U>(value))), present_(true) {}

  static Field null() { return or_null(std::nullopt); }
  // Present either way: the value, or null when there is none.
  static Field or_null(std::optional<T> value) {
    Field field;
    field.value_ = std::move(value);
    field.present_ = true;
    return field;
  }

  bool present() const { return present_; }  // a value or null
  bool has_value() const { return value_.has_value(); }
  explicit operator bool() const { return has_value(); }
  const T& operator*() const { return *value_; }
  T& operator*() { return *value_; }
  const T* operator->() const { return &*value_; }
  T* operator->() { return &*value_; }
  const std::optional<T>& get() const { return value_; }  // nullopt: absent or null
  template <typename U>
  T value_or(U&& fallback) const {
    return value_.value_or(std::forward<U>(fallback));
  }

  NumberForm form() const { return form_; }
  void set_form(NumberForm form) { form_ = form; }

  // The form a number was written in is not part of its value (3 == 3.0).
  bool operator==(const Field& other) const {
    return present_ == other.present_ && value_ == other.value_;
  }

 private:
  std::optional<T> value_;
  bool present_ = false;
  NumberForm form_ = NumberForm::kAsTyped;
};

// {name, value}: a request header as recorded, a sensitive value as "[redacted]".
struct SpecHeader {
  Field<std::string> name, value;
  nlohmann::json unknown = nlohmann::json::object();
  bool operator==(const SpecHeader&) const = default;
};

// stages[i]: a stage of --stages (target: a rate in an open loop, else connections).
struct SpecStage {
  Field<double> duration_s, target;
  nlohmann::json unknown = nlohmann::json::object();
  bool operator==(const SpecStage&) const = default;
};

// tls (an https target): what was asked, and what the pre-flight handshake agreed (aim).
struct SpecTls {
  Field<bool> verify, resume;
  Field<std::string> ca_file, server_name, client_certificate, min_version;
  Field<std::string> version, alpn;  // "TLSv1.3"; "h2" (null: no ALPN agreed, or not aimed)
  nlohmann::json unknown = nlohmann::json::object();
  bool operator==(const SpecTls&) const = default;
};

// segment (--segment I/N with N > 1).
struct SpecSegment {
  Field<int64_t> index, count;
  nlohmann::json unknown = nlohmann::json::object();
  bool operator==(const SpecSegment&) const = default;
};

// stream: --stream's rules (kind "sse"/"chunked"), or a scenario's streamed requests (kind
// "per request", `requests`); with the idle timeout and the --goodput SLO as given.
struct SpecStream {
  Field<std::string> kind, content, tokens, terminator, fixture;
  Field<std::vector<std::string>> requests;
  Field<double> idle_timeout_s;
  Field<std::string> goodput;
  nlohmann::json unknown = nlohmann::json::object();
  bool operator==(const SpecStream&) const = default;
};

// scenario.requests[i]: a scenario's request as templates (never a secret's value).
struct SpecRequest {
  Field<std::string> name, method, path;
  Field<std::vector<SpecHeader>> headers;
  Field<int64_t> body_template_bytes;
  Field<std::vector<std::string>> checks, extracts;
  nlohmann::json unknown = nlohmann::json::object();
  bool operator==(const SpecRequest&) const = default;
};

struct SpecStep {
  Field<std::string> request;
  Field<double> think_s;
  nlohmann::json unknown = nlohmann::json::object();
  bool operator==(const SpecStep&) const = default;
};

struct SpecFlow {
  Field<std::string> name;
  Field<std::vector<SpecStep>> steps;
  nlohmann::json unknown = nlohmann::json::object();
  bool operator==(const SpecFlow&) const = default;
};

// scenario.mix[i]: an entry of the mix, "request" or "flow", with its share of the picks.
struct SpecMixEntry {
  Field<std::string> name, kind;
  Field<double> share;
  nlohmann::json unknown = nlohmann::json::object();
  bool operator==(const SpecMixEntry&) const = default;
};

struct SpecData {
  Field<std::string> name, kind;
  nlohmann::json unknown = nlohmann::json::object();
  bool operator==(const SpecData&) const = default;
};

// scenario: what a scenario file asked for.
struct SpecScenario {
  Field<std::string> file;
  Field<std::vector<SpecHeader>> default_headers;
  Field<std::vector<SpecRequest>> requests;
  Field<std::vector<SpecFlow>> flows;
  Field<std::vector<SpecMixEntry>> mix;
  Field<std::vector<SpecData>> data;
  Field<std::vector<std::string>> thresholds;
  Field<uint64_t> seed;  // exact: printed in a command line that must read back
  nlohmann::json unknown = nlohmann::json::object();
  bool operator==(const SpecScenario&) const = default;
};

// result.json's `spec`: the run as configured, normalized. Which keys a writer sets, and when it
// writes null, is the writer's (plan_run.cc, observe_only.cc); docs/result-schema.md lists them.
struct SpecRecord {
  Field<std::string> command;  // "observe": `proofload observe`, no load was sent
  Field<std::string> target, address;
  Field<std::vector<std::string>> targets, addresses;  // several --target: every one, in order
  Field<std::string> protocol;                         // "http/1.1" or "h2"
  Field<int64_t> h2_streams;                           // null for HTTP/1.1
  Field<SpecTls> tls;                                  // null for an http target
  Field<std::string> method;                           // a plain run's request
  Field<std::vector<SpecHeader>> headers;
  Field<int64_t> body_bytes;
  Field<std::string> executor;  // "open_loop" or "closed_loop"
  Field<int64_t> connections, max_connections;
  Field<double> rate_per_s;  // open loop, in requests (or arrivals) per second
  Field<std::vector<SpecStage>> stages;
  Field<double> duration_s, warmup_s;  // duration_s: null when only -n bounds the run
  Field<int64_t> requests_limit, queue_capacity;
  Field<double> timeout_s, connect_timeout_s, grace_s;
  Field<int64_t> workers;
  Field<double> window_s;
  Field<std::vector<std::string>> sources;
  Field<SpecSegment> segment;
  Field<int64_t> start_at_unix_ns;
  Field<SpecStream> stream;
  Field<std::string> io;  // "epoll" or "io_uring", as aimed
  Field<SpecScenario> scenario;
  Field<std::vector<std::string>> observe;
  Field<double> observe_every_s;
  Field<std::string> reconcile;
  Field<std::vector<std::string>> thresholds;
  // Keys without a member here: a newer proofload's, and those a run setting records itself
  // (plan/run_settings*.cc, through record_key). Written back as they are.
  nlohmann::json unknown = nlohmann::json::object();
  bool operator==(const SpecRecord&) const = default;

  void record_key(const std::string& key, nlohmann::json value) { unknown[key] = std::move(value); }

  bool observe_only() const { return command.get() == "observe"; }
  bool streams() const { return stream.present(); }  // result.json then has summary.streams
  std::string goodput_slo() const;                   // stream.goodput, "" without
};

// `document` starts an error's message ("run result.json", "segment.jsonl").
nlohmann::json spec_to_json(const SpecRecord& spec);
SpecRecord spec_from_json(const nlohmann::json& spec, std::string_view document);

// One key of spec_to_json(spec), null when absent: for a message that quotes it.
nlohmann::json spec_key_json(const SpecRecord& spec, std::string_view key);

}  // namespace proofload::result
