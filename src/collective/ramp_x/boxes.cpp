// RAMP-x's boxes as chunk sets (boxes.hpp).
#include "ramp_x/boxes.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace sipsim::collective::detail {

void emit_lattice(std::uint64_t M, std::uint64_t base, std::vector<LatticeAxis> axes,
                  std::vector<ChunkSet>& out) {
  std::erase_if(axes, [](const LatticeAxis& a) { return a.count <= 1; });
  for (LatticeAxis& a : axes) a.stride %= M;
  auto take = [](std::vector<LatticeAxis>& v, std::uint64_t stride, std::uint64_t M0) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (v[i].stride == stride % M0) {
        const std::uint64_t n = v[i].count;
        v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
        return n;
      }
    }
    return std::uint64_t{0};
  };
  std::uint64_t run = 1;
  for (std::uint64_t n; (n = take(axes, run, M)) != 0;) run *= n;
  std::uint64_t stride = 0, runs = 1;
  if (!axes.empty()) {
    std::size_t best = 0;
    std::uint64_t best_runs = 0;
    for (std::size_t i = 0; i < axes.size(); ++i) {
      std::vector<LatticeAxis> rest = axes;
      rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
      std::uint64_t n = axes[i].count;
      for (std::uint64_t k; (k = take(rest, mulmod(axes[i].stride, n, M), M)) != 0;) n *= k;
      if (n > best_runs) {
        best_runs = n;
        best = i;
      }
    }
    stride = axes[best].stride;
    runs = axes[best].count;
    axes.erase(axes.begin() + static_cast<std::ptrdiff_t>(best));
    for (std::uint64_t k; (k = take(axes, mulmod(stride, runs, M), M)) != 0;) runs *= k;
  }
  std::vector<std::uint64_t> idx(axes.size(), 0);
  while (true) {
    std::uint64_t first = base % M;
    for (std::size_t a = 0; a < axes.size(); ++a)
      first = (first + mulmod(idx[a], axes[a].stride, M)) % M;
    out.push_back(ChunkSet{first, run, runs > 1 ? stride : 0, runs});
    std::size_t a = 0;
    for (; a < axes.size(); ++a) {
      if (++idx[a] < axes[a].count) break;
      idx[a] = 0;
    }
    if (a == axes.size()) break;
  }
}

RampGeom make_ramp_geom(const RampShape& sh) {
  RampGeom G;
  G.shape = sh;
  for (std::size_t k = 0; k < 4; ++k) G.s[k] = sh.active[k];
  G.p = G.s[0] * G.s[1] * G.s[2] * G.s[3];
  G.w = {G.s[1] * G.s[2] * G.s[3], 1, G.s[3] * G.s[1], G.s[1]};
  G.dw = {G.s[1] * G.s[2] * G.s[3], G.s[2] * G.s[3], G.s[3], 1};
  for (std::uint32_t k = 0; k < 4; ++k) {
    if (G.s[k] > 1) G.rows.push_back(k);
  }
  return G;
}

MemberLattice member_lattice(const RampGeom& G, const ramp::Offsets& c, unsigned free) {
  auto is_free = [&](std::size_t k) { return ((free >> k) & 1u) != 0 && G.s[k] > 1; };
  MemberLattice L;
  if (is_free(0) || G.s[0] == 1) {  // e takes every value: plain mixed radix
    L.axes.push_back(LatticeAxis{G.w[0], G.s[0]});
    for (std::size_t k = 1; k < 4; ++k) {
      if (is_free(k)) {
        L.axes.push_back(LatticeAxis{G.w[k], G.s[k]});
      } else {
        L.base += c[k] * G.w[k];
      }
    }
    return L;
  }
  ramp::Offsets z = c;
  for (std::size_t k = 1; k < 4; ++k) {
    if (is_free(k)) {
      z[k] = 0;
      L.axes.push_back(LatticeAxis{(G.w[0] + G.w[k]) % G.p, G.s[k]});
      L.exact = false;
    }
  }
  L.base = ramp::member_of_offsets(z, G.shape);
  return L;
}

std::vector<ChunkSet> RampRun::box(RampLayout lay, const ramp::Offsets& o, unsigned free) const {
  std::vector<ChunkSet> out;
  if (lay == RampLayout::kMember) {
    const MemberLattice L = member_lattice(G, o, free);
    emit_lattice(G.p, L.base, L.axes, out);
    return out;
  }
  // Digit layout: the free steps are a suffix of rows, the box is one contiguous range.
  ramp::Offsets z = o;
  std::uint64_t count = 1;
  for (std::uint32_t k = 0; k < 4; ++k) {
    if (((free >> k) & 1u) != 0) {
      z[k] = 0;
      count *= G.s[k];
    }
  }
  const std::array<std::uint32_t, 4> d = ramp::job_digits(z, G.shape);
  std::uint64_t first = 0;
  for (std::uint32_t k = 0; k < 4; ++k) {
    if (((free >> k) & 1u) == 0) first += d[k] * G.dw[k];
  }
  out.push_back(c.range(sgn(first), count));
  return out;
}

std::vector<ChunkSet> RampRun::blocks(const ramp::Offsets& so, unsigned sfree,
                                      const ramp::Offsets& dof, unsigned dfree) const {
  const std::uint64_t p = G.p, M = p * p;
  std::vector<ChunkSet> out;
  const MemberLattice S = member_lattice(G, so, sfree), D = member_lattice(G, dof, dfree);
  std::vector<LatticeAxis> src_axes;
  std::uint64_t src_n = 1;
  for (const LatticeAxis& a : S.axes) {
    src_axes.push_back(LatticeAxis{mulmod(a.stride, p, M), a.count});
    src_n *= a.count;
  }
  const std::uint64_t src_base = mulmod(S.base % p, p, M);
  if (D.exact) {  // destinations never wrap: one lattice modulo p^2
    std::vector<LatticeAxis> axes = src_axes;
    axes.insert(axes.end(), D.axes.begin(), D.axes.end());
    emit_lattice(M, src_base + D.base, axes, out);
    return out;
  }
  std::vector<LatticeAxis> dax = D.axes;
  std::erase_if(dax, [](const LatticeAxis& a) { return a.count <= 1; });
  std::vector<std::uint64_t> idx(dax.size(), 0);
  // Several sources: one lattice of sources per destination. A single source: the longest
  // destination axis becomes strided runs, split where the destination index wraps.
  std::size_t along = dax.size();
  if (src_n == 1) {
    along = 0;
    for (std::size_t a = 1; a < dax.size(); ++a) {
      if (dax[a].count > dax[along].count) along = a;
    }
  }
  while (true) {
    std::uint64_t d = D.base % p;
    for (std::size_t a = 0; a < dax.size(); ++a) {
      if (a != along) d = (d + mulmod(idx[a], dax[a].stride, p)) % p;
    }
    if (along == dax.size()) {
      emit_lattice(M, src_base + d, src_axes, out);
    } else {
      const std::uint64_t st = dax[along].stride;
      for (std::uint64_t done = 0, n = dax[along].count; done < n;) {
        const std::uint64_t fit = std::min(n - done, (p - 1 - d) / st + 1);
        out.push_back(ChunkSet{src_base + d, 1, fit > 1 ? st : 0, fit});
        done += fit;
        d = (d + fit * st) % p;
      }
    }
    std::size_t a = 0;
    for (; a < dax.size(); ++a) {
      if (a == along) continue;
      if (++idx[a] < dax[a].count) break;
      idx[a] = 0;
    }
    if (a == dax.size()) break;
  }
  return out;
}

}  // namespace sipsim::collective::detail
