// JSON rendering of the lifecycle's views. Allocates freely: these bodies are small and built
// once per request on routes that already cost far more (search scans the dataset).
#include "serve/lifecycle/item_json.h"

namespace proofload::serve {

nlohmann::json item_to_json(const ItemView& item) {
  nlohmann::json j;
  j["id"] = item.id;
  j["title"] = item.title;
  j["state"] = state_name(item.state);
  j["assignee"] = item.assignee.empty() ? nlohmann::json(nullptr) : nlohmann::json(item.assignee);
  j["pending_writes"] = item.pending_writes;
  return j;
}

nlohmann::json search_to_json(std::string_view query, const SearchResult& result) {
  nlohmann::json items = nlohmann::json::array();
  for (const ItemView& match : result.matches) items.push_back(item_to_json(match));
  nlohmann::json j;
  j["query"] = std::string(query);
  j["total"] = result.total_matches;
  j["scanned"] = result.scanned_items;
  j["items"] = std::move(items);
  return j;
}

nlohmann::json counters_to_json(const LifecycleCounters& counters) {
  nlohmann::json j;
  j["backlog"] = counters.backlog;
  j["in_progress"] = counters.in_progress;
  j["accepted"] = counters.accepted;
  j["committed"] = counters.committed;
  j["dropped"] = counters.dropped;
  j["discarded"] = counters.discarded;
  return j;
}

// Titles and queries come from clients and may hold invalid UTF-8: replace, never throw.
constexpr auto kUtf8Policy = nlohmann::json::error_handler_t::replace;

std::string item_body(const ItemView& item) {
  return item_to_json(item).dump(-1, ' ', false, kUtf8Policy);
}

std::string search_body(std::string_view query, const SearchResult& result) {
  return search_to_json(query, result).dump(-1, ' ', false, kUtf8Policy);
}

std::string counters_body(const LifecycleCounters& counters) {
  return counters_to_json(counters).dump();
}

}  // namespace proofload::serve
