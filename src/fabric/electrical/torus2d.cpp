// 2D torus with dimension-order routing (RAMP §7.5 compares a 2D torus of
// 128 x 512 nodes, the RAMP paper). Nodes relay;
// no switches.
#include "sipsim/fabric/electrical/torus2d.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sipsim/base/units.hpp"

namespace sipsim::fabric {
namespace {

class Torus2d final : public Topology {
 public:
  explicit Torus2d(const Torus2dSpec& spec);

  LinkId next_link(Vertex at, Vertex dst, std::uint64_t flow) const override;
  bool route(Vertex a, Vertex b, std::uint64_t flow, std::vector<LinkId>& path) const override;
  std::uint32_t run_positions() const override { return 4 * nodes(); }
  LinkId run_link(std::uint32_t position) const override;
  bool route_runs(Vertex a, Vertex b, std::uint64_t flow,
                  std::vector<RouteRun>& runs) const override;
  std::uint32_t group_of(Vertex v) const override { return v < nodes() ? v / dim_x_ : 0; }
  std::uint32_t groups() const override { return dim_y_; }
  std::string describe() const override { return description_; }

 private:
  enum Dir : std::uint32_t { kXPlus = 0, kXMinus = 1, kYPlus = 2, kYMinus = 3 };

  // One hop along a ring of `size` from coordinate `from` towards `to` (!=).
  // Returns the direction offset: 0 = plus, 1 = minus, kEither = both shortest.
  static constexpr std::uint32_t kEither = 2;
  static std::uint32_t ring_dir(std::uint32_t from, std::uint32_t to, std::uint32_t size);
  // The direction next_link takes along a ring from `from` to `to` (!=) at
  // vertex v: 0 = plus, 1 = minus.
  static std::uint32_t direction(std::uint32_t from, std::uint32_t to, std::uint32_t size, Vertex v,
                                 Vertex dst, std::uint64_t flow) {
    const std::uint32_t dir = ring_dir(from, to, size);
    return dir == kEither ? static_cast<std::uint32_t>(ecmp_hash(v, dst, flow) & 1) : dir;
  }
  // next_link's hops along one dimension from v (updated) to coordinate `to`.
  void walk(Vertex& v, Vertex dst, std::uint64_t flow, std::uint32_t from, std::uint32_t to,
            std::uint32_t size, std::uint32_t plus, std::vector<LinkId>& path) const;

  std::uint32_t dim_x_;
  std::uint32_t dim_y_;
  std::vector<std::array<LinkId, 4>> nbr_;  // per node, indexed by Dir
  std::string description_;
};

Torus2d::Torus2d(const Torus2dSpec& spec) : dim_x_(spec.dims[0]), dim_y_(spec.dims[1]) {
  for (int d = 0; d < 2; ++d) {
    if (spec.dims[d] == 0) {
      throw std::invalid_argument("torus2d: dims[" + std::to_string(d) + "] must be >= 1 (got 0)");
    }
  }
  const std::uint64_t n = std::uint64_t{dim_x_} * dim_y_;
  if (n >= 0xffff'ffffULL) {
    std::ostringstream m;
    m << "torus2d: dims " << dim_x_ << "x" << dim_y_ << " = " << n
      << " nodes exceed 32-bit vertex ids";
    throw std::invalid_argument(m.str());
  }
  if (spec.link_rate_bps == 0) throw std::invalid_argument("torus2d: link_rate_bps must be > 0");
  const auto nodes = static_cast<std::uint32_t>(n);
  set_vertices(nodes, 0);
  nbr_.assign(nodes, {kNoLink, kNoLink, kNoLink, kNoLink});
  for (std::uint32_t y = 0; y < dim_y_; ++y) {
    for (std::uint32_t x = 0; x < dim_x_; ++x) {
      const Vertex v = y * dim_x_ + x;
      // Link v to its + neighbour in each dimension; the neighbour's - link is
      // the reverse. Size 2: + and - neighbours coincide, so only x = 0 adds
      // the single duplex link and both directions map to it. Size 1: none.
      if (dim_x_ > 2 || (dim_x_ == 2 && x == 0)) {
        const Vertex w = y * dim_x_ + (x + 1) % dim_x_;
        const LinkId l = add_duplex(v, w, spec.link_rate_bps, spec.hop_latency);
        nbr_[v][kXPlus] = l;
        nbr_[w][kXMinus] = l + 1;
        if (dim_x_ == 2) {
          nbr_[v][kXMinus] = l;
          nbr_[w][kXPlus] = l + 1;
        }
      }
      if (dim_y_ > 2 || (dim_y_ == 2 && y == 0)) {
        const Vertex w = ((y + 1) % dim_y_) * dim_x_ + x;
        const LinkId l = add_duplex(v, w, spec.link_rate_bps, spec.hop_latency);
        nbr_[v][kYPlus] = l;
        nbr_[w][kYMinus] = l + 1;
        if (dim_y_ == 2) {
          nbr_[v][kYMinus] = l;
          nbr_[w][kYPlus] = l + 1;
        }
      }
    }
  }
  finalize();
  std::ostringstream d;
  d << "torus2d: " << dim_x_ << "x" << dim_y_ << " = " << nodes << " nodes, "
    << base::format_bandwidth_bps(spec.link_rate_bps) << " links, hop latency "
    << base::format_time_ps(spec.hop_latency);
  description_ = d.str();
}

std::uint32_t Torus2d::ring_dir(std::uint32_t from, std::uint32_t to, std::uint32_t size) {
  const std::uint32_t fwd = to >= from ? to - from : to + size - from;  // hops going +
  const std::uint32_t bwd = size - fwd;                                 // hops going -
  if (fwd != bwd) return fwd < bwd ? 0 : 1;
  return kEither;  // exactly half way round: both shortest
}

LinkId Torus2d::next_link(Vertex at, Vertex dst, std::uint64_t flow) const {
  if (at >= nodes() || dst >= nodes() || at == dst) return kNoLink;
  const std::uint32_t ax = at % dim_x_;
  const std::uint32_t dx = dst % dim_x_;
  // Dimension order (x then y) keeps the route deterministic and minimal; the
  // ECMP hash picks a direction half way round (hashed only then: it is most
  // of a hop's cost).
  const bool along_x = ax != dx;
  std::uint32_t dir =
      along_x ? ring_dir(ax, dx, dim_x_) : ring_dir(at / dim_x_, dst / dim_x_, dim_y_);
  if (dir == kEither) dir = static_cast<std::uint32_t>(ecmp_hash(at, dst, flow) & 1);
  return nbr_[at][(along_x ? kXPlus : kYPlus) + dir];
}

// next_link's route in one go: along x, then y. A direction chosen half way
// round (by the hash at that vertex) is kept, as next_link keeps it: after one
// hop that way it is the shorter one.
bool Torus2d::route(Vertex a, Vertex b, std::uint64_t flow, std::vector<LinkId>& path) const {
  if (a >= nodes() || b >= nodes() || a == b) return false;
  Vertex v = a;
  walk(v, b, flow, a % dim_x_, b % dim_x_, dim_x_, kXPlus, path);
  walk(v, b, flow, v / dim_x_, b / dim_x_, dim_y_, kYPlus, path);
  return true;
}

void Torus2d::walk(Vertex& v, Vertex dst, std::uint64_t flow, std::uint32_t from, std::uint32_t to,
                   std::uint32_t size, std::uint32_t plus, std::vector<LinkId>& path) const {
  if (from == to) return;
  const std::uint32_t dir = direction(from, to, size, v, dst, flow);
  const std::uint32_t fwd = to >= from ? to - from : to + size - from;
  const std::uint32_t hops = dir == 0 ? fwd : size - fwd;
  for (std::uint32_t h = 0; h < hops; ++h) {
    const LinkId l = nbr_[v][plus + dir];
    path.push_back(l);
    v = link(l).to;
  }
}

// The run space: four blocks of nodes() positions, one per direction (x+,
// x-, y+, y-), each a ring per row (x) or column (y). Position k of a plus
// ring is the link leaving coordinate k; of a minus ring, the link leaving
// coordinate size - 1 - k, so that a run in either direction covers
// increasing positions. A ring of size 2 has one link per node pair, the
// plus ring's (the minus ring's positions name the same links, unused).
LinkId Torus2d::run_link(std::uint32_t position) const {
  if (position >= run_positions()) return kNoLink;
  const std::uint32_t block = position / nodes(), k = position % nodes();
  if (block < 2) {  // rows: y * dim_x + position
    const std::uint32_t y = k / dim_x_, p = k % dim_x_;
    const std::uint32_t x = block == 0 ? p : dim_x_ - 1 - p;
    return nbr_[y * dim_x_ + x][block == 0 ? kXPlus : kXMinus];
  }
  const std::uint32_t x = k / dim_y_, p = k % dim_y_;  // columns: x * dim_y + position
  const std::uint32_t y = block == 2 ? p : dim_y_ - 1 - p;
  return nbr_[y * dim_x_ + x][block == 2 ? kYPlus : kYMinus];
}

// route() in O(1): one run along the source's row, then one along the
// destination's column, each in the direction next_link takes at its first
// hop (and keeps, as route() does).
bool Torus2d::route_runs(Vertex a, Vertex b, std::uint64_t flow,
                         std::vector<RouteRun>& runs) const {
  if (a >= nodes() || b >= nodes() || a == b) return false;
  const std::uint32_t ax = a % dim_x_, ay = a / dim_x_, bx = b % dim_x_, by = b / dim_x_;
  auto run = [&](std::uint32_t from, std::uint32_t to, std::uint32_t size, Vertex v,
                 std::uint32_t plus_base, std::uint32_t minus_base) {
    if (from == to) return;
    const std::uint32_t fwd = to >= from ? to - from : to + size - from;
    if (size == 2 || direction(from, to, size, v, b, flow) == 0) {
      runs.push_back({plus_base, size, from, fwd});
    } else {
      runs.push_back({minus_base, size, size - 1 - from, size - fwd});
    }
  };
  run(ax, bx, dim_x_, a, ay * dim_x_, nodes() + ay * dim_x_);
  run(ay, by, dim_y_, ay * dim_x_ + bx, 2 * nodes() + bx * dim_y_, 3 * nodes() + bx * dim_y_);
  return true;
}

}  // namespace

std::unique_ptr<Topology> make_torus2d(const Torus2dSpec& spec) {
  return std::make_unique<Torus2d>(spec);
}

}  // namespace sipsim::fabric
