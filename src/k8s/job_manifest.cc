// See job_manifest.h. The YAML comes from yaml-cpp's emitter; every string that YAML would read
// as something else (a number, a boolean, null) or that holds anything unusual is double-quoted,
// so the API server reads back exactly the text given.
#include "k8s/job_manifest.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "common/usage_error.h"
#include "measure/hlog.h"

namespace proofload::k8s {
namespace {

bool is_alnum_lower(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// A label's name or value: up to 63 of [A-Za-z0-9_.-], beginning and ending alphanumeric.
bool is_label_text(std::string_view text) {
  if (text.empty() || text.size() > 63 || !is_alnum(text.front()) || !is_alnum(text.back())) {
    return false;
  }
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return is_alnum(c) || c == '-' || c == '_' || c == '.'; });
}

bool is_label_key(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return is_label_text(key);
  return is_dns1123_subdomain(key.substr(0, slash)) && is_label_text(key.substr(slash + 1));
}

bool plain_is_safe(std::string_view text) {
  // A flag ("-c", "--segment") is plain too; "-1" or "- x" would not be.
  const size_t first = text.find_first_not_of('-');
  if (first == std::string_view::npos || first > 2 ||
      !(std::isalpha(static_cast<unsigned char>(text[first])) || (first == 0 && text[0] == '/'))) {
    return false;
  }
  for (char c : text) {
    if (!(is_alnum(c) || c == '-' || c == '_' || c == '.' || c == '/')) return false;
  }
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* word : {"true", "false", "yes", "no", "on", "off", "y", "n", "null"}) {
    if (lower == word) return false;
  }
  return true;
}

// Every string goes through here: plain when YAML can only read it as that string.
void put(YAML::Emitter& out, std::string_view text) {
  if (!plain_is_safe(text)) out << YAML::DoubleQuoted;
  out << std::string(text);
}

void key_value(YAML::Emitter& out, std::string_view key, std::string_view value) {
  out << YAML::Key;
  put(out, key);
  out << YAML::Value;
  put(out, value);
}

// Text the ConfigMap's `data` can hold (UTF-8, no control character but tab and line breaks);
// anything else goes in `binaryData`, base64.
bool is_utf8_text(std::string_view bytes) {
  for (size_t i = 0; i < bytes.size();) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    size_t more = 0;
    if (c < 0x80) {
      if (c == 0x7f || (c < 0x20 && c != '\n' && c != '\t' && c != '\r')) return false;
    } else if ((c >> 5) == 0x6) {
      more = 1;
    } else if ((c >> 4) == 0xe) {
      more = 2;
    } else if ((c >> 3) == 0x1e) {
      more = 3;
    } else {
      return false;
    }
    for (size_t k = 1; k <= more; ++k) {
      if (i + k >= bytes.size() || (static_cast<unsigned char>(bytes[i + k]) >> 6) != 0x2) {
        return false;
      }
    }
    i += more + 1;
  }
  return true;
}

// A literal block keeps text readable, but only reads back byte for byte when the text ends in
// exactly one line break, has no carriage return and does not open with a space.
bool fits_literal_block(std::string_view text) {
  return text.size() >= 2 && text.back() == '\n' && text[text.size() - 2] != '\n' &&
         text.front() != ' ' && text.find('\r') == std::string_view::npos;
}

// The ConfigMap key of the file at `index`: keys allow [-._a-zA-Z0-9] only, and each file is
// placed at its path by the volume's items.
std::string config_key(size_t index, std::string_view path) {
  std::string key = "f" + std::to_string(index) + "-";
  for (char c : path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1)) {
    key += is_alnum(c) || c == '-' || c == '_' || c == '.' ? c : '-';
  }
  return key.substr(0, 253);
}

std::string config_map_name(const JobSpec& spec) { return spec.name + "-files"; }

void metadata(YAML::Emitter& out, const JobSpec& spec, std::string_view name) {
  out << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
  key_value(out, "name", name);
  if (!spec.namespace_name.empty()) key_value(out, "namespace", spec.namespace_name);
  out << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
  key_value(out, "app.kubernetes.io/name", "proofload");
  key_value(out, "app.kubernetes.io/instance", spec.name);
  out << YAML::EndMap << YAML::EndMap;
}

void emit_config_map(YAML::Emitter& out, const JobSpec& spec) {
  out << YAML::BeginDoc << YAML::BeginMap;
  key_value(out, "apiVersion", "v1");
  key_value(out, "kind", "ConfigMap");
  metadata(out, spec, config_map_name(spec));
  bool any_text = false, any_binary = false;
  for (const MountedFile& file : spec.files) {
    (is_utf8_text(file.content) ? any_text : any_binary) = true;
  }
  for (bool text : {true, false}) {
    if (!(text ? any_text : any_binary)) continue;
    out << YAML::Key << (text ? "data" : "binaryData") << YAML::Value << YAML::BeginMap;
    for (size_t i = 0; i < spec.files.size(); ++i) {
      const std::string& content = spec.files[i].content;
      if (is_utf8_text(content) != text) continue;
      out << YAML::Key << config_key(i, spec.files[i].path) << YAML::Value;
      if (!text) {
        out << measure::base64_encode(reinterpret_cast<const uint8_t*>(content.data()),
                                      content.size());
      } else if (fits_literal_block(content)) {
        out << YAML::Literal << content;
      } else {
        out << YAML::DoubleQuoted << content;
      }
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
}

// Kubernetes expands $(NAME) in a container's command and args and turns "$$" into "$": every
// "$" the user wrote is doubled so that it reaches proofload as written.
std::string escaped_for_expansion(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

// The environment variable that holds secret header `index` in the pod.
std::string secret_variable(size_t index) { return "PL_SECRET_HEADER_" + std::to_string(index); }

std::vector<std::string> experiment_args(const JobSpec& spec) {
  const std::string index = "$(JOB_COMPLETION_INDEX)";
  std::vector<std::string> args = {spec.experiment, escaped_for_expansion(spec.target),
                                   "--segment",     index + "/" + std::to_string(spec.segments),
                                   "--start-at",    spec.start_at,
                                   "--out",         std::string(kResultsDir) + "/segment-" + index};
  for (const std::string& flag : spec.passthrough) args.push_back(escaped_for_expansion(flag));
  // Unescaped: Kubernetes replaces $(VAR) with the Secret's value as the container starts, so
  // the value is in the process's arguments but never in the Job.
  for (size_t i = 0; i < spec.secret_headers.size(); ++i) {
    args.push_back("-H");
    args.push_back(spec.secret_headers[i].name + ": $(" + secret_variable(i) + ")");
  }
  return args;
}

void emit_string_list(YAML::Emitter& out, const std::vector<std::string>& items) {
  out << YAML::BeginSeq;
  for (const std::string& item : items) put(out, item);
  out << YAML::EndSeq;
}

void emit_resources(YAML::Emitter& out, const JobSpec& spec) {
  const bool requests = !spec.cpu_request.empty() || !spec.memory_request.empty();
  const bool limits = !spec.cpu_limit.empty() || !spec.memory_limit.empty();
  if (!requests && !limits) return;
  out << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
  for (bool request : {true, false}) {
    const std::string& cpu = request ? spec.cpu_request : spec.cpu_limit;
    const std::string& memory = request ? spec.memory_request : spec.memory_limit;
    if (cpu.empty() && memory.empty()) continue;
    out << YAML::Key << (request ? "requests" : "limits") << YAML::Value << YAML::BeginMap;
    // Quantities are strings to the API (int-or-string): "2" stays "2", never the number 2.
    if (!cpu.empty()) out << YAML::Key << "cpu" << YAML::Value << YAML::DoubleQuoted << cpu;
    if (!memory.empty()) {
      out << YAML::Key << "memory" << YAML::Value << YAML::DoubleQuoted << memory;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
}

void emit_container(YAML::Emitter& out, const JobSpec& spec) {
  out << YAML::BeginMap;
  key_value(out, "name", kContainerName);
  key_value(out, "image", spec.image);
  if (spec.results == ResultsMode::kLog) {
    out << YAML::Key << "command" << YAML::Value << YAML::BeginSeq << "sh"
        << "-c" << YAML::Literal << log_results_script() << "proofload-segment" << YAML::EndSeq;
  } else {
    out << YAML::Key << "command" << YAML::Value << YAML::BeginSeq << "proofload" << YAML::EndSeq;
  }
  out << YAML::Key << "args" << YAML::Value;
  emit_string_list(out, experiment_args(spec));
  if (!spec.files.empty()) key_value(out, "workingDir", kScenarioDir);
  out << YAML::Key << "env" << YAML::Value << YAML::BeginSeq;
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "JOB_COMPLETION_INDEX";
  out << YAML::Key << "valueFrom" << YAML::Value << YAML::BeginMap << YAML::Key << "fieldRef"
      << YAML::Value << YAML::BeginMap;
  key_value(out, "fieldPath", "metadata.annotations['" + std::string(kIndexAnnotation) + "']");
  out << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  out << YAML::BeginMap;
  key_value(out, "name", "PROOFLOAD_RESULTS");
  key_value(out, "value", kResultsDir);
  out << YAML::EndMap;
  const std::vector<std::string> keys = secret_keys(spec);
  for (size_t i = 0; i < keys.size(); ++i) {
    out << YAML::BeginMap;
    key_value(out, "name", secret_variable(i));
    out << YAML::Key << "valueFrom" << YAML::Value << YAML::BeginMap << YAML::Key
        << "secretKeyRef" << YAML::Value << YAML::BeginMap;
    key_value(out, "name", secret_name(spec));
    key_value(out, "key", keys[i]);
    out << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  }
  out << YAML::EndSeq;
  emit_resources(out, spec);
  out << YAML::Key << "volumeMounts" << YAML::Value << YAML::BeginSeq;
  out << YAML::BeginMap;
  key_value(out, "name", "results");
  key_value(out, "mountPath", kResultsDir);
  out << YAML::EndMap;
  if (!spec.files.empty()) {
    out << YAML::BeginMap;
    key_value(out, "name", "scenario");
    key_value(out, "mountPath", kScenarioDir);
    out << YAML::Key << "readOnly" << YAML::Value << true << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
}

void emit_volumes(YAML::Emitter& out, const JobSpec& spec) {
  out << YAML::Key << "volumes" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  key_value(out, "name", "results");
  if (spec.results == ResultsMode::kLog) {
    out << YAML::Key << "emptyDir" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::EndMap;
  } else {
    out << YAML::Key << "persistentVolumeClaim" << YAML::Value << YAML::BeginMap;
    key_value(out, "claimName", spec.pvc);
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  if (!spec.files.empty()) {
    out << YAML::BeginMap;
    key_value(out, "name", "scenario");
    out << YAML::Key << "configMap" << YAML::Value << YAML::BeginMap;
    key_value(out, "name", config_map_name(spec));
    out << YAML::Key << "items" << YAML::Value << YAML::BeginSeq;
    for (size_t i = 0; i < spec.files.size(); ++i) {
      out << YAML::BeginMap;
      key_value(out, "key", config_key(i, spec.files[i].path));
      key_value(out, "path", spec.files[i].path);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq << YAML::EndMap << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

void emit_affinity(YAML::Emitter& out, const JobSpec& spec) {
  out << YAML::Key << "affinity" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "podAntiAffinity" << YAML::Value << YAML::BeginMap;
  out << YAML::Key
      << (spec.allow_same_node ? "preferredDuringSchedulingIgnoredDuringExecution"
                               : "requiredDuringSchedulingIgnoredDuringExecution")
      << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  if (spec.allow_same_node) {
    out << YAML::Key << "weight" << YAML::Value << 100;
    out << YAML::Key << "podAffinityTerm" << YAML::Value << YAML::BeginMap;
  }
  out << YAML::Key << "labelSelector" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "matchLabels" << YAML::Value << YAML::BeginMap;
  key_value(out, "app.kubernetes.io/name", "proofload");
  key_value(out, "app.kubernetes.io/instance", spec.name);
  out << YAML::EndMap << YAML::EndMap;
  key_value(out, "topologyKey", "kubernetes.io/hostname");
  if (spec.allow_same_node) out << YAML::EndMap;
  out << YAML::EndMap << YAML::EndSeq << YAML::EndMap << YAML::EndMap;
}

void emit_job(YAML::Emitter& out, const JobSpec& spec) {
  out << YAML::BeginDoc << YAML::BeginMap;
  key_value(out, "apiVersion", "batch/v1");
  key_value(out, "kind", "Job");
  metadata(out, spec, spec.name);
  out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  key_value(out, "completionMode", "Indexed");
  out << YAML::Key << "completions" << YAML::Value << spec.segments;
  out << YAML::Key << "parallelism" << YAML::Value << spec.segments;
  out << YAML::Key << "backoffLimit" << YAML::Value << 0;
  out << YAML::Key << "template" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
  key_value(out, "app.kubernetes.io/name", "proofload");
  key_value(out, "app.kubernetes.io/instance", spec.name);
  out << YAML::EndMap << YAML::Key << "annotations" << YAML::Value << YAML::BeginMap;
  key_value(out, kResultsAnnotation, spec.results == ResultsMode::kLog ? "log" : "volume");
  if (spec.results == ResultsMode::kVolume) key_value(out, kPvcAnnotation, spec.pvc);
  key_value(out, kSegmentsAnnotation, std::to_string(spec.segments));
  out << YAML::EndMap << YAML::EndMap;
  out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  key_value(out, "restartPolicy", "Never");
  if (spec.results == ResultsMode::kVolume) {
    // The image runs as user 10001 (Dockerfile): the claim is made writable by its group.
    out << YAML::Key << "securityContext" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "fsGroup" << YAML::Value << kImageUserId;
    key_value(out, "fsGroupChangePolicy", "OnRootMismatch");
    out << YAML::EndMap;
  }
  if (!spec.node_selector.empty()) {
    out << YAML::Key << "nodeSelector" << YAML::Value << YAML::BeginMap;
    for (const auto& [key, value] : spec.node_selector) key_value(out, key, value);
    out << YAML::EndMap;
  }
  emit_affinity(out, spec);
  out << YAML::Key << "containers" << YAML::Value << YAML::BeginSeq;
  emit_container(out, spec);
  out << YAML::EndSeq;
  emit_volumes(out, spec);
  out << YAML::EndMap << YAML::EndMap << YAML::EndMap << YAML::EndMap;
}

// yaml-cpp places comments after the value before them; the comments are put in afterwards
// instead, each on its own lines above the first line that opens with `key` (one of ours).
void comment_before(std::string& text, std::string_view key, const std::string& comment) {
  size_t line = 0;
  while (line < text.size()) {
    const size_t indent = text.find_first_not_of(' ', line);
    if (indent != std::string::npos && text.compare(indent, key.size(), key) == 0) break;
    line = text.find('\n', line);
    line = line == std::string::npos ? text.size() : line + 1;
  }
  if (line >= text.size()) return;
  const std::string pad(text.find_first_not_of(' ', line) - line, ' ');
  std::string lines;
  size_t begin = 0;
  while (begin <= comment.size()) {
    const size_t end = std::min(comment.find('\n', begin), comment.size());
    lines += pad + "# " + comment.substr(begin, end - begin) + "\n";
    begin = end + 1;
  }
  text.insert(line, lines);
}

void check_quantity(std::string_view flag, const std::string& value) {
  if (!value.empty() && quantity_value(value) < 0) {
    throw UsageError(std::string(flag) + " '" + value +
                     "' is not a Kubernetes quantity (e.g. 500m, 2, 512Mi, 4Gi)");
  }
}

void check_not_over(std::string_view request_flag, const std::string& request,
                    std::string_view limit_flag, const std::string& limit) {
  if (!request.empty() && !limit.empty() && quantity_value(request) > quantity_value(limit)) {
    throw UsageError(std::string(request_flag) + " " + request + " is over " +
                     std::string(limit_flag) + " " + limit +
                     ": Kubernetes refuses a request above its limit");
  }
}

}  // namespace

bool is_dns1123_label(std::string_view text) {
  return !text.empty() && text.size() <= 63 && is_alnum_lower(text.front()) &&
         is_alnum_lower(text.back()) && std::all_of(text.begin(), text.end(), [](char c) {
           return is_alnum_lower(c) || c == '-';
         });
}

bool is_dns1123_subdomain(std::string_view text) {
  if (text.empty() || text.size() > 253) return false;
  size_t begin = 0;
  for (;;) {
    const size_t dot = std::min(text.find('.', begin), text.size());
    if (!is_dns1123_label(text.substr(begin, dot - begin))) return false;
    if (dot == text.size()) return true;
    begin = dot + 1;
  }
}

double quantity_value(std::string_view text) {
  size_t digits = 0;
  bool dot = false;
  while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) ||
                                  (text[digits] == '.' && !dot))) {
    dot = dot || text[digits] == '.';
    ++digits;
  }
  const std::string number(text.substr(0, digits));
  if (number.empty() || number == "." || number.size() > 20) return -1;
  const std::string_view suffix = text.substr(digits);
  static const std::pair<std::string_view, double> kSuffixes[] = {
      {"", 1},        {"m", 1e-3},    {"k", 1e3},     {"M", 1e6},     {"G", 1e9},
      {"T", 1e12},    {"P", 1e15},    {"E", 1e18},    {"Ki", 0x1p10}, {"Mi", 0x1p20},
      {"Gi", 0x1p30}, {"Ti", 0x1p40}, {"Pi", 0x1p50}, {"Ei", 0x1p60}};
  for (const auto& [name, scale] : kSuffixes) {
    if (suffix == name) {
      const double value = std::stod(number) * scale;
      return value > 0 && std::isfinite(value) ? value : -1;
    }
  }
  return -1;
}

void check_job_spec(const JobSpec& spec) {
  if (spec.segments < 1 || spec.segments > kMaxSegments) {
    throw UsageError("--segments " + std::to_string(spec.segments) + ": from 1 to " +
                     std::to_string(kMaxSegments));
  }
  if (!is_dns1123_label(spec.name)) {
    throw UsageError("--name '" + spec.name +
                     "' is not a DNS-1123 label (lower-case letters, digits and '-', up to 63, "
                     "starting and ending alphanumeric)");
  }
  if (!spec.namespace_name.empty() && !is_dns1123_label(spec.namespace_name)) {
    throw UsageError("--namespace '" + spec.namespace_name + "' is not a DNS-1123 label");
  }
  if (spec.image.empty() || spec.image.find_first_of(" \t\r\n") != std::string::npos) {
    throw UsageError("--image '" + spec.image + "' is not an image reference");
  }
  if (spec.results == ResultsMode::kVolume && spec.pvc.empty()) {
    throw UsageError(
        "--results volume needs --pvc NAME (a PersistentVolumeClaim every pod mounts)");
  }
  if (spec.results == ResultsMode::kLog && !spec.pvc.empty()) {
    throw UsageError("--pvc is for --results volume");
  }
  if (!spec.pvc.empty() && !is_dns1123_subdomain(spec.pvc)) {
    throw UsageError("--pvc '" + spec.pvc + "' is not a DNS-1123 subdomain");
  }
  check_quantity("--cpu", spec.cpu_request);
  check_quantity("--memory", spec.memory_request);
  check_quantity("--cpu-limit", spec.cpu_limit);
  check_quantity("--memory-limit", spec.memory_limit);
  check_not_over("--cpu", spec.cpu_request, "--cpu-limit", spec.cpu_limit);
  check_not_over("--memory", spec.memory_request, "--memory-limit", spec.memory_limit);
  for (const auto& [key, value] : spec.node_selector) {
    if (!is_label_key(key) || (!value.empty() && !is_label_text(value))) {
      throw UsageError("--node-selector '" + key + "=" + value +
                       "' is not a label (KEY=VALUE, e.g. node-pool=load)");
    }
  }
  size_t bytes = 0;
  for (const MountedFile& file : spec.files) bytes += file.content.size() + file.path.size();
  if (bytes > kMaxConfigMapBytes) {
    throw UsageError("the scenario and its data files are " + std::to_string(bytes) +
                     " bytes: a ConfigMap holds at most 1 MiB (build them into an image of your "
                     "own, FROM the proofload image)");
  }
}

std::string render_job_yaml(const JobSpec& spec) {
  check_job_spec(spec);
  YAML::Emitter out;
  out.SetIndent(2);
  if (!spec.files.empty()) emit_config_map(out, spec);
  emit_job(out, spec);
  std::string text = std::string(out.c_str()) + "\n";
  comment_before(text, "apiVersion: batch/v1",
                 "proofload " + spec.experiment + " in " + std::to_string(spec.segments) +
                     " segments, one a pod, all starting at " + spec.start_at + ".");
  comment_before(text, "backoffLimit:",
                 "A segment is never run again: a retry would add its load after the others end.");
  comment_before(
      text, "affinity:",
      std::string("One generator per node: segments sharing a node share its CPU and "
                  "network, and the load would be\nlimited by the node rather than "
                  "the target") +
          (spec.allow_same_node ? " (--allow-same-node: preferred, not required)." : "."));
  return text;
}

std::string secret_name(const JobSpec& spec) { return spec.name + "-headers"; }

std::vector<std::string> secret_keys(const JobSpec& spec) {
  // A Secret's keys allow [-._a-zA-Z0-9]: the header's name in lower case, other bytes as '-',
  // and a repeated header (two Cookie lines) numbered.
  std::vector<std::string> keys;
  for (const SecretHeader& header : spec.secret_headers) {
    std::string key;
    for (char c : header.name) {
      const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      key += is_alnum_lower(lower) || c == '-' || c == '_' || c == '.' ? lower : '-';
    }
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) {
      key += "-" + std::to_string(keys.size());
    }
    keys.push_back(key);
  }
  return keys;
}

std::string render_secret_yaml(const JobSpec& spec) {
  check_job_spec(spec);
  YAML::Emitter out;
  out.SetIndent(2);
  out << YAML::BeginDoc << YAML::BeginMap;
  key_value(out, "apiVersion", "v1");
  key_value(out, "kind", "Secret");
  metadata(out, spec, secret_name(spec));
  key_value(out, "type", "Opaque");
  out << YAML::Key << "stringData" << YAML::Value << YAML::BeginMap;
  const std::vector<std::string> keys = secret_keys(spec);
  for (size_t i = 0; i < keys.size(); ++i) {
    out << YAML::Key << keys[i] << YAML::Value << YAML::DoubleQuoted
        << spec.secret_headers[i].value;
  }
  out << YAML::EndMap << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

std::string tarball_begin_marker(int index) {
  return "==== proofload segment-" + std::to_string(index) + " tar.gz base64 begin ====";
}

std::string tarball_end_marker(int index) {
  return "==== proofload segment-" + std::to_string(index) + " end ====";
}

std::string log_results_script() {
  // No "$(" and no "$$" in here: Kubernetes would expand or fold them (see escaped_for_expansion).
  // sh is the container's first process, which the kernel shields from SIGTERM without a handler,
  // so the trap forwards it: proofload then stops and writes what it measured.
  return R"(proofload "$@" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null' TERM INT
code=0
wait "$child" || code=$?
while kill -0 "$child" 2>/dev/null; do wait "$child"; code=$?; done
segment="segment-$JOB_COMPLETION_INDEX"
if [ -d "$PROOFLOAD_RESULTS/$segment" ]; then
  echo "==== proofload $segment tar.gz base64 begin ===="
  tar -C "$PROOFLOAD_RESULTS" -czf - "$segment" | base64
  echo "==== proofload $segment end ===="
fi
exit "$code"
)";
}

}  // namespace proofload::k8s
