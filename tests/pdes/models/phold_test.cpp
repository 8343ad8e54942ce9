#include "sipsim/pdes/models/phold.hpp"

#include <gtest/gtest.h>

#include <boost/mpi/communicator.hpp>

#include "sipsim/pdes/engine.hpp"

namespace sipsim::pdes::models {
namespace {

// Wraps PHOLD to count what it sends to whom.
class Counting final : public Model {
 public:
  explicit Counting(const PholdConfig& c) : inner_(c) {}
  std::uint32_t lp_count() const override { return inner_.lp_count(); }
  Time lookahead(const Partition& p) const override { return inner_.lookahead(p); }
  void init(Context& ctx) override { inner_.init(ctx); }
  void handle(const Event& e, Context& ctx) override {
    ++events;
    if (e.src != e.dst) ++remote;
    inner_.handle(e, ctx);
  }
  std::uint64_t events = 0, remote = 0;

 private:
  PholdModel inner_;
};

RunResult run_seq(Model& m, Time end) {
  boost::mpi::communicator self(MPI_COMM_SELF, boost::mpi::comm_attach);
  EngineOptions o;
  o.end_time = end;
  o.progress_interval_s = 0;
  o.seed = 3;
  return run(m, partitioners::blocks(m.lp_count(), 1), self, o);
}

TEST(Phold, EventRateFollowsTheIncrementMean) {
  PholdConfig c;
  c.lps = 256;
  c.start_events_per_lp = 2;
  c.lookahead = kMicrosecond;
  c.mean_increment = kMicrosecond;
  Counting m(c);
  const auto r = run_seq(m, 2000 * kMicrosecond);
  // Each of the 512 event chains advances by 1 us + Exp(1 us) per hop: about
  // 1000 hops each in 2000 us.
  EXPECT_NEAR(static_cast<double>(r.committed_events), 512'000.0, 512'000.0 * 0.02);
}

TEST(Phold, RemoteFractionIsRespected) {
  for (double f : {0.0, 0.25, 1.0}) {
    PholdConfig c;
    c.lps = 64;
    c.remote_fraction = f;
    Counting m(c);
    run_seq(m, 5000 * kMicrosecond);
    const double measured = static_cast<double>(m.remote) / static_cast<double>(m.events);
    EXPECT_NEAR(measured, f, 0.01) << "remote_fraction " << f;
  }
}

TEST(Phold, SingleLpOnlySendsToItself) {
  PholdConfig c;
  c.lps = 1;
  c.remote_fraction = 1.0;
  Counting m(c);
  const auto r = run_seq(m, 100 * kMicrosecond);
  EXPECT_GT(r.committed_events, 0u);
  EXPECT_EQ(m.remote, 0u);
}

}  // namespace
}  // namespace sipsim::pdes::models
