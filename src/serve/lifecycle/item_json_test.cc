// The lifecycle's JSON bodies: the fields the server's clients read, and no throw on bad UTF-8.
#include "serve/lifecycle/item_json.h"

#include <gtest/gtest.h>

namespace proofload::serve {
namespace {

ItemView sample_item() {
  ItemView item;
  item.id = 7;
  item.title = "amber harbor";
  item.state = ItemState::kAssigned;
  item.assignee = "ana";
  item.pending_writes = 1;
  return item;
}

TEST(ItemJsonTest, ItemCarriesIdTitleStateAssigneeAndPendingWrites) {
  nlohmann::json j = nlohmann::json::parse(item_body(sample_item()));
  EXPECT_EQ(j["id"], 7);
  EXPECT_EQ(j["title"], "amber harbor");
  EXPECT_EQ(j["state"], "assigned");
  EXPECT_EQ(j["assignee"], "ana");
  EXPECT_EQ(j["pending_writes"], 1);
}

TEST(ItemJsonTest, AssigneeIsNullUntilAnAssignCommits) {
  ItemView item = sample_item();
  item.assignee.clear();
  item.state = ItemState::kPending;
  nlohmann::json j = item_to_json(item);
  EXPECT_TRUE(j["assignee"].is_null());
  EXPECT_EQ(j["state"], "pending");
}

TEST(ItemJsonTest, SearchCarriesTotalScannedAndTheReturnedItems) {
  SearchResult result;
  result.matches.push_back(sample_item());
  result.total_matches = 42;
  result.scanned_items = 1000;
  nlohmann::json j = nlohmann::json::parse(search_body("harbor", result));
  EXPECT_EQ(j["query"], "harbor");
  EXPECT_EQ(j["total"], 42);
  EXPECT_EQ(j["scanned"], 1000);
  ASSERT_EQ(j["items"].size(), 1u);
  EXPECT_EQ(j["items"][0]["id"], 7);
  EXPECT_TRUE(search_to_json("", SearchResult{})["items"].is_array());
}

TEST(ItemJsonTest, CountersBodyHasEveryCounter) {
  LifecycleCounters c{10, 6, 2, 1, 2, 1};
  nlohmann::json j = nlohmann::json::parse(counters_body(c));
  EXPECT_EQ(j["accepted"], 10);
  EXPECT_EQ(j["committed"], 6);
  EXPECT_EQ(j["dropped"], 2);
  EXPECT_EQ(j["discarded"], 1);
  EXPECT_EQ(j["backlog"], 2);
  EXPECT_EQ(j["in_progress"], 1);
}

TEST(ItemJsonTest, InvalidUtf8FromAClientIsReplacedNotThrown) {
  ItemView item = sample_item();
  item.title = "bad \xff\xfe title";
  std::string body;
  EXPECT_NO_THROW(body = item_body(item));
  nlohmann::json parsed;
  EXPECT_NO_THROW(parsed = nlohmann::json::parse(body));
  std::string search;
  EXPECT_NO_THROW(search = search_body("\xc3", SearchResult{}));
  EXPECT_NO_THROW(parsed = nlohmann::json::parse(search));
}

}  // namespace
}  // namespace proofload::serve
