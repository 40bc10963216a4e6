// The built-in server's stateful lifecycle (create -> assign -> resolve, get, search): writes are
// accepted at once into a bounded queue and committed later by a pool of committer threads, each
// commit costing wall time, so a backlog builds under load and a fast client races its own writes.
// Thread-safe: every public call takes one mutex for a short time (a search takes it in slices)
// and never waits for a commit, except reset() (briefly) and wait_until_drained().
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace proofload::serve {

struct ItemStoreOptions {
  int committers = 2;                   // committer threads
  int64_t commit_cost_ns = 1'000'000;   // wall time (sleeping, no CPU) each commit; <= 1 day
  int64_t queue_capacity = 10'000;      // writes waiting to commit; beyond: dropped
  int64_t initial_items = 1'000;        // the dataset at start and after reset(), all committed
  int64_t max_items = 1'000'000;        // the store refuses creates beyond (bounded memory)
  int64_t search_cost_per_item_ns = 0;  // busy CPU a search spends per committed item scanned
  int64_t max_search_results = 20;      // matches a search returns (all are counted)
  uint64_t seed = 1;                    // picks the initial items' titles

  // Throws UsageError with a one-line message naming the option at fault.
  void validate() const;
};

// What a call did. The server maps these to HTTP: kNotFound 404, kInvalidAction 409
// `INVALID ACTION`, kFull 503.
enum class LifecycleStatus : uint8_t {
  kOk,             // read done, or write accepted (it commits later)
  kNotFound,       // no such item (never created, or created before the last reset())
  kInvalidAction,  // not allowed in the item's state (e.g. resolve before its assign committed)
  kFull,           // the write queue (or the store) is full: the write was dropped
};

// "OK", "NOT FOUND", "INVALID ACTION", "FULL": the reason phrase the server sends.
const char* status_reason(LifecycleStatus status);

// The committed state of an item: kPending until its create commits.
enum class ItemState : uint8_t { kPending, kOpen, kAssigned, kResolved };
const char* state_name(ItemState state);  // "pending", "open", "assigned", "resolved"

// An item as a reader sees it: committed state, plus how many of its writes are still queued.
struct ItemView {
  uint64_t id = 0;
  std::string title;
  ItemState state = ItemState::kPending;
  std::string assignee;        // the last committed assign; empty if none
  int64_t pending_writes = 0;  // accepted writes of this item not committed yet
};

struct CreateResult {
  LifecycleStatus status = LifecycleStatus::kOk;  // kOk or kFull
  uint64_t id = 0;                                // the new item's id; 0 when dropped
};

struct SearchResult {
  std::vector<ItemView> matches;  // the first max_search_results matches, by id
  int64_t total_matches = 0;      // every committed item whose title matched
  int64_t scanned_items = 0;      // committed items examined (the work the search did)
};

// One consistent view of the write counters. Counters only grow (reset() does not clear them),
// so /metrics can export them as Prometheus counters. Invariant at every instant:
//   accepted == committed + discarded + backlog + in_progress.
struct LifecycleCounters {
  int64_t accepted = 0;     // writes accepted (create, assign and resolve that returned kOk)
  int64_t committed = 0;    // accepted writes applied by a committer
  int64_t dropped = 0;      // writes refused with kFull (never accepted)
  int64_t discarded = 0;    // accepted writes thrown away by reset() before they committed
  int64_t backlog = 0;      // accepted writes waiting in the queue
  int64_t in_progress = 0;  // accepted writes a committer is committing right now
};

class ItemStore {
 public:
  // Validates the options (UsageError), builds the initial dataset and starts the committers.
  explicit ItemStore(ItemStoreOptions options);
  // Stops the committers promptly: a commit in progress is interrupted, not waited for.
  ~ItemStore();
  ItemStore(const ItemStore&) = delete;
  ItemStore& operator=(const ItemStore&) = delete;

  // Writes: accepted at once (kOk) or dropped (kFull); applied later by a committer.
  CreateResult create(std::string_view title);
  // kNotFound, kInvalidAction (a resolve was already accepted), kFull or kOk. An assign may be
  // accepted before the item's create has committed.
  LifecycleStatus assign(uint64_t id, std::string_view who);
  // kNotFound; kInvalidAction unless an assign of the item has committed and no resolve was
  // accepted before; kFull or kOk.
  LifecycleStatus resolve(uint64_t id);

  // get() fills `out` (reusing its strings) with the item's committed state (kPending until its
  // create commits) and its count of queued writes, and returns kOk; or returns kNotFound.
  LifecycleStatus get(uint64_t id, ItemView* out) const;
  // Committed items whose title contains `query` (ASCII case-insensitive; empty matches all).
  // Scans every committed item, so its cost grows with the dataset.
  SearchResult search(std::string_view query) const;

  int64_t backlog() const;
  int64_t accepted() const;
  int64_t committed() const;
  int64_t dropped() const;
  LifecycleCounters counters() const;
  int64_t item_count() const;  // items created (committed or not) since the last reset

  // Restores the initial dataset, discards the queued writes (counted in `discarded`),
  // interrupts commits in progress (also discarded) and returns once none is left. Ids start
  // again after the initial items.
  void reset();

  // For tests and drain gates: waits until nothing is queued or being committed. Returns false
  // when `timeout_ns` (capped at a day) passed first.
  bool wait_until_drained(int64_t timeout_ns) const;

 private:
  enum class WriteKind : uint8_t { kCreate, kAssign, kResolve };
  struct PendingWrite {
    WriteKind kind = WriteKind::kCreate;
    uint64_t id = 0;
    uint64_t generation = 0;  // the reset() generation it was accepted in
    std::string assignee;
  };
  struct Item {
    std::string title;
    std::string assignee;  // last committed assign
    int64_t pending_writes = 0;
    bool create_committed = false;
    bool assign_committed = false;
    bool resolve_accepted = false;
    bool resolve_committed = false;
  };

  // All take mutex_ held.
  // Precondition: the queue has room and the item exists.
  void enqueue_locked(WriteKind kind, uint64_t id, std::string_view assignee);
  Item* find_locked(uint64_t id);
  const Item* find_locked(uint64_t id) const;
  void apply_locked(PendingWrite& write);
  bool drained_locked() const { return queue_size_ == 0 && in_progress_ == 0; }
  bool queue_full_locked() const { return queue_size_ == queue_.size(); }
  static ItemState state_of(const Item& item);
  static void fill_view(uint64_t id, const Item& item, ItemView* out);

  std::deque<Item> make_initial_items() const;
  void committer_loop();

  const ItemStoreOptions options_;

  mutable std::mutex mutex_;
  std::condition_variable work_cv_;             // idle committers: a write was queued
  std::condition_variable interrupt_cv_;        // committing: stop or reset happened
  mutable std::condition_variable drained_cv_;  // queue empty and nothing in progress

  std::deque<Item> items_;  // item with id i at index i - 1; ids are never reused in a generation
  uint64_t generation_ = 0;
  bool stopping_ = false;

  std::vector<PendingWrite> queue_;  // ring buffer of queue_capacity slots
  size_t queue_head_ = 0;
  size_t queue_size_ = 0;
  int64_t in_progress_ = 0;
  int64_t stale_in_progress_ = 0;  // commits in progress accepted before the last reset()

  int64_t accepted_ = 0;
  int64_t committed_ = 0;
  int64_t dropped_ = 0;
  int64_t discarded_ = 0;

  std::vector<std::thread> committers_;
};

}  // namespace proofload::serve
