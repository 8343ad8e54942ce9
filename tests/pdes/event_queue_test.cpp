#include "sipsim/pdes/event_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "sipsim/pdes/random.hpp"

namespace sipsim::pdes {
namespace {

Event ev(Time t, LpId dst, LpId src, std::uint64_t seq) {
  return Event{t, dst, src, seq, 0, 0, {}};
}

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

TEST(DaryHeap, StorageStaysUnder80BytesPerPendingEvent) {
  EventQueue q;
  for (std::uint64_t i = 0; i < 100'000; ++i) {
    q.push(ev(i, 0, 0, i));
    if (i > 1000) {
      ASSERT_LE(q.capacity_bytes(), (q.size() * 64 * 5) / 4 + 64 * 64) << "at " << q.size();
    }
  }
}

}  // namespace
}  // namespace sipsim::pdes
