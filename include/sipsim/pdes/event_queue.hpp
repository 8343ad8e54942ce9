#pragma once
// The pending-event set of one rank. A d-ary heap of events stored by value:
// no per-event allocation, 64 bytes per pending event plus at most 25% slack.
// bench/event_queue_bench.cpp compares it with a binary heap
// (std::priority_queue), an ordered tree (std::multiset) and other arities; the
// 4-ary heap won on the hold model at the sizes PHOLD and the fabrics produce
// (see docs/performance.md), so the kernel uses EventQueue = DaryHeap<4>.
#include <cstddef>
#include <utility>
#include <vector>

#include "sipsim/pdes/event.hpp"

namespace sipsim::pdes {

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

  void sift_down(std::size_t i, const Event& e) {
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

  std::vector<Event> heap_;
};

using EventQueue = DaryHeap<4>;

}  // namespace sipsim::pdes
