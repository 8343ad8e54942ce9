#include "sipsim/collective/step_cost.hpp"

#include "registry.hpp"

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

pdes::Time transfer_ps(const fabric::CostModel& network, std::uint32_t a, std::uint32_t b,
                       std::uint64_t bytes) {
  return fabric::serialization_ps(bytes, network.path_rate_bps(a, b));
}

namespace {
// Duration of one member's step on an idle fabric, its transfers in parallel.
pdes::Time parallel_step_ps(const Schedule& sched, std::uint32_t i,
                            const std::vector<std::uint32_t>& members,
                            const fabric::CostModel& network, const compute::Device& device) {
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
                                        const fabric::CostModel& network,
                                        const compute::Device& device) {
  std::vector<pdes::Time> rounds;
  const detail::AlgorithmRow& row = detail::row(spec.algorithm);
  if (!row.traits.lockstep) return rounds;
  std::vector<std::uint32_t> who;
  if (row.round_members != nullptr) {
    who = row.round_members(spec);
  } else {
    who.resize(spec.p);
    for (std::uint32_t m = 0; m < spec.p; ++m) who[m] = m;
  }
  for (std::uint32_t m : who) {
    const Schedule sched(spec, m);
    if (rounds.size() < sched.steps()) rounds.resize(sched.steps(), 0);
    for (std::uint32_t i = 0; i < sched.steps(); ++i) {
      rounds[i] = std::max(rounds[i], parallel_step_ps(sched, i, members, network, device));
    }
  }
  return rounds;
}

}  // namespace sipsim::collective
