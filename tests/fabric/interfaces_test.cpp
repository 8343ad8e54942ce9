// The interfaces a fabric is split into (Network, CostModel, Report, Epochs)
// and the logic they carry themselves: Report's default counters and its
// lookup by name, CostModel's default quote, FabricModel's forwarding.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "sipsim/fabric/cost_model.hpp"
#include "sipsim/fabric/epochs.hpp"
#include "sipsim/fabric/fabric_model.hpp"
#include "sipsim/fabric/flat/elect_flat.hpp"
#include "sipsim/fabric/network.hpp"
#include "sipsim/fabric/report.hpp"

namespace sipsim::fabric {
namespace {

using pdes::kNanosecond;

// A fabric is each of them: a Network passes as it is where an estimator asks
// for a CostModel (setup/ relies on it) or the run file's writer for a Report.
static_assert(std::is_convertible_v<const Network&, const CostModel&>);
static_assert(std::is_convertible_v<const Network&, const Report&>);
static_assert(std::is_convertible_v<Network&, Epochs&>);
static_assert(!std::is_convertible_v<const CostModel&, const Network&>);

class FakeReport final : public Report {
 public:
  std::string describe() const override { return "fake"; }
  std::vector<std::pair<std::string, std::string>> facts() const override { return {}; }
  NetworkStats& stats_to_set() { return stats_; }
};

TEST(Report, DefaultCountersAreTheStatsInOrder) {
  FakeReport r;
  r.stats_to_set() = {3, 4096, 7, 250};
  const std::vector<Report::Counter> c = r.counters();
  ASSERT_EQ(c.size(), 4u);
  const std::vector<std::string> names{"messages", "bytes", "chunk_hops", "max_queueing_ps"};
  const std::vector<std::uint64_t> values{3, 4096, 7, 250};
  for (std::size_t i = 0; i < c.size(); ++i) {
    EXPECT_EQ(c[i].name, names[i]);
    EXPECT_EQ(c[i].value, values[i]);
    EXPECT_EQ(c[i].max, i == 3) << c[i].name;  // the longest wait is the largest over ranks
    EXPECT_FALSE(c[i].wall);
  }
  EXPECT_EQ(r.counter("bytes"), 4096u);
  EXPECT_EQ(r.counter("max_queueing_ps"), 250u);
  EXPECT_THROW(r.counter("transfers"), std::out_of_range);
  EXPECT_FALSE(r.energy_pj_per_bit().known());
  EXPECT_TRUE(r.report_tables().empty());
}

// Each query answers something else, so a mix-up in the default shows.
class FakeCost final : public CostModel {
 public:
  pdes::Time uncongested_ps(std::uint32_t a, std::uint32_t b, std::uint64_t bytes) const override {
    return 1000 * a + 100 * b + bytes;
  }
  pdes::Time injection_ps(std::uint32_t a, std::uint32_t b, std::uint64_t bytes) const override {
    return 10 * a + b + 2 * bytes;
  }
  std::uint64_t node_rate_bps() const override { return 1; }
  std::uint64_t path_rate_bps(std::uint32_t a, std::uint32_t b) const override { return 7 + a * b; }
  std::uint32_t resource_count() const override { return 16; }
  void path_resources(std::uint32_t a, std::uint32_t b, std::vector<Resource>& out) const override {
    out.push_back({a, 5});
    out.push_back({8 + b, 6});
  }
};

TEST(CostModel, DefaultQuoteIsTheFourQueries) {
  const FakeCost f;
  std::vector<CostModel::Resource> res{{15, 1}};  // appended after
  const CostModel::PathQuote q = f.quote(2, 3, 40, &res);
  EXPECT_EQ(q.injection, f.injection_ps(2, 3, 40));
  EXPECT_EQ(q.uncongested, f.uncongested_ps(2, 3, 40));
  EXPECT_EQ(q.rate_bps, f.path_rate_bps(2, 3));
  ASSERT_EQ(res.size(), 3u);
  EXPECT_EQ(res[1].id, 2u);
  EXPECT_EQ(res[2].id, 11u);
  EXPECT_EQ(f.quote(2, 3, 40, nullptr).injection, q.injection);
  EXPECT_EQ(f.run_space(), 0u);  // no runs by default: the callers quote
  CostModel::PathQuote r;
  std::vector<CostModel::PathRun> runs;
  EXPECT_FALSE(f.quote_runs(2, 3, 40, r, runs));
  EXPECT_TRUE(runs.empty());
  EXPECT_FALSE(f.parallel_ports());
}

// A model on a fabric answers the kernel with the fabric's answers.
class Idle final : public FabricModel {
 public:
  using FabricModel::FabricModel;
  void init(pdes::Context&) override {}
  void handle(const pdes::Event&, pdes::Context&) override {}
};

TEST(FabricModel, ForwardsToTheFabric) {
  const std::unique_ptr<Network> net = make_elect_flat(6, 400'000'000'000, 700 * kNanosecond);
  Idle m(*net);
  EXPECT_EQ(m.lp_count(), 6u);
  const pdes::Partition p = m.partition(2);
  EXPECT_EQ(p.lps_of(0).size() + p.lps_of(1).size(), 6u);
  EXPECT_EQ(m.lookahead(p), net->lookahead(p));
  EXPECT_EQ(m.next_epoch(0), pdes::kTimeMax);  // elect-flat has no controller
  EXPECT_EQ(m.epoch_counters(), 0u);
  EXPECT_FALSE(m.bounds_remote_events());  // the model's to say, not forwarded
}

}  // namespace
}  // namespace sipsim::fabric
