// SiPAC: structure, digit-correcting routes over direct lightpaths, exact
// single-message times on the routed fabric, and the section's errors.
#include "sipsim/fabric/sip/sipac.hpp"

#include <gtest/gtest.h>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../routed/one_message.hpp"
#include "../routed/topology_checks.hpp"
#include "read_section.hpp"
#include "sipsim/base/units.hpp"
#include "sipsim/fabric/routed/plugin.hpp"
#include "sipsim/fabric/routed/routed_network.hpp"
#include "sipsim/fabric/sip/plugin.hpp"
#include "sipsim/pdes/engine.hpp"

namespace sipsim::fabric {
namespace {

using namespace testing;
using pdes::kNanosecond;

SipacSpec MakeSpec(std::uint32_t r, std::uint32_t l) {
  SipacSpec s;
  s.ports = r;
  s.level = l;
  s.bandwidth_bps = 2'048'000'000'000;
  s.wss_latency = 20 * kNanosecond;
  s.propagation = 5 * kNanosecond;
  return s;
}

std::uint32_t Hamming(std::uint32_t a, std::uint32_t b, std::uint32_t r, std::uint32_t digits) {
  std::uint32_t h = 0;
  for (std::uint32_t k = 0; k < digits; ++k, a /= r, b /= r) h += a % r != b % r;
  return h;
}

class SipacTest : public ::testing::TestWithParam<std::pair<std::uint32_t, std::uint32_t>> {};

TEST_P(SipacTest, StructureRoutingGroups) {
  const auto [r, l] = GetParam();
  const auto t = make_sipac(MakeSpec(r, l));
  std::uint32_t units = 1;
  for (std::uint32_t k = 0; k <= l; ++k) units *= r;
  const std::uint32_t degree = (l + 1) * (r - 1);
  EXPECT_EQ(t->nodes(), units);
  EXPECT_EQ(t->switches(), 0u);  // the WSS are passive: no vertices
  EXPECT_EQ(t->links().size(), std::size_t{units} * degree);
  EXPECT_EQ(sipac_units(MakeSpec(r, l)), units);
  ExpectWellFormed(*t);
  // Each unit's lightpaths go to exactly the units one digit away, at
  // bandwidth / ((l+1)(r-1)) and propagation + WSS latency.
  const std::uint64_t rate = 2'048'000'000'000 / degree;
  EXPECT_EQ(sipac_lightpath_rate_bps(MakeSpec(r, l)), rate);
  for (Vertex v = 0; v < units; ++v) {
    std::set<Vertex> actual;
    for (LinkId id : t->out_links(v)) {
      actual.insert(t->link(id).to);
      EXPECT_EQ(t->link(id).rate_bps, rate);
      EXPECT_EQ(t->link(id).latency, 25 * kNanosecond);
    }
    std::set<Vertex> expected;
    for (Vertex w = 0; w < units; ++w) {
      if (Hamming(v, w, r, l + 1) == 1) expected.insert(w);
    }
    EXPECT_EQ(actual.size(), degree);
    EXPECT_EQ(actual, expected) << "unit " << v;
  }
  ExpectShortestRoutes(*t, 1);
  ExpectRoutesFromEveryVertex(*t);
  for (Vertex a = 0; a < units; ++a) {
    for (Vertex b = 0; b < units; ++b) {
      if (a == b) continue;
      // The first hop fixes the highest differing digit (and only it).
      std::uint32_t top = 0, pow = 1, top_pow = 1;
      for (std::uint32_t x = a, y = b, k = 0; k <= l; ++k, x /= r, y /= r, pow *= r) {
        if (x % r != y % r) top = k, top_pow = pow;
      }
      const Vertex next = t->link(t->next_link(a, b, 7)).to;
      EXPECT_EQ(Hamming(a, next, r, l + 1), 1u);
      EXPECT_EQ(next / top_pow % r, b / top_pow % r) << a << " -> " << b << " digit " << top;
      // One lightpath per differing digit.
      EXPECT_EQ(Route(*t, a, b, 0).size(), Hamming(a, b, r, l + 1));
    }
  }
  ExpectGroupsInRange(*t);
  EXPECT_EQ(t->groups(), r);
  for (Vertex v = 0; v < units; ++v) EXPECT_EQ(t->group_of(v), v / (units / r));
  ExpectSameFabric(*t, *make_sipac(MakeSpec(r, l)));
}

INSTANTIATE_TEST_SUITE_P(Small, SipacTest,
                         ::testing::Values(std::make_pair(2u, 1u), std::make_pair(2u, 2u),
                                           std::make_pair(3u, 1u), std::make_pair(3u, 2u),
                                           std::make_pair(4u, 1u), std::make_pair(4u, 2u),
                                           std::make_pair(8u, 1u)));

TEST(Sipac, PaperScaleCounts) {
  // Paper §4: 512 CUs = SiPAC_2 of 8-port WSS; 3 x 64 WSS, 21 neighbours each.
  const auto t = make_sipac(MakeSpec(8, 2));
  EXPECT_EQ(t->nodes(), 512u);
  EXPECT_EQ(t->links().size(), 512u * 21u);
  EXPECT_EQ(Route(*t, 0, 511, 0).size(), 3u);  // diameter l + 1
}

TEST(Sipac, DescribeAndInvalidSpecs) {
  EXPECT_EQ(make_sipac(MakeSpec(4, 1))->describe(),
            "sipac: SiPAC_1(r=4), 16 units with 2 ports, 2 x 4 WSS of 4 ports, 6 direct "
            "neighbours per unit, " +
                base::format_bandwidth_bps(2'048'000'000'000 / 6) + " per lightpath (" +
                base::format_bandwidth_bps(2'048'000'000'000) + " per unit)");
  ExpectInvalid([] { make_sipac(MakeSpec(1, 2)); }, "ports (r) must be >= 2 (got 1)");
  ExpectInvalid([] { make_sipac(MakeSpec(4, 0)); }, "level (l) must be >= 1");
  ExpectInvalid([] { make_sipac(MakeSpec(1024, 3)); }, "ports 1024 and level 3");
  SipacSpec s = MakeSpec(4, 1);
  s.bandwidth_bps = 5;  // < 6 lightpaths
  ExpectInvalid([s] { make_sipac(s); }, "bandwidth must give > 0 bps per lightpath");
}

// ---------------------------------------------------------------------------
// Transport: one message on an idle SiPAC arrives when uncongested_ps says.

TEST(SipacTransport, SingleMessagesArriveWhenUncongestedSays) {
  // SiPAC_1(r=4) at 600 Gb/s per unit: 100 Gb/s per lightpath, 25 ns per hop.
  SipacSpec s = MakeSpec(4, 1);
  s.bandwidth_bps = 600'000'000'000;
  // One hop (0 -> 3, digit 0): latency + one serialisation of 1000 B at 100 Gb/s.
  auto one = make_routed(make_sipac(s), 1 << 20);
  EXPECT_EQ(one->uncongested_ps(0, 3, 1000), 25 * kNanosecond + 80 * kNanosecond);
  for (const Forwarding fw : {Forwarding::kStoreAndForward, Forwarding::kCutThrough}) {
    auto net = make_routed(make_sipac(s), 4096, 100 * kNanosecond, fw);
    for (const std::uint64_t bytes : {0ull, 1000ull, 4096ull, 50'000ull}) {
      expect_exact(*net, 0, 3, bytes);   // one lightpath
      expect_exact(*net, 0, 15, bytes);  // relayed by unit 12 (digit 1 first)
      expect_exact(*net, 9, 6, bytes);
    }
  }
  // Store-and-forward over two lightpaths, one chunk: two serialisations.
  auto saf = make_routed(make_sipac(s), 1 << 20);
  EXPECT_EQ(saf->uncongested_ps(0, 15, 1000), 2 * (25 + 80) * kNanosecond);
  expect_exact(*saf, 0, 15, 1000);
}

// ---------------------------------------------------------------------------
// The section reader: every error names its key and position.

SipacSpec Read(const std::string& section) {
  return testing::read_section(section, read_sipac);
}
std::string ErrorOf(const std::string& section) {
  return testing::section_error(section, read_sipac, "");
}

TEST(SipacConfig, ReadsTheKeys) {
  const SipacSpec s =
      Read("{ports: 8, level: 2, bandwidth: 2048Gbps, wss_latency: 20ns, propagation: 10ns}");
  EXPECT_EQ(s.ports, 8u);
  EXPECT_EQ(s.level, 2u);
  EXPECT_EQ(s.bandwidth_bps, 2'048'000'000'000u);
  EXPECT_EQ(s.wss_latency, 20 * kNanosecond);
  EXPECT_EQ(s.propagation, 10 * kNanosecond);
  EXPECT_EQ(sipac_units(s), 512u);
  const SipacSpec d = Read("{ports: 2, level: 1, bandwidth: 1Gbps}");
  EXPECT_EQ(d.wss_latency, 0u);
  EXPECT_EQ(d.propagation, 0u);
}

// A contiguous group's levels are its WSS digit groups (the multicast trees' hierarchy), as
// BCube's are its switches'; a size the radix does not divide, or a strided group, has none.
TEST(SipacPlugin, GroupLevelsAreDigitGroups) {
  const auto sipac = testing::read_section("{type: sipac, ports: 8, level: 2, bandwidth: 2048Gbps}",
                                           [](base::MapReader& f) {
                                             f.required("type");
                                             return sipac_plugin(f);
                                           });
  using Levels = std::vector<std::uint32_t>;
  EXPECT_EQ(sipac->group_shape(512, true).levels, (Levels{8, 8, 8}));
  EXPECT_EQ(sipac->group_shape(64, true).levels, (Levels{8, 8}));
  EXPECT_EQ(sipac->group_shape(128, true).levels, (Levels{8, 8, 2}));
  EXPECT_EQ(sipac->group_shape(8, true).levels, (Levels{8}));
  EXPECT_TRUE(sipac->group_shape(100, true).levels.empty());
  EXPECT_TRUE(sipac->group_shape(64, false).levels.empty());
  EXPECT_EQ(digit_levels(4096, 8, 3, true).levels, (Levels{8, 8, 64}));
  EXPECT_EQ(digit_levels(48, 4, 3, true).levels, (Levels{4, 4, 3}));
  EXPECT_EQ(digit_levels(48, 4, 2, true).levels, (Levels{4, 12}));
}

TEST(SipacConfig, ErrorsAreLocated) {
  EXPECT_EQ(
      ErrorOf("{ports: 1, level: 1, bandwidth: 1Gbps}").rfind("s.yaml:1:17: fabric.ports:", 0), 0u)
      << ErrorOf("{ports: 1, level: 1, bandwidth: 1Gbps}");
  EXPECT_NE(ErrorOf("{ports: 4, level: 0, bandwidth: 1Gbps}").find("fabric.level:"),
            std::string::npos);
  EXPECT_NE(ErrorOf("{ports: 4, level: 1}").find("bandwidth"), std::string::npos);
  EXPECT_NE(ErrorOf("{ports: 4, level: 1, bandwidth: 0Gbps}").find("fabric.bandwidth:"),
            std::string::npos);
  const std::string huge = ErrorOf("{ports: 64, level: 4, bandwidth: 1Gbps}");
  EXPECT_NE(huge.find("fabric.level:"), std::string::npos) << huge;
  EXPECT_NE(huge.find("2^24 units"), std::string::npos) << huge;
  const std::string thin = ErrorOf("{ports: 4, level: 1, bandwidth: 5bps}");
  EXPECT_NE(thin.find("fabric.bandwidth:"), std::string::npos) << thin;
  EXPECT_NE(thin.find("per lightpath"), std::string::npos) << thin;
  const std::string typo = ErrorOf("{ports: 4, level: 1, bandwidth: 1Gbps, wss_latncy: 1ns}");
  EXPECT_NE(typo.find("fabric.wss_latncy: unknown key"), std::string::npos) << typo;
}

}  // namespace
}  // namespace sipsim::fabric

int main(int argc, char** argv) {
  boost::mpi::environment env(argc, argv, false);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
