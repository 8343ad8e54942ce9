// The generic payload of CollectiveSpec and AlgorithmParams (payload.hpp): shared by copies,
// compared by its family's own ==, defaults equal to none, one family's value invisible to
// another. RAMP-x's own payloads: tests/collective/ramp_x/.
#include "sipsim/collective/payload.hpp"

#include <gtest/gtest.h>

#include "sipsim/collective/schedule.hpp"

namespace sipsim::collective {
namespace {

// Two families' values, the same layout.
struct Apples {
  int n = 0;
  friend bool operator==(const Apples&, const Apples&) = default;
};
struct Pears {
  int n = 0;
  friend bool operator==(const Pears&, const Pears&) = default;
};

TEST(Payload, ComparesByTheFamilysEquality) {
  const AlgorithmPayload none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none, AlgorithmPayload{});
  const AlgorithmPayload a = AlgorithmPayload::of(Apples{3});
  const AlgorithmPayload b = AlgorithmPayload::of(Apples{3});  // another value, equal
  ASSERT_FALSE(a.empty());
  EXPECT_NE(a.get<Apples>(), b.get<Apples>());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, AlgorithmPayload::of(Apples{4}));
  EXPECT_NE(a, none);
  EXPECT_NE(none, a);
  // Another family's value is neither equal nor visible.
  const AlgorithmPayload p = AlgorithmPayload::of(Pears{3});
  EXPECT_NE(a, p);
  EXPECT_EQ(a.get<Pears>(), nullptr);
  EXPECT_EQ(p.get<Apples>(), nullptr);
  ASSERT_NE(p.get<Pears>(), nullptr);
  EXPECT_EQ(p.get<Pears>()->n, 3);
}

TEST(Payload, DefaultsAreNone) {
  EXPECT_TRUE(AlgorithmPayload::of(Apples{}).empty());
  EXPECT_EQ(AlgorithmPayload::of(Apples{}), AlgorithmPayload::of(Pears{}));
  EXPECT_EQ(AlgorithmPayload::of(Apples{}).get<Apples>(), nullptr);
}

TEST(Payload, CopiesShareTheValue) {
  const AlgorithmPayload a = AlgorithmPayload::of(Apples{7});
  const AlgorithmPayload copy = a;
  EXPECT_EQ(copy.get<Apples>(), a.get<Apples>());
  CollectiveSpec s;
  s.payload = a;
  const CollectiveSpec t = s;
  EXPECT_EQ(t.payload.get<Apples>(), a.get<Apples>());
}

// The executor replays communicators of one shape only when their parameters are equal:
// hierarchy, torus and the payload.
TEST(Payload, ParamsDifferingOnlyInThePayloadDiffer) {
  AlgorithmParams a;
  a.hierarchy = {4, 2};
  a.torus = {2, 4};
  a.payload = AlgorithmPayload::of(Apples{1});
  AlgorithmParams b = a;
  EXPECT_EQ(a, b);
  b.payload = AlgorithmPayload::of(Apples{1});
  EXPECT_EQ(a, b);
  b.payload = AlgorithmPayload::of(Apples{2});
  EXPECT_NE(a, b);
  b.payload = AlgorithmPayload::of(Pears{1});
  EXPECT_NE(a, b);
  b.payload = {};
  EXPECT_NE(a, b);
  b = a;
  b.torus = {4, 2};
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace sipsim::collective
