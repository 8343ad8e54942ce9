#include "sipsim/collective/step_cost.hpp"

namespace sipsim::collective {

pdes::Time local_ps(const WireStep& step, const compute::Device& device) {
  switch (step.local) {
    case LocalOp::kReduce:
      return device.reduce_ps(step.sources, step.local_bytes);
    case LocalOp::kCopy:
      return device.copy_ps(step.local_bytes);
    case LocalOp::kNone:
      return 0;
  }
  return 0;
}

pdes::Time transfer_ps(const fabric::Network& network, std::uint32_t a, std::uint32_t b,
                       std::uint64_t bytes) {
  return fabric::serialization_ps(bytes, network.path_rate_bps(a, b));
}

namespace {
// Duration of one member's step on an idle fabric, its transfers in parallel.
pdes::Time parallel_step_ps(const Schedule& sched, std::uint32_t i,
                            const std::vector<std::uint32_t>& members,
                            const fabric::Network& network, const compute::Device& device) {
  if (i >= sched.steps()) return 0;
  const WireStep step = wire_step(sched, i);
  const std::uint32_t self = members[sched.member()];
  pdes::Time longest = 0;
  for (const WireMessage& m : step.out) {
    longest = std::max(longest, network.injection_ps(self, members[m.peer], m.bytes));
  }
  for (const WireMessage& m : step.in) {
    longest = std::max(longest, network.uncongested_ps(members[m.peer], self, m.bytes));
  }
  return longest + local_ps(step, device);
}
}  // namespace

std::vector<pdes::Time> lockstep_rounds(const CollectiveSpec& spec,
                                        const std::vector<std::uint32_t>& members,
                                        const fabric::Network& network,
                                        const compute::Device& device) {
  std::vector<pdes::Time> rounds;
  if (!traits(spec.algorithm).lockstep) return rounds;
  const fabric::ramp::RampShape& shape = spec.ramp;
  const fabric::ramp::Offsets root = fabric::ramp::offsets_of_member(spec.root, shape);
  for (unsigned mask = 0; mask < 16; ++mask) {
    fabric::ramp::Offsets rep = root;
    for (unsigned k = 0; k < 4; ++k) {
      if ((mask >> k & 1u) && shape.active[k] > 1) rep[k] = (root[k] + 1) % shape.active[k];
    }
    const Schedule sched(spec, fabric::ramp::member_of_offsets(rep, shape));
    if (rounds.size() < sched.steps()) rounds.resize(sched.steps(), 0);
    for (std::uint32_t i = 0; i < sched.steps(); ++i) {
      rounds[i] = std::max(rounds[i], parallel_step_ps(sched, i, members, network, device));
    }
  }
  return rounds;
}

}  // namespace sipsim::collective
