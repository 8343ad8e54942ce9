// The classic hold model (Jones, CACM 1986) on candidate pending-event sets:
// the queue holds N events; each step removes the smallest and inserts one at
// its time + lookahead + Exp(mean), which is what PHOLD does to the kernel.
// Results and the choice they led to: docs/performance.md. The d-ary heaps
// were the kernel's queue before issue #11 (DaryHeap<4>); the calendar queue
// (CalendarQueue<4>, the kernel's EventQueue since) is measured beside them,
// also on a ties workload, and the exponential samplers on their own.
#include <benchmark/benchmark.h>

#include <queue>
#include <set>
#include <vector>

#include "sipsim/pdes/event_queue.hpp"
#include "sipsim/pdes/random.hpp"

namespace {

using sipsim::pdes::Event;
using sipsim::pdes::event_before;
using sipsim::pdes::ExpZiggurat;
using sipsim::pdes::RandomStream;

struct Later {
  bool operator()(const Event& a, const Event& b) const { return event_before(b, a); }
};
struct Earlier {
  bool operator()(const Event& a, const Event& b) const { return event_before(a, b); }
};

// A binary heap through the standard library.
class StdPriorityQueue {
 public:
  void push(const Event& e) { q_.push(e); }
  const Event& top() const { return q_.top(); }
  void pop() { q_.pop(); }

 private:
  std::priority_queue<Event, std::vector<Event>, Later> q_;
};

// A balanced search tree (red-black): O(log n) with one allocation per event.
class TreeQueue {
 public:
  void push(const Event& e) { s_.insert(e); }
  const Event& top() const { return *s_.begin(); }
  void pop() { s_.erase(s_.begin()); }

 private:
  std::multiset<Event, Earlier> s_;
};

Event make_event(RandomStream& rng, sipsim::pdes::Time base, std::uint64_t seq) {
  const auto inc = static_cast<sipsim::pdes::Time>(rng.exponential(1e6)) + 1'000'000;
  const auto dst = static_cast<std::uint32_t>(rng.below(1u << 16));
  return Event{base + inc, dst, dst, seq, 1, 0, {}};
}

template <class Q>
void hold(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  RandomStream rng(42, 0);
  Q q;
  std::uint64_t seq = 0;
  for (std::size_t i = 0; i < n; ++i) q.push(make_event(rng, 0, seq++));
  for (auto _ : state) {
    const Event e = q.top();
    q.pop();
    q.push(make_event(rng, e.time, seq++));
  }
  state.SetItemsProcessed(state.iterations());
}

// The random draws alone, to subtract from the figures above.
void hold_baseline(benchmark::State& state) {
  RandomStream rng(42, 0);
  std::uint64_t seq = 0;
  sipsim::pdes::Time t = 0;
  for (auto _ : state) {
    const Event e = make_event(rng, t, seq++);
    t = e.time & 0xFFFF;
    benchmark::DoNotOptimize(e);
  }
  state.SetItemsProcessed(state.iterations());
}

// Ties: increments of 0-3 us in whole microseconds, so every bucket and heap
// is full of equal timestamps and the (dst, src, seq) tie-break decides.
Event make_tied_event(RandomStream& rng, sipsim::pdes::Time base, std::uint64_t seq) {
  const auto dst = static_cast<std::uint32_t>(rng.below(1u << 16));
  return Event{base + 1'000'000 * rng.below(4), dst, dst, seq, 1, 0, {}};
}

// The kernel's fused pop + push (replace_top) on a queue Q, with events from
// Make: make_event for the hold model, make_tied_event for the ties workload.
template <class Q, Event (*Make)(RandomStream&, sipsim::pdes::Time, std::uint64_t)>
void hold_fused(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  RandomStream rng(42, 0);
  Q q;
  std::uint64_t seq = 0;
  for (std::size_t i = 0; i < n; ++i) q.push(Make(rng, 0, seq++));
  for (auto _ : state) {
    const Event e = q.top();
    q.replace_top(Make(rng, e.time, seq++));
  }
  state.SetItemsProcessed(state.iterations());
}

// The exponential samplers: inversion (log1p) and the ziggurat PHOLD uses.
void exp_inversion(benchmark::State& state) {
  RandomStream rng(42, 0);
  for (auto _ : state) benchmark::DoNotOptimize(rng.exponential(1.0));
  state.SetItemsProcessed(state.iterations());
}
void exp_ziggurat(benchmark::State& state) {
  RandomStream rng(42, 0);
  for (auto _ : state) benchmark::DoNotOptimize(ExpZiggurat::sample(rng));
  state.SetItemsProcessed(state.iterations());
}

#define SIZES ->Arg(1024)->Arg(4096)->Arg(16384)->Arg(65536)
BENCHMARK(hold_baseline);
BENCHMARK(hold<StdPriorityQueue>) SIZES;
BENCHMARK(hold<TreeQueue>) SIZES;
BENCHMARK(hold<sipsim::pdes::DaryHeap<2>>) SIZES;
BENCHMARK(hold<sipsim::pdes::DaryHeap<4>>) SIZES;
BENCHMARK(hold<sipsim::pdes::DaryHeap<8>>) SIZES;
using sipsim::pdes::CalendarQueue;
using sipsim::pdes::DaryHeap;
BENCHMARK(hold_fused<DaryHeap<2>, make_event>) SIZES;
BENCHMARK(hold_fused<DaryHeap<4>, make_event>) SIZES;
BENCHMARK(hold_fused<DaryHeap<8>, make_event>) SIZES;
BENCHMARK(hold<CalendarQueue<4>>) SIZES;
BENCHMARK(hold_fused<CalendarQueue<2>, make_event>) SIZES;
BENCHMARK(hold_fused<CalendarQueue<4>, make_event>) SIZES;
BENCHMARK(hold_fused<DaryHeap<4>, make_tied_event>) SIZES;
BENCHMARK(hold_fused<CalendarQueue<4>, make_tied_event>) SIZES;
BENCHMARK(exp_inversion);
BENCHMARK(exp_ziggurat);

}  // namespace

BENCHMARK_MAIN();
