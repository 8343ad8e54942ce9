#pragma once
// One message on an idle routed (or any) fabric: the simulation's delivery
// time must be the fabric's closed form, uncongested_ps. Shared by the
// transport tests of every fabric.
#include <gtest/gtest.h>

#include <boost/mpi/communicator.hpp>
#include <cstdint>

#include "sipsim/fabric/network.hpp"
#include "sipsim/pdes/engine.hpp"

namespace sipsim::fabric::testing {

// Node `from` sends one message to `to` at t = 0; records the delivery time.
// Not a FabricModel: it leaves a controller's epochs out, so on a circuit
// fabric the message takes the first plan, which the closed form quotes.
class OneMessage final : public pdes::Model, public MessageSink {
 public:
  OneMessage(Network& net, std::uint32_t from, std::uint32_t to, std::uint64_t bytes)
      : net_(net), from_(from), to_(to), bytes_(bytes) {}
  std::uint32_t lp_count() const override { return net_.lp_count(); }
  pdes::Partition partition(int ranks) const override { return net_.partition(ranks); }
  pdes::Time lookahead(const pdes::Partition& p) const override { return net_.lookahead(p); }
  void setup(const pdes::Partition& p, int rank) override { net_.setup(p, rank); }
  void init(pdes::Context& ctx) override {
    if (ctx.self() == from_) tx_done = net_.send(ctx, to_, bytes_, 42);
  }
  void handle(const pdes::Event& e, pdes::Context& ctx) override { net_.handle(e, ctx, *this); }
  void delivered(const Delivery& d, pdes::Context& ctx) override {
    EXPECT_EQ(d.src_node, from_);
    EXPECT_EQ(d.bytes, bytes_);
    EXPECT_EQ(d.tag, 42u);
    EXPECT_EQ(ctx.self(), to_);
    delivered_at = ctx.now();
    ++deliveries;
  }
  pdes::Time tx_done = 0, delivered_at = 0;
  int deliveries = 0;

 private:
  Network& net_;
  std::uint32_t from_, to_;
  std::uint64_t bytes_;
};

inline void expect_exact(Network& net, std::uint32_t a, std::uint32_t b, std::uint64_t bytes) {
  boost::mpi::communicator self(MPI_COMM_SELF, boost::mpi::comm_attach);
  OneMessage m(net, a, b, bytes);
  pdes::EngineOptions o;
  o.progress_interval_s = 0;
  pdes::run(m, m.partition(1), self, o);
  ASSERT_EQ(m.deliveries, 1) << a << "->" << b << " " << bytes;
  EXPECT_EQ(m.delivered_at, net.uncongested_ps(a, b, bytes)) << a << "->" << b << " " << bytes;
}

}  // namespace sipsim::fabric::testing
