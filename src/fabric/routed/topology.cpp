// Topology base: link storage, CSR adjacency and the ECMP hash shared by all
// routed fabrics (see include/sipsim/fabric/routed/topology.hpp).
#include "sipsim/fabric/routed/topology.hpp"

#include <limits>
#include <sstream>
#include <stdexcept>

namespace sipsim::fabric {

std::span<const LinkId> Topology::out_links(Vertex v) const {
  if (v >= vertices() || out_start_.empty()) return {};
  return std::span<const LinkId>(out_.data() + out_start_[v], out_start_[v + 1] - out_start_[v]);
}

bool Topology::route(Vertex a, Vertex b, std::uint64_t flow, std::vector<LinkId>& path) const {
  const std::size_t begin = path.size();
  for (Vertex v = a; v != b;) {
    const LinkId l = next_link(v, b, flow);
    if (l == kNoLink || path.size() - begin > vertices()) {
      path.resize(begin);
      return false;
    }
    path.push_back(l);
    v = links_[l].to;
  }
  return true;
}

std::vector<LinkId> Topology::links_at(Vertex v) const {
  std::vector<LinkId> out;
  for (const LinkId id : out_links(v)) {
    out.push_back(id);
    for (const LinkId back : out_links(links_[id].to)) {
      if (links_[back].to == v) out.push_back(back);
    }
  }
  return out;
}

void Topology::set_vertices(std::uint32_t nodes, std::uint32_t switches) {
  // Vertex ids must leave kNoLink-sized headroom and fit in 32 bits.
  if (std::uint64_t{nodes} + switches >= std::numeric_limits<Vertex>::max()) {
    std::ostringstream msg;
    msg << "topology: " << nodes << " nodes + " << switches
        << " switches exceed the 32-bit vertex id space";
    throw std::invalid_argument(msg.str());
  }
  nodes_ = nodes;
  switches_ = switches;
  links_.clear();
  out_start_.clear();
  out_.clear();
}

LinkId Topology::add_link(Vertex from, Vertex to, std::uint64_t rate_bps, pdes::Time latency) {
  // Builders only call this with computed ids, so a bad id is a bug, not a spec error.
  if (from >= vertices() || to >= vertices() || from == to) {
    std::ostringstream msg;
    msg << "topology: bad link " << from << " -> " << to << " (" << vertices() << " vertices)";
    throw std::logic_error(msg.str());
  }
  if (links_.size() >= kNoLink - 1) {
    throw std::invalid_argument("topology: more than 2^32 - 2 links");
  }
  links_.push_back(Link{from, to, rate_bps, latency});
  return static_cast<LinkId>(links_.size() - 1);
}

LinkId Topology::add_duplex(Vertex a, Vertex b, std::uint64_t rate_bps, pdes::Time latency) {
  const LinkId first = add_link(a, b, rate_bps, latency);
  add_link(b, a, rate_bps, latency);
  return first;
}

void Topology::finalize() {
  // Counting sort by source vertex; within a vertex, links stay in id order,
  // which is the "fixed order" promised by out_links().
  const std::uint32_t n = vertices();
  out_start_.assign(std::size_t{n} + 1, 0);
  for (const Link& l : links_) ++out_start_[l.from + 1];
  for (std::uint32_t v = 0; v < n; ++v) out_start_[v + 1] += out_start_[v];
  out_.resize(links_.size());
  std::vector<std::uint32_t> fill(out_start_.begin(), out_start_.end() - 1);
  for (std::size_t id = 0; id < links_.size(); ++id) {
    out_[fill[links_[id].from]++] = static_cast<LinkId>(id);
  }
}

namespace {
// splitmix64 finaliser (Steele, Lea & Flood, OOPSLA'14): full avalanche, so
// consecutive flow ids spread evenly over any modulus.
constexpr std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
}  // namespace

std::uint64_t ecmp_hash(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  // Chained rather than XORed together so that permuting the inputs changes
  // the result (ecmp_hash(x, y, f) != ecmp_hash(y, x, f) in general).
  return mix64(mix64(mix64(a) ^ b) ^ c);
}

}  // namespace sipsim::fabric
