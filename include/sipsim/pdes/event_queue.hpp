#pragma once
// The pending-event set of one rank: EventQueue = CalendarQueue<4>.
//
// PHOLD spent half its time sifting 64-byte events through one big 4-ary heap
// (docs/performance.md). The calendar queue (Brown, CACM 1988) keeps that heap
// small: time is cut into buckets of 2^k ps, only the *current* bucket is a
// heap, the next buckets of a ring take unsorted appends, and events beyond the
// ring wait in an overflow list. k and the ring size follow the pending events'
// density (rebuilt when the set doubles or the statistics drift). The order is
// still exactly event_before's (time, dst, src, seq): buckets partition by time
// and the current bucket is a heap on the full key, so the structure is
// invisible to results. bench/event_queue_bench.cpp compares it with the
// d-ary heaps it replaces.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "sipsim/pdes/event.hpp"

namespace sipsim::pdes {

// Storage for events that resize() does not zero: the queue's vectors are
// written right after they grow (a run's 2M events are scattered into place),
// and zeroing 128 MB first cost a pass over memory per lock-step wave.
template <class T>
struct UninitAllocator : std::allocator<T> {
  UninitAllocator() = default;
  template <class U>
  UninitAllocator(const UninitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialised: left as it is
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    std::construct_at(p, std::forward<Args>(args)...);
  }
};
using EventVector = std::vector<Event, UninitAllocator<Event>>;

// A d-ary heap of events stored by value: no per-event allocation, 64 bytes per
// pending event plus at most 25% slack. The calendar queue's current bucket.
template <std::size_t Arity>
class DaryHeap {
  static_assert(Arity >= 2);

 public:
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }
  void reserve(std::size_t n) { heap_.reserve(n); }
  std::size_t capacity_bytes() const { return heap_.capacity() * sizeof(Event); }

  void push(const Event& e) {
    // Grow by 1.25x rather than the vector's 2x: at most 80 bytes of storage
    // per pending event, still amortised O(1) per push.
    if (heap_.size() == heap_.capacity()) heap_.reserve(heap_.size() + heap_.size() / 4 + 64);
    heap_.push_back(e);
    sift_up(heap_.size() - 1, e);
  }

  void pop() {
    const Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0, last);
  }

  // pop() followed by push(e) with one sift instead of two: the common case of
  // a handler that schedules exactly one follow-up event.
  void replace_top(const Event& e) { sift_down(0, e); }

  // Bulk loading: appends without ordering, then reorder() restores the heap
  // (Floyd's O(n) construction) before the next top/pop/push.
  void append_unordered(const Event& e) { heap_.push_back(e); }
  void reorder() {
    const std::size_t n = heap_.size();
    if (n < 2) return;
    for (std::size_t i = (n - 2) / Arity + 1; i-- > 0;) sift_down(i, heap_[i]);
  }

  // Gives the storage back when it is empty and holds room for more than n.
  void release_if_larger(std::size_t n) {
    if (heap_.empty() && heap_.capacity() > n) std::vector<Event>().swap(heap_);
  }

  // Exchanges the heap's storage with `other`, whose events must form a heap
  // (an empty vector does): hands all events over without copying them.
  void swap_storage(std::vector<Event>& other) { heap_.swap(other); }

  // Passes f every event with time < `before` (and perhaps a few later ones):
  // a depth-first walk that stops at subtrees whose root is not earlier.
  template <class F>
  void for_each_before(Time before, F&& f) const {
    if (heap_.empty()) return;
    std::array<std::size_t, 64> stack;
    std::size_t depth = 0;
    stack[depth++] = 0;
    while (depth > 0) {
      const std::size_t i = stack[--depth];
      if (heap_[i].time >= before) continue;
      f(heap_[i]);
      const std::size_t first = i * Arity + 1;
      for (std::size_t c = first; c < first + Arity && c < heap_.size(); ++c) {
        if (depth < stack.size()) {
          stack[depth++] = c;
        } else {
          f(heap_[c]);  // the stack is full: c's subtree is visited by a plain scan
          for (std::size_t k = c; k < heap_.size(); ++k) f(heap_[k]);
          return;
        }
      }
    }
  }

  // The top's children: after a pop, the new top is one of them.
  std::span<const Event> top_children() const {
    const std::size_t n = heap_.size();
    return n < 2 ? std::span<const Event>() : std::span(heap_).subspan(1, std::min(n - 1, Arity));
  }

  // Moves every event to the end of `out`, leaving this heap empty and its
  // storage released (a rebuild must not hold the events twice).
  void drain_into(EventVector& out) {
    out.insert(out.end(), heap_.begin(), heap_.end());
    std::vector<Event>().swap(heap_);
  }

 private:
  // Moves the hole at `i` up until `e` fits, then stores `e` there.
  void sift_up(std::size_t i, const Event& e) {
    while (i > 0) {
      const std::size_t parent = (i - 1) / Arity;
      if (!event_before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }

  void sift_down(std::size_t i, const Event e) {
    const std::size_t n = heap_.size();
    for (;;) {
      const std::size_t first = i * Arity + 1;
      if (first >= n) break;
      const std::size_t last = first + Arity < n ? first + Arity : n;
      std::size_t best = first;
      for (std::size_t c = first + 1; c < last; ++c) {
        if (event_before(heap_[c], heap_[best])) best = c;
      }
      if (!event_before(heap_[best], e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  // A plain vector, not an EventVector: with the custom allocator its push was
  // no longer inlined, and ring-512 ran 18% slower.
  std::vector<Event> heap_;
};

// Writes the n events that each(f) passes to f into `out`, in event_before's
// order. A run of ties (one time, as RAMP's lock-step waves make by the
// million) is ordered by destination with a counting sort straight into
// `out` (passes over the source: one to find the range, one to count, one to
// scatter), then each destination's few events by the full key: O(n) moves
// instead of std::sort's O(n log n) moves of 64-byte events, a quarter of a
// RAMP run. (An in-place cycle-following variant is memory-latency bound:
// every swap waits for the previous one's miss.) Anything else, or
// destinations too sparse to count, is copied and std::sort-ed.
template <class ForEach>
void sort_into(ForEach&& each, std::size_t n, EventVector& out) {
  const auto before = [](const Event& a, const Event& b) { return event_before(a, b); };
  out.clear();
  if (n == 0) return;
  bool first = true, ties = true;
  Time time = 0;
  LpId lo = 0, hi = 0;
  each([&](const Event& e) {
    if (first) {
      time = e.time;
      lo = hi = e.dst;
      first = false;
    }
    ties &= e.time == time;
    lo = std::min(lo, e.dst);
    hi = std::max(hi, e.dst);
  });
  const std::size_t range = std::size_t{hi} - lo + 1;
  if (!ties || range > 4 * n) {
    out.reserve(n);
    each([&](const Event& e) { out.push_back(e); });
    std::sort(out.begin(), out.end(), before);
    return;
  }
  // next[k]: where destination lo + k's next event goes.
  std::vector<std::uint32_t> next(range + 1, 0);
  each([&](const Event& e) { ++next[e.dst - lo + 1]; });
  for (std::size_t k = 1; k <= range; ++k) next[k] += next[k - 1];
  out.resize(n);
  each([&](const Event& e) { out[next[e.dst - lo]++] = e; });
  // next[k] is now where destination lo + k's events end.
  std::size_t begin = 0;
  for (std::size_t k = 0; k < range; ++k) {
    if (next[k] - begin > 1 &&
        !std::is_sorted(out.begin() + static_cast<std::ptrdiff_t>(begin),
                        out.begin() + static_cast<std::ptrdiff_t>(next[k]), before)) {
      std::sort(out.begin() + static_cast<std::ptrdiff_t>(begin),
                out.begin() + static_cast<std::ptrdiff_t>(next[k]), before);
    }
    begin = next[k];
  }
}

// Sorts v (sort_into); `scratch` is working storage, and on return holds v's
// former storage, emptied.
inline void sort_events(EventVector& v, EventVector& scratch) {
  sort_into([&v](auto&& f) { std::for_each(v.begin(), v.end(), f); }, v.size(), scratch);
  v.swap(scratch);
  scratch.clear();
}

// Invariants, with b(e) = e.time >> shift_ the bucket number of an event:
// the heap and the unread part of the sorted run hold exactly the events with
// b <= cur_; ring slot s holds events with cur_ < b < cur_ + ring size and
// b mod ring size = s; the overflow holds the rest, all with b > cur_ (and
// b >= overflow_min_). Whenever the queue is not empty, the heap or the run is
// not empty, and top() is the earlier of their fronts.
//
// Ties are the rule in lock-step fabrics (RAMP: a wave of 2M transfers at
// one picosecond, which no width separates), and a heap of millions misses
// the caches on every sift. So a current bucket of many events is a sorted
// run read front to back, whichever way its events come: a ring slot adopted
// with >= kRunMin events, the overflow's events once the cursor jumps to
// them (adopt_overflow_ties), or pushes straight into the current bucket,
// whose heap is merged into the run once it holds half as many
// (merge_into_run). Runs of one time are counting-sorted by destination
// (sort_into). The storage of a read run is kept as the spare, the next
// sort's target, so waves ping-pong between buffers instead of faulting in
// 128 MB each.
//
// A future bucket is a list of 4-event chunks from one shared pool, newest
// chunk first, rather than a vector: storage follows the events (about 100
// bytes per pending event) instead of each bucket's high-water mark, and the
// working set stays small enough for the caches at PHOLD 16K.
template <std::size_t Arity>
class CalendarQueue {
 public:
  CalendarQueue() : ring_(kMinRing) {}

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  const Event& top() const { return top_in_run() ? run_[run_pos_] : heap_.top(); }
  // A few events that may come right after top() (its children in the
  // current bucket's heap, or the run's next ones; the next one is among them
  // unless the handler pushes an earlier one), e.g. to prefetch what handling
  // them touches.
  std::span<const Event> next_candidates() const {
    if (run_pos_ >= run_.size()) return heap_.top_children();
    return std::span(run_).subspan(run_pos_ + 1,
                                   std::min<std::size_t>(run_.size() - run_pos_ - 1, Arity));
  }

  // All storage held: the heap, the run, the chunk pool (free chunks included), the
  // ring's slots and the overflow.
  std::size_t capacity_bytes() const {
    return heap_.capacity_bytes() +
           (run_.capacity() + spare_.capacity() + batch_.capacity()) * sizeof(Event) +
           overflow_.capacity() * sizeof(Event) + blocks_.size() * kBlockChunks * sizeof(Chunk) +
           next_.capacity() * sizeof(std::uint32_t) + ring_.capacity() * sizeof(Slot);
  }

  // Passes f every pending event with time < `before`, and perhaps some later
  // ones, in no particular order (the windowed engine's remote bounds).
  template <class F>
  void for_each_before(Time before, F&& f) const {
    for (std::size_t i = run_pos_; i < run_.size() && run_[i].time < before; ++i) f(run_[i]);
    heap_.for_each_before(before, f);
    for (std::uint64_t b = cur_ + 1; b - cur_ < ring_size() && ring_count_ > 0; ++b) {
      if ((b << shift_) >= before || (b << shift_) >> shift_ != b) break;
      for_each_in_slot(ring_[b & (ring_size() - 1)], f);
    }
    if (!overflow_.empty() && (overflow_min_ << shift_) < before) {
      for (const Event& e : overflow_) f(e);
    }
  }

  void push(const Event& e) {
    if (size_ == 0) cur_ = bucket_of(e.time);  // an empty queue restarts anywhere
    place(e);
    if (++size_ > rebuild_size_) rebuild();
  }

  // Pushes a batch (the events another rank sent this window). Those of the
  // current bucket, when many (RAMP: a lock-step wave's arrivals, tied with
  // the local ones), are sorted once and merged with the unread run instead
  // of sifting through the heap one by one; the rest are filed as push()
  // files them. One size check for the batch.
  void push_all(std::span<const Event> events) {
    if (events.empty()) return;
    if (size_ == 0) {
      cur_ = bucket_of(
          std::min_element(events.begin(), events.end(), [](const Event& a, const Event& b) {
            return a.time < b.time;
          })->time);
    }
    std::size_t current = 0;
    for (const Event& e : events) current += bucket_of(e.time) <= cur_ ? 1 : 0;
    const bool merge = current >= kRunMin;
    for (const Event& e : events) {
      if (!merge || bucket_of(e.time) > cur_) place(e);
    }
    if (merge) {
      merge_batch(events, current);
      // The ring, which the rebuild threshold sizes, holds none of them.
      rebuild_size_ += current;
    }
    size_ += events.size();
    if (size_ > rebuild_size_) rebuild();
  }

  void pop() {
    pop_top();
    --size_;
    ++pops_;
    refill();
  }

  // pop() then push(e), with one sift when e falls in the current bucket.
  void replace_top(const Event& e) {
    ++pops_;
    if (bucket_of(e.time) <= cur_) {
      if (top_in_run()) {
        ++run_pos_;
        heap_.push(e);
      } else {
        heap_.replace_top(e);
      }
      return;
    }
    pop_top();
    place(e);
    refill();
  }

 private:
  // Events per bucket the width aims at: a heap of ~8 is one or two levels,
  // and few empty buckets are skipped between them. 4, 8 and 16 measured
  // alike on PHOLD; 64 was slower.
  static constexpr std::uint64_t kTarget = 8;
  static constexpr std::size_t kChunk = 4;
  static constexpr std::size_t kBlockChunks = 256;  // 64 KiB per block of the pool
  static constexpr std::size_t kMinRing = 64;
  static constexpr std::size_t kMaxRing = std::size_t{1} << 22;
  static constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();
  static constexpr std::uint32_t kNil = std::numeric_limits<std::uint32_t>::max();
  // Buckets adopted with at least this many events are sorted into the run.
  static constexpr std::uint32_t kRunMin = 1024;
  // A current-bucket heap this large, and half as large as the unread run,
  // is merged into the run (merge_into_run).
  static constexpr std::size_t kHeapMax = std::size_t{1} << 15;

  struct Chunk {
    std::array<Event, kChunk> events;
  };
  // A future bucket: its newest chunk (holding size % kChunk events, or a full
  // one) and the event count.
  struct Slot {
    std::uint32_t head = kNil;
    std::uint32_t size = 0;
  };

  std::uint64_t bucket_of(Time t) const { return t >> shift_; }
  Chunk& chunk(std::uint32_t c) { return blocks_[c / kBlockChunks][c % kBlockChunks]; }
  const Chunk& chunk(std::uint32_t c) const { return blocks_[c / kBlockChunks][c % kBlockChunks]; }

  // After a pop: an empty current bucket moves the queue on to the next one.
  void refill() {
    if (current_empty() && size_ > 0) advance();
  }

  // Whether the earliest event is the run's front rather than the heap's top.
  bool top_in_run() const {
    return run_pos_ < run_.size() && (heap_.empty() || event_before(run_[run_pos_], heap_.top()));
  }
  bool current_empty() const { return heap_.empty() && run_pos_ >= run_.size(); }
  void pop_top() {
    if (top_in_run()) {
      ++run_pos_;
    } else {
      heap_.pop();
    }
  }
  std::uint64_t ring_size() const { return ring_.size(); }

  // Files an event in the heap, the ring or the overflow by its bucket.
  void place(const Event& e) {
    const std::uint64_t b = bucket_of(e.time);
    if (b <= cur_) {
      heap_.push(e);
      ++direct_;
      if (heap_.size() >= kHeapMax && 2 * heap_.size() >= run_.size() - run_pos_) merge_into_run();
    } else if (b - cur_ < ring_size()) {
      Slot& slot = ring_[b & (ring_size() - 1)];
      const std::uint32_t pos = slot.size % kChunk;
      if (pos == 0) {
        const std::uint32_t c = new_chunk();
        next_[c] = slot.head;
        slot.head = c;
      }
      chunk(slot.head).events[pos] = e;
      ++slot.size;
      ++ring_count_;
    } else {
      overflow_.push_back(e);
      overflow_min_ = std::min(overflow_min_, b);
    }
  }

  std::uint32_t new_chunk() {
    if (free_ != kNil) {
      const std::uint32_t c = free_;
      free_ = next_[c];
      return c;
    }
    // Blocks of fixed size: growing never copies the pool (a 1.25x copy of
    // ~150 MB briefly held both at RAMP's 2M pending events).
    if (chunk_count_ == blocks_.size() * kBlockChunks) {
      blocks_.push_back(std::make_unique_for_overwrite<Chunk[]>(kBlockChunks));
    }
    next_.push_back(kNil);
    return chunk_count_++;
  }

  // Passes a slot's events to f, leaving them there.
  template <class F>
  void for_each_in_slot(const Slot& slot, F&& f) const {
    std::uint32_t c = slot.head;
    std::size_t count = slot.size % kChunk == 0 ? kChunk : slot.size % kChunk;
    while (c != kNil) {
      for (std::size_t i = 0; i < count; ++i) f(chunk(c).events[i]);
      c = next_[c];
      count = kChunk;
    }
  }

  // Hands a slot's events to `take` and its chunks back to the pool.
  template <class F>
  void empty_slot(Slot& slot, F&& take) {
    std::uint32_t c = slot.head;
    std::size_t count = slot.size % kChunk == 0 ? kChunk : slot.size % kChunk;
    while (c != kNil) {
      for (std::size_t i = 0; i < count; ++i) take(chunk(c).events[i]);
      const std::uint32_t older = next_[c];
      next_[c] = free_;
      free_ = c;
      c = older;
      count = kChunk;
    }
    slot = Slot{};
  }

  // The heap ran empty with events left: moves to the next non-empty bucket.
  void advance() {
    // The current bucket is spent. A run's storage is kept as the spare for
    // the next wave of ties even while few events are pending (RAMP: 65K
    // between steps, 2M in each lock-step wave; allocating the 128 MB afresh
    // each wave cost 14% of the run in page faults). Keeping it does not
    // raise the peak, which the previous wave already reached.
    keep_larger_spare();
    heap_.release_if_larger(kRunMin);
    if (pops_ >= next_check_) {
      if (drifted()) {
        const unsigned old_shift = shift_;
        const std::size_t old_ring = ring_.size();
        rebuild();
        // The same width again: the events defeat it (ties, say); check less
        // often rather than rebuilding every period.
        backoff_ =
            shift_ == old_shift && ring_.size() == old_ring ? std::min(2 * backoff_, 64u) : 1;
        start_period();
        return;
      }
      start_period();
    }
    for (;;) {
      if (ring_count_ == 0) {
        // Nothing in the ring: jump straight to the overflow's first bucket.
        cur_ = overflow_min_;
        refile_overflow();
        return;  // the overflow's earliest event is now in the heap
      }
      ++cur_;
      Slot& slot = ring_[cur_ & (ring_size() - 1)];
      if (slot.size >= kRunMin) {
        // The run is exhausted here (the current bucket was empty).
        ring_count_ -= slot.size;
        adopted_ += slot.size;  // a deep bucket all the same, for drifted()
        ++adoptions_;
        // Sorted straight from the chunks into the spare storage.
        sort_into([&](auto&& f) { for_each_in_slot(slot, f); }, slot.size, spare_);
        run_.swap(spare_);
        empty_slot(slot, [](const Event&) {});
      } else if (slot.size != 0) {
        ring_count_ -= slot.size;
        adopted_ += slot.size;
        ++adoptions_;
        empty_slot(slot, [this](const Event& e) { heap_.append_unordered(e); });
        heap_.reorder();
      } else {
        ++skipped_;
      }
      // The ring's horizon moved on: overflow events it now covers are
      // refiled once the cursor reaches the earliest, a whole ring at a time.
      if (overflow_min_ <= cur_) refile_overflow();
      if (!current_empty()) return;
    }
  }

  // Moves the overflow events the ring now covers into the heap or the ring.
  void refile_overflow() {
    if (current_empty() && overflow_.size() >= kRunMin) adopt_overflow_ties();
    std::uint64_t min = kNone;
    std::size_t kept = 0;
    for (const Event& e : overflow_) {
      const std::uint64_t b = bucket_of(e.time);
      if (b <= cur_ || b - cur_ < ring_size()) {
        place(e);
      } else {
        overflow_[kept++] = e;
        min = std::min(min, b);
      }
    }
    refiled_ += overflow_.size();
    overflow_.resize(kept);

    overflow_min_ = min;
  }

  // The larger of the read run's storage and the spare is kept as the spare
  // (the next sort's scratch); the other is released.
  void keep_larger_spare() {
    run_.clear();
    if (run_.capacity() > spare_.capacity()) run_.swap(spare_);
    EventVector().swap(run_);
    run_pos_ = 0;
  }

  // The heap has grown large beside the run (ties pushed at the current
  // time: at start-up a lock-step wave's 2M transfers are scheduled before
  // any is handled): its events, sorted, are merged with the run's unread
  // ones, so pops stay sequential instead of sifting a heap of a million.
  // Triggered when the heap holds half the unread run, each event is merged
  // a bounded number of times.
  [[gnu::noinline]] void merge_into_run() {
    std::vector<Event> h;
    heap_.swap_storage(h);
    EventVector sorted;
    sort_into([&h](auto&& f) { std::for_each(h.begin(), h.end(), f); }, h.size(), sorted);
    std::vector<Event>().swap(h);
    spare_.clear();
    spare_.reserve(run_.size() - run_pos_ + sorted.size());
    std::merge(run_.begin() + static_cast<std::ptrdiff_t>(run_pos_), run_.end(), sorted.begin(),
               sorted.end(), std::back_inserter(spare_),
               [](const Event& a, const Event& b) { return event_before(a, b); });
    run_.swap(spare_);
    run_pos_ = 0;
    if (sorted.capacity() > spare_.capacity()) spare_.swap(sorted);
    spare_.clear();
  }

  // The batch's `current` events of the current bucket, sorted, merged with
  // the run's unread ones (the heap keeps its own: top() takes the earlier
  // front). Each received event is moved about three times, not sifted.
  [[gnu::noinline]] void merge_batch(std::span<const Event> events, std::size_t current) {
    sort_into(
        [&](auto&& f) {
          for (const Event& e : events) {
            if (bucket_of(e.time) <= cur_) f(e);
          }
        },
        current, batch_);
    if (run_pos_ >= run_.size()) {
      // Nothing unread: the batch is the run, and the run's storage the next batch's.
      run_.clear();
      run_pos_ = 0;
      run_.swap(batch_);
      return;
    }
    // Merged from the back, in the run's own storage: the read part is
    // dropped and the unread part never overwritten before it is moved (the
    // write position stays at or past the read position), so no second
    // buffer of a wave's size is faulted in per window.
    run_.erase(run_.begin(), run_.begin() + static_cast<std::ptrdiff_t>(run_pos_));
    run_pos_ = 0;
    std::size_t i = run_.size(), j = batch_.size();
    run_.resize(i + j);
    for (std::size_t k = i + j; j > 0;) {
      if (i > 0 && event_before(batch_[j - 1], run_[i - 1])) {
        run_[--k] = run_[--i];
      } else {
        run_[--k] = batch_[--j];
      }
    }
    batch_.clear();
  }

  // When the overflow holds many events of the (empty) current bucket, ties
  // far ahead of a lock-step wave (RAMP: a step's 2M arrivals at one time),
  // they become the run: sorted into the spare storage, while the overflow
  // keeps its own storage for the next wave. Two buffers ping-pong, and
  // neither a heap of millions nor a fresh allocation is made.
  void adopt_overflow_ties() {
    const auto later = std::partition(overflow_.begin(), overflow_.end(),
                                      [this](const Event& e) { return bucket_of(e.time) <= cur_; });
    const auto current = static_cast<std::size_t>(later - overflow_.begin());
    if (current < kRunMin) return;
    EventVector rest(later, overflow_.end());  // refiled by the caller
    keep_larger_spare();
    sort_into([&](auto&& f) { std::for_each(overflow_.begin(), later, f); }, current, spare_);
    run_.swap(spare_);
    overflow_.assign(rest.begin(), rest.end());
    refiled_ += current;
    ++adoptions_;
    adopted_ += current;
  }

  // Whether the width no longer fits the events: buckets that hold too many
  // (a deep heap: adopted or pushed straight into it), too many empty buckets
  // skipped, or the overflow rescanned too often. Checked once per period of
  // max(2 size, 4096) pops (times a back-off of up to 64 while rebuilds change
  // nothing), so a rebuild costs at most half a copy per pop even when the
  // events defeat every width (all at one time, say).
  bool drifted() const {
    const std::uint64_t pops = pops_ - period_pops_;
    return adopted_ + direct_ > 4 * kTarget * (adoptions_ + 1) || skipped_ > 4 * pops ||
           refiled_ > 2 * pops;
  }

  void start_period() {
    period_pops_ = pops_;
    next_check_ = pops_ + std::max<std::uint64_t>(2 * size_, 4096) * backoff_;
    adopted_ = adoptions_ = direct_ = skipped_ = refiled_ = 0;
  }

  // Re-chooses the bucket width and ring size from the pending events and
  // refiles them all. The density comes from the median distance to the
  // earliest event, which a few far-future events do not distort.
  void rebuild() {
    // Every event moves into `all` (the spare's storage when there is one),
    // and each structure is emptied as soon as it is read, so the events are
    // never held three times. The chunk pool (trimmed below) and the overflow
    // keep their storage, which the peak of pending events bounds: RAMP grows
    // from 65K to 2M pending events each step, a rebuild per doubling, and
    // releasing it each time made the next pushes fault every page in again.
    EventVector all;
    all.swap(spare_);
    all.clear();
    all.reserve(size_);
    heap_.drain_into(all);
    all.insert(all.end(), run_.begin() + static_cast<std::ptrdiff_t>(run_pos_), run_.end());
    keep_larger_spare();
    for (Slot& slot : ring_) {
      if (slot.size != 0) empty_slot(slot, [&all](const Event& e) { all.push_back(e); });
    }
    next_.clear();
    chunk_count_ = 0;
    free_ = kNil;
    all.insert(all.end(), overflow_.begin(), overflow_.end());
    overflow_.clear();
    overflow_min_ = kNone;
    const std::size_t n = all.size();

    const auto by_time = [](const Event& a, const Event& b) { return a.time < b.time; };
    const Time first = std::min_element(all.begin(), all.end(), by_time)->time;
    const auto mid = all.begin() + static_cast<std::ptrdiff_t>(n / 2);
    std::nth_element(all.begin(), mid, all.end(), by_time);
    const Time median = mid->time - first;
    // About n/2 events within `median` of the first: kTarget of them per
    // bucket needs a width of 2 kTarget median / n, rounded down to 2^k.
    const auto width =
        static_cast<std::uint64_t>(static_cast<long double>(median) * 2 * kTarget / (n + 1));
    shift_ = width > 1 ? static_cast<unsigned>(std::bit_width(width) - 1) : 0;
    // A ring reaching ~8 medians ahead leaves only a sliver of the
    // distribution's tail to the overflow (16 cost 8 bytes per event more).
    const std::size_t ring =
        std::clamp<std::size_t>(std::bit_ceil(4 * n / kTarget + 1), kMinRing, kMaxRing);
    if (ring_.capacity() > 2 * ring) std::vector<Slot>().swap(ring_);
    ring_.assign(ring, Slot{});
    ring_count_ = 0;
    cur_ = bucket_of(first);
    // No chunk reserve for all n: when ties send most of them to the current
    // bucket, chunks reserved for them would stay unused (RAMP: 2M pending).
    // The current bucket's events: sorted into the run when they are many
    // (ties), so the heap stays small; `all` itself becomes the run.
    const auto later = std::partition(all.begin(), all.end(),
                                      [this](const Event& e) { return bucket_of(e.time) <= cur_; });
    const auto current = static_cast<std::size_t>(later - all.begin());
    for (auto it = later; it != all.end(); ++it) place(*it);
    all.resize(current);
    if (current >= kRunMin) {
      sort_events(all, spare_);
      run_ = std::move(all);
    } else {
      for (const Event& e : all) heap_.push(e);
      // A spare exists only where runs do (PHOLD has none, nor its memory).
      if (spare_.capacity() != 0 && all.capacity() > spare_.capacity()) spare_.swap(all);
      spare_.clear();
    }
    // Blocks of the pool beyond the chunks now in use are given back.
    blocks_.resize(std::min(blocks_.size(), (chunk_count_ + kBlockChunks - 1) / kBlockChunks));
    rebuild_size_ = std::max<std::size_t>(2 * n, 64);
    start_period();
  }

  DaryHeap<Arity> heap_;
  EventVector run_;    // a big adopted bucket, sorted; read from run_pos_
  EventVector spare_;  // a spent run's storage, for the next one (empty)
  EventVector batch_;  // push_all's sorted events of the current bucket (empty)
  std::size_t run_pos_ = 0;
  std::vector<Slot> ring_;
  std::vector<std::unique_ptr<Chunk[]>> blocks_;  // the pool of bucket storage
  std::uint32_t chunk_count_ = 0;                 // chunks handed out so far
  std::vector<std::uint32_t> next_;  // per chunk: the next older chunk, or the next free one
  std::uint32_t free_ = kNil;        // the free chunks' list
  EventVector overflow_;
  std::size_t size_ = 0;
  std::size_t ring_count_ = 0;
  std::uint64_t cur_ = 0;  // the heap's bucket number
  std::uint64_t overflow_min_ = kNone;
  unsigned shift_ = 20;  // until the first rebuild: ~1 us buckets
  std::size_t rebuild_size_ = 64;
  unsigned backoff_ = 1;  // periods between drift checks
  // Statistics of the current period, for drifted().
  std::uint64_t pops_ = 0, period_pops_ = 0, next_check_ = 4096;
  std::uint64_t adopted_ = 0, adoptions_ = 0, direct_ = 0, skipped_ = 0, refiled_ = 0;
};

using EventQueue = CalendarQueue<4>;

}  // namespace sipsim::pdes
