// See k8s_pods.h. Fields of a pod that are absent or of an unexpected type are read as absent
// rather than failing the sample: kubectl's output varies with the cluster's version, and a
// pod being created has no status yet.
#include "observe/k8s_pods.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>

#include "common/clock.h"

namespace proofload::observe {
namespace {

using nlohmann::json;

// The member `key` of `object` when it is an object holding one of type `type`, else null.
const json* member(const json& object, const char* key, json::value_t type) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->type() != type) return nullptr;
  return &*it;
}

std::string text_of(const json& object, const char* key) {
  const json* value = member(object, key, json::value_t::string);
  return value != nullptr ? value->get<std::string>() : std::string();
}

std::optional<int64_t> integer_of(const json& object, const char* key) {
  auto it = object.is_object() ? object.find(key) : object.end();
  if (it == object.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

bool is_oom_killed(const json& state) {
  const json* terminated = member(state, "terminated", json::value_t::object);
  return terminated != nullptr && text_of(*terminated, "reason") == "OOMKilled";
}

// An OOM-killed termination's identity: the killed container's ID, else the restart count it
// ended (the pod's container had restarted that many times before it).
std::string termination_id(const json& state, int64_t restart_count) {
  std::string id = text_of(state.at("terminated"), "containerID");
  return id.empty() ? "#" + std::to_string(restart_count) : id;
}

K8sPod read_pod(const json& item) {
  K8sPod pod;
  static const json kNone = json::object();
  const json* metadata = member(item, "metadata", json::value_t::object);
  const json* spec = member(item, "spec", json::value_t::object);
  const json* status = member(item, "status", json::value_t::object);
  const json& meta = metadata != nullptr ? *metadata : kNone;
  pod.uid = text_of(meta, "uid");
  if (pod.uid.empty()) pod.uid = text_of(meta, "name");
  if (spec != nullptr) pod.node_name = text_of(*spec, "nodeName");
  if (auto deletion = parse_rfc3339_unix_ns(text_of(meta, "deletionTimestamp"))) {
    int64_t grace_s = integer_of(meta, "deletionGracePeriodSeconds").value_or(0);
    pod.deletion_requested_unix_ns = *deletion - std::max<int64_t>(grace_s, 0) * kNsPerS;
  }
  if (status == nullptr) return pod;
  if (const json* conditions = member(*status, "conditions", json::value_t::array)) {
    for (const json& c : *conditions) {
      if (text_of(c, "type") == "Ready") pod.ready = text_of(c, "status") == "True";
    }
  }
  if (const json* statuses = member(*status, "containerStatuses", json::value_t::array)) {
    for (const json& s : *statuses) {
      K8sContainer container;
      container.name = text_of(s, "name");
      container.restart_count = std::max<int64_t>(integer_of(s, "restartCount").value_or(0), 0);
      const json* last = member(s, "lastState", json::value_t::object);
      if (last != nullptr && is_oom_killed(*last)) {
        container.oom_killed_terminations.push_back(
            termination_id(*last, container.restart_count - 1));
      }
      // Terminated and not restarted (yet, or ever with restartPolicy Never): this one is not
      // in lastState. Its ID keeps it from counting twice once it moves there.
      const json* state = member(s, "state", json::value_t::object);
      if (state != nullptr && is_oom_killed(*state)) {
        container.oom_killed_terminations.push_back(
            termination_id(*state, container.restart_count));
      }
      pod.containers.push_back(std::move(container));
    }
  }
  return pod;
}

}  // namespace

bool parse_pod_list(std::string_view text, std::vector<K8sPod>& pods, std::string& error) {
  pods.clear();
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    error = "not JSON";
    return false;
  }
  const std::string kind = text_of(root, "kind");
  const json* items = member(root, "items", json::value_t::array);
  if ((kind != "List" && kind != "PodList") || items == nullptr) {
    error = "not a list of pods (kind '" + kind + "')";
    return false;
  }
  for (const json& item : *items) {
    const std::string item_kind = text_of(item, "kind");
    if (!item.is_object() || (!item_kind.empty() && item_kind != "Pod")) {
      error = "not a list of pods (an item of kind '" + item_kind + "')";
      return false;
    }
    pods.push_back(read_pod(item));
  }
  return true;
}

std::optional<double> parse_quantity(std::string_view text) {
  if (text.starts_with('+')) text.remove_prefix(1);
  size_t end = 0;
  while (end < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) {
    ++end;
  }
  std::string_view number = text.substr(0, end);
  double value = 0;
  auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), value,
                                   std::chars_format::fixed);
  if (number.empty() || ec != std::errc() || ptr != number.data() + number.size()) {
    return std::nullopt;
  }
  std::string_view suffix = text.substr(end);
  struct Scale {
    std::string_view suffix;
    double factor;
  };
  static constexpr Scale kScales[] = {{"", 1},
                                      {"n", 1e-9},
                                      {"u", 1e-6},
                                      {"m", 1e-3},
                                      {"k", 1e3},
                                      {"M", 1e6},
                                      {"G", 1e9},
                                      {"T", 1e12},
                                      {"P", 1e15},
                                      {"E", 1e18},
                                      {"Ki", 1024},
                                      {"Mi", 1048576.0},
                                      {"Gi", 1073741824.0},
                                      {"Ti", 1099511627776.0},
                                      {"Pi", 1125899906842624.0},
                                      {"Ei", 1152921504606846976.0}};
  for (const Scale& scale : kScales) {
    if (suffix == scale.suffix) return value * scale.factor;
  }
  // A decimal exponent: "1e3", "5E-3" (a bare "E" is exa, above).
  if (suffix.size() >= 2 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    int exponent = 0;
    std::string_view digits_part = suffix.substr(suffix[1] == '+' ? 2 : 1);
    auto [eptr, eec] =
        std::from_chars(digits_part.data(), digits_part.data() + digits_part.size(), exponent);
    if (eec == std::errc() && eptr == digits_part.data() + digits_part.size()) {
      return value * std::pow(10.0, exponent);
    }
  }
  return std::nullopt;
}

std::optional<PodUsage> parse_top_pods(std::string_view text) {
  PodUsage usage;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = std::min(text.find('\n', begin), text.size());
    std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    std::vector<std::string_view> fields;
    size_t at = 0;
    while (at < line.size()) {
      while (at < line.size() && std::isspace(static_cast<unsigned char>(line[at]))) ++at;
      size_t start = at;
      while (at < line.size() && !std::isspace(static_cast<unsigned char>(line[at]))) ++at;
      if (at > start) fields.push_back(line.substr(start, at - start));
    }
    if (fields.empty()) continue;
    if (fields.size() < 3) return std::nullopt;
    // The last two fields: `--containers` puts the container's name before them.
    auto cpu = parse_quantity(fields[fields.size() - 2]);
    auto memory = parse_quantity(fields[fields.size() - 1]);
    if (!cpu || !memory) return std::nullopt;
    usage.cpu_cores += *cpu;
    usage.memory_bytes += *memory;
    ++usage.pods;
    const std::string_view pod = fields.front();
    auto one = std::find_if(usage.by_pod.begin(), usage.by_pod.end(),
                            [&](const PodUsage::OnePod& p) { return p.name == pod; });
    if (one == usage.by_pod.end()) {
      usage.by_pod.push_back({std::string(pod), 0, 0});
      one = usage.by_pod.end() - 1;
    }
    one->cpu_cores += *cpu;
    one->memory_bytes += *memory;
  }
  if (usage.pods == 0) return std::nullopt;
  return usage;
}

std::vector<Reading> PodTally::readings(const std::vector<K8sPod>& pods, int64_t wall_now_ns) {
  int ready = 0;
  int terminating = 0;
  int64_t terminating_longest_ns = 0;
  std::map<std::string_view, int> pods_by_node;
  for (const K8sPod& pod : pods) {
    if (pod.ready) ++ready;
    if (pod.deletion_requested_unix_ns) {
      ++terminating;
      terminating_longest_ns =
          std::max(terminating_longest_ns, wall_now_ns - *pod.deletion_requested_unix_ns);
    }
    if (!pod.node_name.empty()) ++pods_by_node[pod.node_name];
    for (const K8sContainer& c : pod.containers) {
      int64_t& highest = restarts_by_container_[pod.uid + "/" + c.name];
      highest = std::max(highest, c.restart_count);
      for (const std::string& termination : c.oom_killed_terminations) {
        oom_kills_seen_.insert(pod.uid + "/" + c.name + "/" + termination);
      }
    }
  }
  int64_t restarts = 0;
  for (const auto& [container, count] : restarts_by_container_) restarts += count;
  int pods_per_node_max = 0;
  for (const auto& [node, count] : pods_by_node)
    pods_per_node_max = std::max(pods_per_node_max, count);
  const double total = static_cast<double>(pods.size());
  return {
      {"pods", MetricKind::kGauge, total},
      {"ready_pods", MetricKind::kGauge, static_cast<double>(ready)},
      {"unready_pods", MetricKind::kGauge, total - ready},
      {"terminating_pods", MetricKind::kGauge, static_cast<double>(terminating)},
      {"terminating_longest_seconds", MetricKind::kGauge, seconds_of(terminating_longest_ns)},
      {"nodes", MetricKind::kGauge, static_cast<double>(pods_by_node.size())},
      {"pods_per_node_max", MetricKind::kGauge, static_cast<double>(pods_per_node_max)},
      {"restarts", MetricKind::kCounter, static_cast<double>(restarts)},
      {"oom_kills", MetricKind::kCounter, static_cast<double>(oom_kills_seen_.size())},
  };
}

}  // namespace proofload::observe
