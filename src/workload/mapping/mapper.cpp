// The mappers (mapping/mapper.hpp): contiguous, folded ring and RAMP sub-box.
#include "sipsim/workload/mapping/mapper.hpp"

#include <algorithm>
#include <cassert>

#include "sipsim/collective/ramp_x.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"
#include "sipsim/workload/mapping/ring_fold.hpp"

namespace sipsim::workload::mapping {

namespace {

collective::Dims dims_of(const std::vector<std::uint32_t>& v) {
  assert(v.size() <= collective::kMaxLevels);
  collective::Dims d{};
  std::copy(v.begin(), v.end(), d.begin());
  return d;
}

// SiP-Ring (fabric::Facts::ring_order): every axis folded.
class FoldedRingMapper final : public Mapper {
 public:
  using Mapper::Mapper;
  AxesMapping map_axes(std::span<const std::uint32_t> sizes) const override {
    AxesMapping m = Mapper::map_axes(sizes);
    m.nodes = folded_nodes(sizes, fabric_.nodes());
    m.folded = true;
    return m;
  }
};

// RAMP §6.3: a job of n nodes takes the sub-box of the network that
// activates the fewest RAMP-x steps; a training job's axes each take a
// factor of every step (fabric/ramp/placement.hpp), each group then a RAMP-x
// job of its own shape.
class SubBoxMapper final : public Mapper {
 public:
  SubBoxMapper(const fabric::Plugin& fabric, const fabric::ramp::SubBoxes& boxes)
      : Mapper(fabric), boxes_(boxes) {}

  std::optional<GroupPlacement> place_group(
      std::uint32_t n, const collective::AlgorithmParams& params) const override {
    const fabric::ramp::RampShape shape = fabric::ramp::shape_for(boxes_.x, boxes_.J, boxes_.D, n);
    GroupPlacement out{fabric::ramp::job_nodes(shape), collective::algorithm("ramp-x"), params, {}};
    collective::ramp_x::set_job(out.params, shape, boxes_.stage_latency_ps, boxes_.stage_rate_bps);
    out.service.job = shape;
    return out;
  }

  AxesMapping map_axes(std::span<const std::uint32_t> sizes) const override {
    const auto placed = fabric::ramp::place_axes(boxes_.x, boxes_.J, boxes_.D, sizes);
    if (!placed) return Mapper::map_axes(sizes);
    AxesMapping m = Mapper::map_axes(sizes);
    m.nodes = placed->nodes;
    m.algorithm = collective::algorithm("ramp-x");
    for (std::size_t a = 0; a < sizes.size(); ++a) {
      collective::ramp_x::set_job(m.params[a], placed->axis_shape(a));
    }
    m.service.job = placed->job;
    if (!sizes.empty()) {
      const auto& t = placed->axis_shape(0).active;
      m.service.inner = std::array<std::uint32_t, 4>{t[0], t[1], t[2], t[3]};
    }
    return m;
  }

 private:
  fabric::ramp::SubBoxes boxes_;
};

}  // namespace

collective::Dims most_square(std::uint32_t p) {
  std::uint32_t a = 1;
  for (std::uint32_t d = 1; std::uint64_t{d} * d <= p; ++d) {
    if (p % d == 0) a = d;
  }
  collective::Dims dims{};
  dims[0] = a;
  dims[1] = p / a;
  return dims;
}

collective::AlgorithmParams Mapper::group_params(std::uint32_t p, bool contiguous) const {
  const fabric::GroupShape shape = fabric_.group_shape(p, contiguous);
  collective::AlgorithmParams params;
  params.torus = shape.torus.empty() ? most_square(p) : dims_of(shape.torus);
  params.hierarchy = shape.levels.empty() ? params.torus : dims_of(shape.levels);
  return params;
}

AxesMapping Mapper::map_axes(std::span<const std::uint32_t> sizes) const {
  AxesMapping m;
  for (std::size_t a = 0; a < sizes.size(); ++a) m.params.push_back(group_params(sizes[a], a == 0));
  return m;
}

std::unique_ptr<Mapper> make_mapper(const fabric::Plugin& fabric) {
  const fabric::Facts facts = fabric.facts();
  if (facts.sub_boxes) return std::make_unique<SubBoxMapper>(fabric, *facts.sub_boxes);
  if (facts.ring_order) return std::make_unique<FoldedRingMapper>(fabric);
  return std::make_unique<Mapper>(fabric);
}

std::vector<std::uint32_t> folded_nodes(std::span<const std::uint32_t> sizes,
                                        std::uint32_t ring_nodes) {
  std::uint32_t gpus = 1;
  for (const std::uint32_t n : sizes) gpus *= n;
  std::vector<std::uint32_t> nodes(gpus);
  std::vector<std::uint32_t> slot(sizes.size());
  for (std::uint32_t g = 0; g < gpus; ++g) {
    std::uint32_t rest = g, span = 1;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const std::uint32_t n = sizes[i], r = rest % n;
      span *= n;
      // Groups that span the whole ring close around the fibre: straight.
      slot[i] = span == ring_nodes ? r : folded_slot(r, n);
      rest /= n;
    }
    // Outermost axis first: node = s0 + n0 * (s1 + n1 * s2).
    std::uint32_t node = 0;
    for (std::size_t i = sizes.size(); i-- > 0;) node = node * sizes[i] + slot[i];
    nodes[g] = node;
  }
  return nodes;
}

}  // namespace sipsim::workload::mapping
