#include "sipsim/pdes/event_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <vector>

#include "sipsim/pdes/random.hpp"

namespace sipsim::pdes {
namespace {

Event ev(Time t, LpId dst, LpId src, std::uint64_t seq) {
  return Event{t, dst, src, seq, 0, 0, {}};
}

// The queue's order, for ordered references (std::set<Event, Earlier>).
struct Earlier {
  bool operator()(const Event& a, const Event& b) const { return event_before(a, b); }
};

TEST(EventOrder, TimeThenDestinationThenSourceThenSequence) {
  EXPECT_TRUE(event_before(ev(1, 9, 9, 9), ev(2, 0, 0, 0)));
  EXPECT_TRUE(event_before(ev(5, 1, 9, 9), ev(5, 2, 0, 0)));
  EXPECT_TRUE(event_before(ev(5, 2, 1, 9), ev(5, 2, 3, 0)));
  EXPECT_TRUE(event_before(ev(5, 2, 3, 1), ev(5, 2, 3, 2)));
  EXPECT_FALSE(event_before(ev(5, 2, 3, 2), ev(5, 2, 3, 2)));
}

// Random pushes, pops and replace_tops against a sorted reference, with many
// equal timestamps so that the tie-breaks are exercised.
template <class Q>
void check_against_reference() {
  RandomStream rng(99, 1);
  Q q;
  std::vector<Event> ref;
  std::uint64_t seq = 0;
  Time now = 0;
  for (int step = 0; step < 20'000; ++step) {
    const auto action = rng.below(10);
    const Event e = ev(now + rng.below(50), static_cast<LpId>(rng.below(8)),
                       static_cast<LpId>(rng.below(8)), seq++);
    if (action < 4 || q.empty()) {
      q.push(e);
      ref.push_back(e);
    } else {
      auto it = std::min_element(ref.begin(), ref.end(), event_before);
      ASSERT_EQ(q.top().seq, it->seq);
      now = it->time;
      ref.erase(it);
      if (action < 7) {
        q.pop();
      } else {
        q.replace_top(e);
        ref.push_back(e);
      }
    }
    ASSERT_EQ(q.size(), ref.size());
  }
  std::sort(ref.begin(), ref.end(), event_before);
  for (const Event& e : ref) {
    ASSERT_EQ(q.top().seq, e.seq);
    q.pop();
  }
  EXPECT_TRUE(q.empty());
}

TEST(DaryHeap, BinaryMatchesReference) {
  check_against_reference<DaryHeap<2>>();
}
TEST(DaryHeap, QuaternaryMatchesReference) {
  check_against_reference<DaryHeap<4>>();
}
TEST(DaryHeap, OctonaryMatchesReference) {
  check_against_reference<DaryHeap<8>>();
}

TEST(CalendarQueue, MatchesReference) {
  check_against_reference<CalendarQueue<4>>();
}

// A long run of one workload against an ordered reference: each step pops the
// earliest event (checking it is the reference's) and pushes 0-2 new ones at
// `next(now, step)`, through replace_top as the engine does when it can; then
// both drain. Every event has a distinct (src, seq), so the order is total.
using NextTime = std::function<Time(RandomStream&, Time now, int step)>;

void check_workload(int start, int steps, const NextTime& next) {
  RandomStream rng(5, 2);
  EventQueue q;
  std::set<Event, Earlier> ref;
  std::uint64_t seq = 0;
  auto make = [&](Time now, int step) {
    return ev(next(rng, now, step), static_cast<LpId>(rng.below(4)),
              static_cast<LpId>(rng.below(4)), seq++);
  };
  for (int i = 0; i < start; ++i) {
    const Event e = make(0, -1);
    q.push(e);
    ref.insert(e);
  }
  for (int step = 0; step < steps && !ref.empty(); ++step) {
    const Event top = *ref.begin();
    ASSERT_EQ(q.top().seq, top.seq) << "step " << step;
    ASSERT_EQ(q.top().time, top.time);
    ref.erase(ref.begin());
    // Births average one (a hold model), never letting the set run dry.
    const auto births = ref.size() < 8 ? 1 + rng.below(2) : rng.below(3);
    if (births == 0) {
      q.pop();
    } else {
      Event e = make(top.time, step);
      q.replace_top(e);
      ref.insert(e);
      for (std::uint64_t b = 1; b < births; ++b) {
        e = make(top.time, step);
        q.push(e);
        ref.insert(e);
      }
    }
    ASSERT_EQ(q.size(), ref.size());
    if (step % 499 == 0 && !ref.empty()) {
      // for_each_before visits every event earlier than the 40th's time.
      const Time before =
          std::next(ref.begin(), std::min<std::ptrdiff_t>(40, ref.size() - 1))->time;
      std::set<std::uint64_t> seen;
      q.for_each_before(before, [&](const Event& e) { seen.insert(e.seq); });
      for (auto it = ref.begin(); it != ref.end() && it->time < before; ++it) {
        ASSERT_EQ(seen.count(it->seq), 1u) << "step " << step;
      }
    }
  }
  while (!ref.empty()) {
    ASSERT_EQ(q.top().seq, ref.begin()->seq);
    ref.erase(ref.begin());
    q.pop();
  }
  EXPECT_TRUE(q.empty());
}

TEST(CalendarQueue, HoldModelLikePhold) {
  check_workload(4096, 200'000, [](RandomStream& r, Time now, int) {
    return now + kMicrosecond + static_cast<Time>(r.exponential(1e6));
  });
}

TEST(CalendarQueue, TieHeavy) {
  // Few distinct times: whole buckets (and heaps) of equal timestamps.
  check_workload(2000, 100'000,
                 [](RandomStream& r, Time now, int) { return now + 1000 * r.below(3); });
}

TEST(CalendarQueue, AllAtOneTime) {
  check_workload(3000, 20'000, [](RandomStream&, Time, int) { return Time{42}; });
}

TEST(CalendarQueue, FarFuture) {
  // Mostly near events, a few seconds or the end of time ahead: the overflow.
  check_workload(2000, 150'000, [](RandomStream& r, Time now, int) {
    const auto k = r.below(100);
    if (k == 0) return now + kSecond + r.below(kSecond);
    if (k == 1) return kTimeMax - r.below(1000);
    return now + r.below(2 * kNanosecond);
  });
}

TEST(CalendarQueue, Bursty) {
  // Alternating phases: dense picosecond bursts, then sparse millisecond gaps,
  // so the width must adapt both ways.
  check_workload(500, 200'000, [](RandomStream& r, Time now, int step) {
    if ((step / 20'000) % 2 == 0) return now + r.below(50);
    return now + r.below(kMillisecond);
  });
}

TEST(CalendarQueue, GrowsAndShrinks) {
  // From empty to 100k pending and back, times spread then concentrated.
  RandomStream rng(8, 8);
  EventQueue q;
  std::set<std::pair<Time, std::uint64_t>> ref;
  std::uint64_t seq = 0;
  for (int round = 0; round < 3; ++round) {
    const Time now = ref.empty() ? 0 : ref.begin()->first;
    for (int i = 0; i < 120'000; ++i) {
      const Time t = now + rng.below(round == 1 ? 10 : kMicrosecond);
      q.push(ev(t, 0, 0, seq));
      ref.emplace(t, seq++);
    }
    while (ref.size() > 10) {
      ASSERT_EQ(q.top().seq, ref.begin()->second);
      ref.erase(ref.begin());
      q.pop();
    }
  }
  ASSERT_EQ(q.size(), ref.size());
}

TEST(CalendarQueue, EarlierThanTheCurrentBucketStillComesFirst) {
  // The engine may receive an event before the current one's time (during
  // initialisation, remote events need no lookahead).
  EventQueue q;
  for (std::uint64_t i = 0; i < 1000; ++i) q.push(ev(kMicrosecond + i * 1000, 0, 0, i));
  q.pop();
  q.push(ev(5, 1, 1, 5000));
  EXPECT_EQ(q.top().seq, 5000u);
  q.pop();
  EXPECT_EQ(q.top().seq, 1u);
}

TEST(CalendarQueue, StorageStaysUnder160BytesPerPendingEvent) {
  // Partly filled bucket chunks and the ring's slots cost more than the heap's
  // 80 bytes (~110 on hold models), but storage stays proportional to the
  // pending events.
  EventQueue q;
  RandomStream rng(3, 3);
  for (std::uint64_t i = 0; i < 100'000; ++i) {
    q.push(ev(i * 100 + rng.below(10'000), 0, 0, i));
    if (i > 1000 && i % 97 == 0) {
      ASSERT_LE(q.capacity_bytes(), q.size() * 160 + 64 * 1024) << "at " << q.size();
    }
  }
  for (std::uint64_t i = 0; i < 200'000; ++i) {
    const Event e = q.top();
    q.replace_top(ev(e.time + 1'000'000 + rng.below(2'000'000), 0, 0, i + 100'000));
  }
  EXPECT_LE(q.capacity_bytes(), q.size() * 160 + 64 * 1024);
}

// sort_events against std::sort: ties over dense destinations (the counting
// sort), ties over sparse ones and mixed times (std::sort), repeated keys.
TEST(SortEvents, MatchesStdSort) {
  RandomStream rng(17, 4);
  EventVector scratch;
  for (int round = 0; round < 40; ++round) {
    const auto n = static_cast<std::size_t>(1 + rng.below(5000));
    const LpId spread = round % 4 == 0 ? 4'000'000'000u : static_cast<LpId>(1 + rng.below(3000));
    const bool ties = round % 3 != 2;
    EventVector v;
    for (std::size_t i = 0; i < n; ++i) {
      v.push_back(ev(ties ? 777 : rng.below(5), 100 + static_cast<LpId>(rng.below(spread)),
                     static_cast<LpId>(rng.below(5)), rng.below(4)));
      v.back().aux = static_cast<std::uint32_t>(i);  // tells equal keys apart
    }
    std::vector<Event> ref(v.begin(), v.end());
    std::stable_sort(ref.begin(), ref.end(), event_before);
    sort_events(v, scratch);
    ASSERT_EQ(v.size(), ref.size());
    EXPECT_TRUE(scratch.empty());
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_FALSE(event_before(v[i], ref[i]) || event_before(ref[i], v[i])) << "round " << round;
    }
  }
}

// RAMP's pattern: waves of tens of thousands of events at one time, each
// event scheduling the next wave's at one far time (beyond the ring: the
// overflow becomes the run), with a "compute" phase of spread times between
// some waves, and a first wave pushed straight into the current bucket (its
// heap is merged into the run). Checked pop by pop against an ordered reference.
TEST(CalendarQueue, LockStepWaves) {
  RandomStream rng(23, 1);
  EventQueue q;
  std::set<Event, Earlier> ref;
  std::uint64_t seq = 0;
  auto make = [&](Time t) {
    return ev(t, static_cast<LpId>(rng.below(20'000)), static_cast<LpId>(rng.below(20'000)), seq++);
  };
  for (int i = 0; i < 120'000; ++i) {
    // In LP order, as the engine initialises: the events pushed after the
    // last rebuild sort after the run, and their heap outlives it.
    const Event e = ev(100, static_cast<LpId>(i / 5), static_cast<LpId>(rng.below(20'000)), seq++);
    q.push(e);
    ref.insert(e);
  }
  int popped = 0;
  while (!ref.empty()) {
    const Event top = *ref.begin();
    ASSERT_EQ(q.top().seq, top.seq) << "pop " << popped;
    ASSERT_EQ(q.top().time, top.time);
    ref.erase(ref.begin());
    ++popped;
    const auto wave = top.time / kMillisecond;
    if (wave >= 6) {
      q.pop();
      continue;
    }
    // Odd waves pass through a spread "compute" phase first.
    const Time next = top.time % kMillisecond == 100 && wave % 2 == 1
                          ? top.time + 1 + rng.below(kMicrosecond)
                          : (wave + 1) * kMillisecond + 100;
    const Event e = make(next);
    q.replace_top(e);
    ref.insert(e);
    ASSERT_EQ(q.size(), ref.size());
  }
  EXPECT_TRUE(q.empty());
  EXPECT_GT(popped, 6 * 120'000);
}

// push_all, as the windowed engine receives another rank's events: batches
// tied with the run being read (merged into it), batches that arrive when the
// run is spent (they become it), small batches and batches for later times
// (filed like pushes), between pops and single pushes. Checked pop by pop.
TEST(CalendarQueue, PushAllMatchesPushes) {
  RandomStream rng(31, 7);
  EventQueue q;
  std::set<Event, Earlier> ref;
  std::uint64_t seq = 0;
  auto make = [&](Time t) {
    return ev(t, static_cast<LpId>(rng.below(5'000)), static_cast<LpId>(rng.below(5'000)), seq++);
  };
  std::vector<Event> batch;
  auto push_batch = [&](std::size_t n, const std::function<Time()>& when) {
    batch.clear();
    for (std::size_t i = 0; i < n; ++i) batch.push_back(make(when()));
    q.push_all(batch);
    ref.insert(batch.begin(), batch.end());
  };
  push_batch(20'000, [] { return Time{1000}; });
  int popped = 0;
  for (int round = 0; round < 60 && !ref.empty(); ++round) {
    const Time now = ref.begin()->time;
    switch (round % 5) {
      case 0:
        push_batch(5'000, [&] { return now; });
        break;  // ties with the run
      case 1:
        push_batch(3'000, [&] { return now + rng.below(3); });
        break;
      case 2:
        push_batch(50, [&] { return now + rng.below(kMicrosecond); });
        break;
      case 3:
        push_batch(4'000, [&] { return now + kMillisecond + rng.below(kMillisecond); });
        break;
      default:
        push_batch(2'000, [&] { return now + kSecond; });
        break;  // the overflow
    }
    // Pops, a third of them pushing one event at the current time or later.
    const int pops = static_cast<int>(rng.below(4'000));
    for (int k = 0; k < pops && !ref.empty(); ++k) {
      const Event top = *ref.begin();
      ASSERT_EQ(q.top().seq, top.seq) << "pop " << popped;
      ref.erase(ref.begin());
      ++popped;
      if (rng.below(3) == 0) {
        const Event e = make(top.time + rng.below(2) * rng.below(kMicrosecond));
        q.replace_top(e);
        ref.insert(e);
      } else {
        q.pop();
      }
    }
    ASSERT_EQ(q.size(), ref.size());
  }
  while (!ref.empty()) {
    ASSERT_EQ(q.top().seq, ref.begin()->seq);
    ref.erase(ref.begin());
    q.pop();
  }
  EXPECT_TRUE(q.empty());
}

TEST(DaryHeap, StorageStaysUnder80BytesPerPendingEvent) {
  DaryHeap<4> q;
  for (std::uint64_t i = 0; i < 100'000; ++i) {
    q.push(ev(i, 0, 0, i));
    if (i > 1000) {
      ASSERT_LE(q.capacity_bytes(), (q.size() * 64 * 5) / 4 + 64 * 64) << "at " << q.size();
    }
  }
}

}  // namespace
}  // namespace sipsim::pdes
