// RAMP transport: whole-slot timing and the optical rules, strict and permissive.
#include "sipsim/fabric/ramp/transport.hpp"

#include <gtest/gtest.h>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <vector>

#include "sipsim/fabric/fabric_model.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"
#include "sipsim/pdes/engine.hpp"

namespace sipsim::fabric {
namespace {

using pdes::kNanosecond;

struct Transfer {
  std::uint32_t from, to;
  std::uint64_t bytes;
};

// Every listed transfer starts at t = 0; records delivery times by destination.
class Transfers final : public FabricModel, public MessageSink {
 public:
  Transfers(Network& net, std::vector<Transfer> t) : FabricModel(net), transfers_(std::move(t)) {}
  void init(pdes::Context& ctx) override {
    for (const Transfer& t : transfers_) {
      if (t.from == ctx.self()) fabric_.send(ctx, t.to, t.bytes, 7);
    }
  }
  void handle(const pdes::Event& e, pdes::Context& ctx) override { fabric_.handle(e, ctx, *this); }
  void delivered(const Delivery& d, pdes::Context& ctx) override {
    delivered_at.push_back({d.src_node, ctx.now()});
  }
  std::vector<std::pair<std::uint32_t, pdes::Time>> delivered_at;

 private:
  std::vector<Transfer> transfers_;
};

RampSpec small(bool permissive = false, std::uint32_t b = 1) {
  RampSpec s;
  s.x = 4;
  s.J = 4;
  s.Lambda = 8;
  s.b = b;
  s.permissive = permissive;
  return s;
}

std::uint32_t node(std::uint32_t g, std::uint32_t j, std::uint32_t lambda, const RampSpec& s) {
  return (g * s.J + j) * s.Lambda + lambda;
}

pdes::RunResult simulate(Transfers& m) {
  boost::mpi::communicator self(MPI_COMM_SELF, boost::mpi::comm_attach);
  pdes::EngineOptions o;
  o.progress_interval_s = 0;
  return pdes::run(m, m.partition(1), self, o);
}

TEST(Ramp, SlotPayloadIs950BytesAtTheReferencePoint) {
  EXPECT_EQ(ramp_slot_bytes(RampSpec{}), 950u);  // RAMP §4.1
}

TEST(Ramp, ATransferTakesIoPropagationAndWholeSlots) {
  const RampSpec s = small();
  auto net = make_ramp(s);
  for (std::uint64_t bytes : {0ull, 1ull, 950ull, 951ull, 100'000ull}) {
    Transfers m(*net, {{node(0, 0, 1, s), node(1, 1, 5, s), bytes}});
    simulate(m);
    ASSERT_EQ(m.delivered_at.size(), 1u);
    const std::uint64_t slots = std::max<std::uint64_t>(1, (bytes + 949) / 950);
    EXPECT_EQ(m.delivered_at[0].second, 100 * kNanosecond + 1300 * kNanosecond + slots * 20'000);
    EXPECT_EQ(m.delivered_at[0].second, net->uncongested_ps(0, 0, bytes));
  }
}

TEST(Ramp, TheTransceiversOfAGroupShareAMessage) {
  const RampSpec s = small(false, 4);
  auto net = make_ramp(s);
  Transfers m(*net, {{node(0, 0, 1, s), node(1, 1, 5, s), 4 * 950}});
  simulate(m);
  ASSERT_EQ(m.delivered_at.size(), 1u);  // four parts, one delivery
  EXPECT_EQ(m.delivered_at[0].second, (100 + 1300 + 20) * kNanosecond);
}

// Two transmitters of group 0 on transceiver 1 (eq. 2) towards two racks of
// group 1 on the same wavelength: one wavelength, one subnet, same slots.
std::vector<Transfer> rule_c_conflict(const RampSpec& s) {
  return {{node(0, 0, 1, s), node(1, 1, 5, s), 1000}, {node(0, 0, 2, s), node(1, 2, 5, s), 1000}};
}
// Two senders on different subnets into the same receiving transceiver.
std::vector<Transfer> rule_b_conflict(const RampSpec& s) {
  return {{node(0, 0, 1, s), node(1, 1, 5, s), 1000}, {node(2, 2, 3, s), node(1, 1, 5, s), 1000}};
}

TEST(Ramp, RuleCViolationStopsTheRun) {
  const RampSpec s = small();
  auto net = make_ramp(s);
  Transfers m(*net, rule_c_conflict(s));
  try {
    simulate(m);
    FAIL() << "the conflict went unnoticed";
  } catch (const pdes::EngineError& e) {
    EXPECT_NE(
        std::string(e.what()).find("optical rule (c) violated: wavelength 5 of subnet (0, 1, 1)"),
        std::string::npos)
        << e.what();
  }
}

TEST(Ramp, RuleBViolationStopsTheRun) {
  const RampSpec s = small();
  auto net = make_ramp(s);
  Transfers m(*net, rule_b_conflict(s));
  try {
    simulate(m);
    FAIL() << "the conflict went unnoticed";
  } catch (const pdes::EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("optical rule (b) violated: receiver transceiver 1"),
              std::string::npos)
        << e.what();
  }
}

TEST(Ramp, PermissiveModeSerialisesAndCounts) {
  for (int rule = 0; rule < 2; ++rule) {
    const RampSpec s = small(true);
    auto net = make_ramp(s);
    Transfers m(*net, rule == 0 ? rule_c_conflict(s) : rule_b_conflict(s));
    simulate(m);
    ASSERT_EQ(m.delivered_at.size(), 2u);
    const pdes::Time one = net->uncongested_ps(0, 0, 1000);
    const pdes::Time slots = 2 * 20 * kNanosecond;  // 1000 B = 2 slots
    EXPECT_EQ(std::min(m.delivered_at[0].second, m.delivered_at[1].second), one);
    EXPECT_EQ(std::max(m.delivered_at[0].second, m.delivered_at[1].second), one + slots);
    const std::uint64_t b = net->counter("rule_b_conflicts"), c = net->counter("rule_c_conflicts");
    EXPECT_EQ(rule == 0 ? c : b, 1u);
    EXPECT_EQ(rule == 0 ? b : c, 0u);
  }
}

// RAMP §6.2.2 eq. 3-5: with a job of 4 x 2 members (steps 1 and 2), a step-2 pair (a
// subgroup of d = 2) uses 1 + 1 transceiver groups, t0 and t0 + 2 (eq. 3 allows 2 extra,
// t0 + 4 = t0 mod 4), each carrying half the bytes; other pairs use one group.
TEST(Ramp, AJobsSmallSubgroupsUseExtraTransceiverGroups) {
  RampSpec s = small();
  s.job = fabric::ramp::shape_for(4, 4, 2, 8);
  ASSERT_EQ(s.job->active[1], 2u);
  auto net = make_ramp(s);
  auto plain = make_ramp(small());
  const std::uint32_t a = node(0, 0, 0, s), b = node(1, 0, 1, s);  // offsets c2 = 0 -> 1
  const std::uint32_t c = node(1, 0, 0, s);                        // c1 = 0 -> 1: step 1, d = 4
  for (std::uint64_t bytes : {1ull, 950ull, 1900ull, 1901ull, 100'000ull}) {
    Transfers m(*net, {{a, b, bytes}});
    simulate(m);
    ASSERT_EQ(m.delivered_at.size(), 1u);  // two parts, one delivery
    const std::uint64_t slots = std::max<std::uint64_t>(1, ((bytes + 1) / 2 + 949) / 950);
    EXPECT_EQ(m.delivered_at[0].second, (100 + 1300) * kNanosecond + slots * 20'000) << bytes;
    EXPECT_EQ(m.delivered_at[0].second, net->uncongested_ps(a, b, bytes));
    EXPECT_EQ(net->uncongested_ps(a, c, bytes), plain->uncongested_ps(a, c, bytes));
    EXPECT_EQ(net->counter("transfers"), 2u);
  }
  // Eq. 5: the pair's rate is (1 + #TRX_additional) groups of b transceivers.
  EXPECT_EQ(net->path_rate_bps(a, b), 2 * plain->path_rate_bps(a, b));
  EXPECT_EQ(net->path_rate_bps(a, c), plain->path_rate_bps(a, c));
  EXPECT_EQ(net->injection_ps(a, b, 100'000), (100 + 53 * 20) * kNanosecond);
  // A job that does not fit the fabric is refused.
  s.job->active[2] = 5;
  EXPECT_THROW(make_ramp(s), std::invalid_argument);
  s.job = fabric::ramp::full_job(4, 4, 4);
  EXPECT_THROW(make_ramp(s), std::invalid_argument);
}

TEST(Ramp, InvalidGeometriesAreRejected) {
  RampSpec s = small();
  s.J = 5;
  EXPECT_THROW(make_ramp(s), std::invalid_argument);
  s = small();
  s.Lambda = 6;
  EXPECT_THROW(make_ramp(s), std::invalid_argument);
  s = small();
  s.reconfiguration = s.slot;
  EXPECT_THROW(make_ramp(s), std::invalid_argument);
}

}  // namespace
}  // namespace sipsim::fabric

int main(int argc, char** argv) {
  boost::mpi::environment env(argc, argv, false);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
