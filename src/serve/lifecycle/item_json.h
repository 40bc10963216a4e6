// JSON bodies of the lifecycle routes (an item, a search answer, the backlog), rendered from the
// store's views. Pure functions of their arguments; safe from any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "serve/lifecycle/item_store.h"

namespace proofload::serve {

// {"id":7,"title":"...","state":"assigned","assignee":"ana","pending_writes":0}; assignee is
// null when no assign has committed.
nlohmann::json item_to_json(const ItemView& item);

// {"query":"...","total":N,"scanned":N,"items":[item, ...]}: total counts every match, items
// holds at most the store's max_search_results of them.
nlohmann::json search_to_json(std::string_view query, const SearchResult& result);

// {"backlog":N,"in_progress":N,"accepted":N,"committed":N,"dropped":N,"discarded":N}: the body
// of GET /admin/backlog, which drain gates poll.
nlohmann::json counters_to_json(const LifecycleCounters& counters);

// The same, serialised compactly, ready to be a response body.
std::string item_body(const ItemView& item);
std::string search_body(std::string_view query, const SearchResult& result);
std::string counters_body(const LifecycleCounters& counters);

}  // namespace proofload::serve
