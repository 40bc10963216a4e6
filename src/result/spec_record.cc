// See spec_record.h. Each record's keys are listed once (Keys<S> below), and one generic writer
// and reader walk the list, so a key is added in the struct and its list only.
#include "result/spec_record.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <tuple>

namespace proofload::result {

using nlohmann::json;

// Named, inside the unnamed namespace: this file is compiled in a unity batch with others.
namespace {
namespace spec_fields {

template <typename S, typename T>
struct Key {
  const char* name;
  Field<T> S::*member;
};

template <typename S, typename T>
constexpr Key<S, T> key(const char* name, Field<T> S::*member) {
  return {name, member};
}

// The keys of each record, in no particular order (nlohmann::json sorts keys when it writes).
template <typename S>
struct Keys;

template <>
struct Keys<SpecHeader> {
  static constexpr auto list() {
    return std::tuple{key("name", &SpecHeader::name), key("value", &SpecHeader::value)};
  }
};

template <>
struct Keys<SpecStage> {
  static constexpr auto list() {
    return std::tuple{key("duration_s", &SpecStage::duration_s), key("target", &SpecStage::target)};
  }
};

template <>
struct Keys<SpecTls> {
  static constexpr auto list() {
    return std::tuple{key("verify", &SpecTls::verify),
                      key("resume", &SpecTls::resume),
                      key("ca_file", &SpecTls::ca_file),
                      key("server_name", &SpecTls::server_name),
                      key("client_certificate", &SpecTls::client_certificate),
                      key("min_version", &SpecTls::min_version),
                      key("version", &SpecTls::version),
                      key("alpn", &SpecTls::alpn)};
  }
};

template <>
struct Keys<SpecSegment> {
  static constexpr auto list() {
    return std::tuple{key("index", &SpecSegment::index), key("count", &SpecSegment::count)};
  }
};

template <>
struct Keys<SpecStream> {
  static constexpr auto list() {
    return std::tuple{key("kind", &SpecStream::kind),
                      key("content", &SpecStream::content),
                      key("tokens", &SpecStream::tokens),
                      key("terminator", &SpecStream::terminator),
                      key("fixture", &SpecStream::fixture),
                      key("requests", &SpecStream::requests),
                      key("idle_timeout_s", &SpecStream::idle_timeout_s),
                      key("goodput", &SpecStream::goodput)};
  }
};

template <>
struct Keys<SpecRequest> {
  static constexpr auto list() {
    return std::tuple{key("name", &SpecRequest::name),
                      key("method", &SpecRequest::method),
                      key("path", &SpecRequest::path),
                      key("headers", &SpecRequest::headers),
                      key("body_template_bytes", &SpecRequest::body_template_bytes),
                      key("checks", &SpecRequest::checks),
                      key("extracts", &SpecRequest::extracts)};
  }
};

template <>
struct Keys<SpecStep> {
  static constexpr auto list() {
    return std::tuple{key("request", &SpecStep::request), key("think_s", &SpecStep::think_s)};
  }
};

template <>
struct Keys<SpecFlow> {
  static constexpr auto list() {
    return std::tuple{key("name", &SpecFlow::name), key("steps", &SpecFlow::steps)};
  }
};

template <>
struct Keys<SpecMixEntry> {
  static constexpr auto list() {
    return std::tuple{key("name", &SpecMixEntry::name), key("kind", &SpecMixEntry::kind),
                      key("share", &SpecMixEntry::share)};
  }
};

template <>
struct Keys<SpecData> {
  static constexpr auto list() {
    return std::tuple{key("name", &SpecData::name), key("kind", &SpecData::kind)};
  }
};

template <>
struct Keys<SpecScenario> {
  static constexpr auto list() {
    return std::tuple{key("file", &SpecScenario::file),
                      key("default_headers", &SpecScenario::default_headers),
                      key("requests", &SpecScenario::requests),
                      key("flows", &SpecScenario::flows),
                      key("mix", &SpecScenario::mix),
                      key("data", &SpecScenario::data),
                      key("thresholds", &SpecScenario::thresholds),
                      key("seed", &SpecScenario::seed)};
  }
};

template <>
struct Keys<SpecRecord> {
  static constexpr auto list() {
    return std::tuple{key("command", &SpecRecord::command),
                      key("target", &SpecRecord::target),
                      key("address", &SpecRecord::address),
                      key("targets", &SpecRecord::targets),
                      key("addresses", &SpecRecord::addresses),
                      key("protocol", &SpecRecord::protocol),
                      key("h2_streams", &SpecRecord::h2_streams),
                      key("tls", &SpecRecord::tls),
                      key("method", &SpecRecord::method),
                      key("headers", &SpecRecord::headers),
                      key("body_bytes", &SpecRecord::body_bytes),
                      key("executor", &SpecRecord::executor),
                      key("connections", &SpecRecord::connections),
                      key("max_connections", &SpecRecord::max_connections),
                      key("rate_per_s", &SpecRecord::rate_per_s),
                      key("stages", &SpecRecord::stages),
                      key("duration_s", &SpecRecord::duration_s),
                      key("warmup_s", &SpecRecord::warmup_s),
                      key("requests_limit", &SpecRecord::requests_limit),
                      key("queue_capacity", &SpecRecord::queue_capacity),
                      key("timeout_s", &SpecRecord::timeout_s),
                      key("connect_timeout_s", &SpecRecord::connect_timeout_s),
                      key("grace_s", &SpecRecord::grace_s),
                      key("workers", &SpecRecord::workers),
                      key("window_s", &SpecRecord::window_s),
                      key("sources", &SpecRecord::sources),
                      key("segment", &SpecRecord::segment),
                      key("start_at_unix_ns", &SpecRecord::start_at_unix_ns),
                      key("stream", &SpecRecord::stream),
                      key("io", &SpecRecord::io),
                      key("scenario", &SpecRecord::scenario),
                      key("observe", &SpecRecord::observe),
                      key("observe_every_s", &SpecRecord::observe_every_s),
                      key("reconcile", &SpecRecord::reconcile),
                      key("thresholds", &SpecRecord::thresholds)};
  }
};

template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};

template <typename T>
constexpr bool kIsNumber = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

// --- Writing ---

template <typename S>
json record_json(const S& record);

template <typename T>
json value_json(const T& value) {
  if constexpr (std::is_same_v<T, std::string> || std::is_arithmetic_v<T>) {
    return json(value);
  } else if constexpr (IsVector<T>::value) {
    json out = json::array();
    for (const auto& item : value) out.push_back(value_json(item));
    return out;
  } else {
    return record_json(value);
  }
}

template <typename T>
json field_json(const Field<T>& field) {
  if (!field.has_value()) return nullptr;
  if constexpr (kIsNumber<T>) {
    // As it was read: a hand-written 3 stays 3, a 10.0 stays 10.0.
    if (std::is_floating_point_v<T> && field.form() == NumberForm::kInteger) {
      return json(static_cast<int64_t>(*field));
    }
    if (std::is_integral_v<T> && field.form() == NumberForm::kFloat) {
      return json(static_cast<double>(*field));
    }
  }
  return value_json(*field);
}

template <typename S, typename T>
void write_key(const S& record, const Key<S, T>& key, json& out) {
  const Field<T>& field = record.*(key.member);
  if (field.present()) out[key.name] = field_json(field);
}

template <typename S>
json record_json(const S& record) {
  json out = record.unknown.is_object() ? record.unknown : json::object();
  std::apply([&](const auto&... keys) { (write_key(record, keys, out), ...); }, Keys<S>::list());
  return out;
}

// --- Reading ---

struct Reader {
  std::string_view document;

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw std::runtime_error(std::string(document) + ": '" + path + "' is " + what);
  }
};

template <typename S>
S record_from(const json& object, const std::string& path, const Reader& reader);

template <typename T>
T value_from(const json& value, const std::string& path, const Reader& reader, NumberForm& form) {
  if constexpr (std::is_same_v<T, std::string>) {
    if (!value.is_string()) reader.fail(path, "not a string");
    return value.get<std::string>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!value.is_boolean()) reader.fail(path, "not true or false");
    return value.get<bool>();
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!value.is_number()) reader.fail(path, "not a number");
    if (!value.is_number_float()) form = NumberForm::kInteger;
    return value.get<T>();
  } else if constexpr (std::is_integral_v<T>) {
    const char* what = std::is_signed_v<T> ? "not a whole number" : "not a whole number 0 or more";
    if (value.is_number_unsigned()) {
      if (value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
        reader.fail(path, what);
      }
      return static_cast<T>(value.get<uint64_t>());
    }
    if (value.is_number_integer()) {
      if (value.get<int64_t>() < 0 && std::is_unsigned_v<T>) reader.fail(path, what);
      return static_cast<T>(value.get<int64_t>());
    }
    // A whole number written as a float (1200.0), as the result files' readers take it.
    if (value.is_number_float()) {
      const double d = value.get<double>();
      if (d == std::floor(d) && d >= static_cast<double>(std::numeric_limits<T>::min()) &&
          d < static_cast<double>(std::numeric_limits<T>::max())) {
        form = NumberForm::kFloat;
        return static_cast<T>(d);
      }
    }
    reader.fail(path, what);
  } else if constexpr (IsVector<T>::value) {
    if (!value.is_array()) reader.fail(path, "not an array");
    T out;
    for (size_t i = 0; i < value.size(); ++i) {
      NumberForm ignored = NumberForm::kAsTyped;
      out.push_back(value_from<typename T::value_type>(
          value[i], path + "[" + std::to_string(i) + "]", reader, ignored));
    }
    return out;
  } else {
    if (!value.is_object()) reader.fail(path, "not an object");
    return record_from<T>(value, path, reader);
  }
}

template <typename S, typename T>
void read_key(const json& object, const Key<S, T>& key, const std::string& path,
              const Reader& reader, S& record) {
  Field<T>& field = record.*(key.member);
  const auto it = object.find(key.name);
  if (it == object.end()) return;  // absent
  if (it->is_null()) {
    field = Field<T>::null();
    return;
  }
  NumberForm form = NumberForm::kAsTyped;
  field = Field<T>(value_from<T>(*it, path + "." + key.name, reader, form));
  field.set_form(form);
}

template <typename S>
S record_from(const json& object, const std::string& path, const Reader& reader) {
  S record;
  std::apply([&](const auto&... keys) { (read_key(object, keys, path, reader, record), ...); },
             Keys<S>::list());
  for (const auto& item : object.items()) {
    // (Not a structured binding: clang before 16 cannot capture one in the lambda.)
    const std::string& name = item.key();
    bool known = false;
    std::apply([&](const auto&... keys) { known = ((name == keys.name) || ...); }, Keys<S>::list());
    if (!known) record.unknown[name] = item.value();
  }
  return record;
}

}  // namespace spec_fields
}  // namespace

std::string SpecRecord::goodput_slo() const {
  return stream.has_value() ? stream->goodput.value_or(std::string()) : std::string();
}

json spec_to_json(const SpecRecord& spec) { return spec_fields::record_json(spec); }

SpecRecord spec_from_json(const json& spec, std::string_view document) {
  const spec_fields::Reader reader{document};
  if (!spec.is_object()) reader.fail("spec", "not an object");
  return spec_fields::record_from<SpecRecord>(spec, "spec", reader);
}

json spec_key_json(const SpecRecord& spec, std::string_view key) {
  const json whole = spec_to_json(spec);
  const auto it = whole.find(key);
  return it == whole.end() ? json(nullptr) : *it;
}

}  // namespace proofload::result
