// ItemStore: the accept queue, the committer pool and the sliced search. See item_store.h for the
// thread-safety contract; every member below that touches state holds mutex_.
#include "serve/lifecycle/item_store.h"

#include <time.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <string>

#include "common/text.h"
#include "common/usage_error.h"
#include "serve/behaviour/cpu_burner.h"

namespace proofload::serve {
namespace {

// A search gives the mutex back this often, so writers never wait long behind it.
constexpr size_t kSearchSliceItems = 1024;
constexpr int kMaxCommitters = 256;
constexpr int64_t kMaxQueueCapacity = 100'000'000;
// Bounds the deadlines handed to condition variables, so now() + wait never overflows.
constexpr int64_t kMaxWaitNs = int64_t{86'400} * 1'000'000'000;

// Words of the generated titles: three per title gives 32^3 distinct titles, and a single word
// matches about one title in eleven, so searches return something for simple queries.
constexpr std::array<std::string_view, 32> kTitleWords = {
    "amber",  "atlas",  "beacon", "birch",  "cedar",  "cobalt",  "delta",   "ember",
    "falcon", "fjord",  "garnet", "harbor", "indigo", "juniper", "kestrel", "lumen",
    "maple",  "meadow", "nimbus", "onyx",   "orchid", "pioneer", "quartz",  "raven",
    "sierra", "summit", "tundra", "umber",  "vertex", "willow",  "yonder",  "zephyr"};

uint64_t splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e37'79b9'7f4a'7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58'476d'1ce4'e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d0'49bb'1331'11ebULL;
  return z ^ (z >> 31);
}

bool contains_ignoring_case(std::string_view haystack, std::string_view needle) {
  if (needle.empty()) return true;
  if (needle.size() > haystack.size()) return false;
  const size_t last = haystack.size() - needle.size();
  for (size_t start = 0; start <= last; ++start) {
    size_t i = 0;
    while (i < needle.size() && ascii_lower(haystack[start + i]) == ascii_lower(needle[i])) ++i;
    if (i == needle.size()) return true;
  }
  return false;
}

}  // namespace

void ItemStoreOptions::validate() const {
  if (committers < 1 || committers > kMaxCommitters) {
    throw UsageError("lifecycle committers must be between 1 and " +
                     std::to_string(kMaxCommitters) + ", got " + std::to_string(committers));
  }
  if (commit_cost_ns < 0 || commit_cost_ns > kMaxWaitNs) {
    throw UsageError("lifecycle commit cost must be between 0 and one day");
  }
  if (queue_capacity < 1 || queue_capacity > kMaxQueueCapacity) {
    throw UsageError("lifecycle queue capacity must be between 1 and " +
                     std::to_string(kMaxQueueCapacity) + ", got " + std::to_string(queue_capacity));
  }
  if (initial_items < 0) {
    throw UsageError("lifecycle initial items must not be negative");
  }
  if (max_items < initial_items) {
    throw UsageError("lifecycle max items (" + std::to_string(max_items) +
                     ") must be at least the initial items (" + std::to_string(initial_items) +
                     ")");
  }
  if (search_cost_per_item_ns < 0) {
    throw UsageError("lifecycle search cost per item must not be negative");
  }
  if (max_search_results < 0) {
    throw UsageError("lifecycle max search results must not be negative");
  }
}

const char* status_reason(LifecycleStatus status) {
  switch (status) {
    case LifecycleStatus::kOk:
      return "OK";
    case LifecycleStatus::kNotFound:
      return "NOT FOUND";
    case LifecycleStatus::kInvalidAction:
      return "INVALID ACTION";
    case LifecycleStatus::kFull:
      return "FULL";
  }
  return "UNKNOWN";
}

const char* state_name(ItemState state) {
  switch (state) {
    case ItemState::kPending:
      return "pending";
    case ItemState::kOpen:
      return "open";
    case ItemState::kAssigned:
      return "assigned";
    case ItemState::kResolved:
      return "resolved";
  }
  return "unknown";
}

ItemStore::ItemStore(ItemStoreOptions options) : options_((options.validate(), options)) {
  items_ = make_initial_items();
  queue_.resize(static_cast<size_t>(options_.queue_capacity));
  committers_.reserve(static_cast<size_t>(options_.committers));
  for (int i = 0; i < options_.committers; ++i) {
    committers_.emplace_back([this] { committer_loop(); });
  }
}

ItemStore::~ItemStore() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  interrupt_cv_.notify_all();
  drained_cv_.notify_all();
  for (std::thread& committer : committers_) committer.join();
}

std::deque<ItemStore::Item> ItemStore::make_initial_items() const {
  std::deque<Item> items;
  uint64_t rng = options_.seed;
  for (int64_t i = 0; i < options_.initial_items; ++i) {
    Item item;
    for (int word = 0; word < 3; ++word) {
      if (word > 0) item.title += ' ';
      item.title += kTitleWords[splitmix64(&rng) % kTitleWords.size()];
    }
    item.create_committed = true;
    items.push_back(std::move(item));
  }
  return items;
}

ItemStore::Item* ItemStore::find_locked(uint64_t id) {
  if (id == 0 || id > items_.size()) return nullptr;
  return &items_[id - 1];
}

const ItemStore::Item* ItemStore::find_locked(uint64_t id) const {
  if (id == 0 || id > items_.size()) return nullptr;
  return &items_[id - 1];
}

void ItemStore::enqueue_locked(WriteKind kind, uint64_t id, std::string_view assignee) {
  PendingWrite& slot = queue_[(queue_head_ + queue_size_) % queue_.size()];
  slot.kind = kind;
  slot.id = id;
  slot.generation = generation_;
  slot.assignee.assign(assignee);
  ++queue_size_;
  ++accepted_;
  ++items_[id - 1].pending_writes;
  work_cv_.notify_one();
}

CreateResult ItemStore::create(std::string_view title) {
  std::lock_guard lock(mutex_);
  if (queue_full_locked() || static_cast<int64_t>(items_.size()) >= options_.max_items) {
    ++dropped_;
    return {LifecycleStatus::kFull, 0};
  }
  Item& item = items_.emplace_back();
  item.title.assign(title);
  const uint64_t id = items_.size();
  enqueue_locked(WriteKind::kCreate, id, {});
  return {LifecycleStatus::kOk, id};
}

LifecycleStatus ItemStore::assign(uint64_t id, std::string_view who) {
  std::lock_guard lock(mutex_);
  const Item* item = find_locked(id);
  if (item == nullptr) return LifecycleStatus::kNotFound;
  if (item->resolve_accepted) return LifecycleStatus::kInvalidAction;
  if (queue_full_locked()) {
    ++dropped_;
    return LifecycleStatus::kFull;
  }
  enqueue_locked(WriteKind::kAssign, id, who);
  return LifecycleStatus::kOk;
}

LifecycleStatus ItemStore::resolve(uint64_t id) {
  std::lock_guard lock(mutex_);
  Item* item = find_locked(id);
  if (item == nullptr) return LifecycleStatus::kNotFound;
  // The race the server reproduces: an assign still in the queue does not count.
  if (!item->assign_committed || item->resolve_accepted) return LifecycleStatus::kInvalidAction;
  if (queue_full_locked()) {
    ++dropped_;
    return LifecycleStatus::kFull;
  }
  item->resolve_accepted = true;
  enqueue_locked(WriteKind::kResolve, id, {});
  return LifecycleStatus::kOk;
}

ItemState ItemStore::state_of(const Item& item) {
  if (item.resolve_committed) return ItemState::kResolved;
  if (item.assign_committed) return ItemState::kAssigned;
  if (item.create_committed) return ItemState::kOpen;
  return ItemState::kPending;
}

void ItemStore::fill_view(uint64_t id, const Item& item, ItemView* out) {
  out->id = id;
  out->title.assign(item.title);
  out->state = state_of(item);
  out->assignee.assign(item.assignee);
  out->pending_writes = item.pending_writes;
}

LifecycleStatus ItemStore::get(uint64_t id, ItemView* out) const {
  std::lock_guard lock(mutex_);
  const Item* item = find_locked(id);
  if (item == nullptr) return LifecycleStatus::kNotFound;
  fill_view(id, *item, out);
  return LifecycleStatus::kOk;
}

SearchResult ItemStore::search(std::string_view query) const {
  SearchResult result;
  const size_t max_matches = static_cast<size_t>(options_.max_search_results);
  result.matches.reserve(max_matches);
  size_t next_index = 0;
  size_t scan_end = 0;  // items created after the search began are not its business
  uint64_t generation = 0;
  bool started = false;
  bool done = false;
  while (!done) {
    int64_t committed_in_slice = 0;
    {
      std::lock_guard lock(mutex_);
      if (!started || generation != generation_) {
        // First slice, or a reset() replaced the dataset under us: scan the new one afresh.
        started = true;
        generation = generation_;
        next_index = 0;
        scan_end = items_.size();
        result.matches.clear();
        result.total_matches = 0;
        result.scanned_items = 0;
      }
      const size_t end = std::min(scan_end, next_index + kSearchSliceItems);
      for (; next_index < end; ++next_index) {
        const Item& item = items_[next_index];
        if (!item.create_committed) continue;
        ++committed_in_slice;
        if (!contains_ignoring_case(item.title, query)) continue;
        ++result.total_matches;
        if (result.matches.size() < max_matches) {
          fill_view(next_index + 1, item, &result.matches.emplace_back());
        }
      }
      result.scanned_items += committed_in_slice;
      done = next_index >= scan_end;
    }
    // Outside the lock: the extra cost must not hold writers up.
    // Real CPU work (not sleep), so a CPU limit on the server throttles searches as it would
    // a real one.
    burn_cpu(committed_in_slice * options_.search_cost_per_item_ns);
  }
  return result;
}

int64_t ItemStore::backlog() const {
  std::lock_guard lock(mutex_);
  return static_cast<int64_t>(queue_size_);
}

int64_t ItemStore::accepted() const {
  std::lock_guard lock(mutex_);
  return accepted_;
}

int64_t ItemStore::committed() const {
  std::lock_guard lock(mutex_);
  return committed_;
}

int64_t ItemStore::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

LifecycleCounters ItemStore::counters() const {
  std::lock_guard lock(mutex_);
  LifecycleCounters c;
  c.accepted = accepted_;
  c.committed = committed_;
  c.dropped = dropped_;
  c.discarded = discarded_;
  c.backlog = static_cast<int64_t>(queue_size_);
  c.in_progress = in_progress_;
  return c;
}

int64_t ItemStore::item_count() const {
  std::lock_guard lock(mutex_);
  return static_cast<int64_t>(items_.size());
}

void ItemStore::reset() {
  // Built outside the lock: generating a large dataset must not hold up the event loops.
  std::deque<Item> fresh = make_initial_items();
  std::unique_lock lock(mutex_);
  items_.swap(fresh);
  ++generation_;
  discarded_ += static_cast<int64_t>(queue_size_);
  for (size_t i = 0; i < queue_size_; ++i) {
    queue_[(queue_head_ + i) % queue_.size()].assignee.clear();
  }
  queue_head_ = 0;
  queue_size_ = 0;
  // Every write being committed now belongs to an older generation; wake those committers so
  // they discard at once, and wait for them, so no old write lands after reset() returns.
  stale_in_progress_ = in_progress_;
  interrupt_cv_.notify_all();
  drained_cv_.wait(lock, [this] { return stopping_ || stale_in_progress_ == 0; });
  lock.unlock();
  drained_cv_.notify_all();
  // `fresh` now holds the old items and is freed here, outside the lock.
}

bool ItemStore::wait_until_drained(int64_t timeout_ns) const {
  std::unique_lock lock(mutex_);
  const int64_t wait_ns = std::clamp<int64_t>(timeout_ns, 0, kMaxWaitNs);
  return drained_cv_.wait_for(lock, std::chrono::nanoseconds(wait_ns),
                              [this] { return drained_locked(); });
}

void ItemStore::apply_locked(PendingWrite& write) {
  Item& item = items_[write.id - 1];
  --item.pending_writes;
  switch (write.kind) {
    case WriteKind::kCreate:
      item.create_committed = true;
      break;
    case WriteKind::kAssign:
      item.assignee.swap(write.assignee);
      item.assign_committed = true;
      break;
    case WriteKind::kResolve:
      item.resolve_committed = true;
      break;
  }
}

void ItemStore::committer_loop() {
  std::unique_lock lock(mutex_);
  while (true) {
    work_cv_.wait(lock, [this] { return stopping_ || queue_size_ > 0; });
    if (stopping_) return;
    PendingWrite write = std::move(queue_[queue_head_]);
    queue_head_ = (queue_head_ + 1) % queue_.size();
    --queue_size_;
    ++in_progress_;
    if (options_.commit_cost_ns > 0) {
      // The commit's cost is a timed wait, not a sleep, so stop and reset interrupt it.
      const auto deadline =
          std::chrono::steady_clock::now() + std::chrono::nanoseconds(options_.commit_cost_ns);
      interrupt_cv_.wait_until(
          lock, deadline, [this, &write] { return stopping_ || write.generation != generation_; });
    }
    --in_progress_;
    if (stopping_) return;
    if (write.generation == generation_) {
      apply_locked(write);
      ++committed_;
      if (drained_locked()) drained_cv_.notify_all();
    } else {
      ++discarded_;
      if (--stale_in_progress_ == 0 || drained_locked()) drained_cv_.notify_all();
    }
  }
}

}  // namespace proofload::serve
