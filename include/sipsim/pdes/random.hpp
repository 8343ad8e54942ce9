#pragma once
// Counter-based random streams (docs/architecture.md): Philox4x32-10 (Salmon et al.,
// "Parallel random numbers: as easy as 1, 2, 3", SC'11). A draw is a pure
// function of (seed, LP id, stream, counter), so an LP's numbers do not depend
// on which rank runs it or in which order other LPs run.
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace sipsim::pdes {

using PhiloxBlock = std::array<std::uint32_t, 4>;
__extension__ typedef unsigned __int128 Uint128;  // GCC/Clang builtin, exact 64x64 products

constexpr PhiloxBlock philox4x32_10(PhiloxBlock ctr, std::array<std::uint32_t, 2> key) {
  constexpr std::uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr std::uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += kW0;
      key[1] += kW1;
    }
    const std::uint64_t p0 = std::uint64_t{kM0} * ctr[0];
    const std::uint64_t p1 = std::uint64_t{kM1} * ctr[2];
    ctr = {static_cast<std::uint32_t>(p1 >> 32) ^ ctr[1] ^ key[0], static_cast<std::uint32_t>(p1),
           static_cast<std::uint32_t>(p0 >> 32) ^ ctr[3] ^ key[1], static_cast<std::uint32_t>(p0)};
  }
  return ctr;
}

// One LP's stream: 2^64 blocks of 128 bits. `stream` separates independent
// uses within one LP (e.g. the model's draws from a fault injector's).
class RandomStream {
 public:
  RandomStream() = default;
  RandomStream(std::uint64_t seed, std::uint32_t lp, std::uint32_t stream = 0)
      : key_{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)},
        lp_(lp),
        stream_(stream) {}

  // The next 128 random bits.
  PhiloxBlock next_block() {
    const std::uint64_t c = counter_++;
    return philox4x32_10(
        {static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(c >> 32), lp_, stream_}, key_);
  }
  std::uint64_t next_u64() {
    const PhiloxBlock b = next_block();
    return (std::uint64_t{b[1]} << 32) | b[0];
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return to_unit(next_u64()); }
  // Uniform integer in [0, n), n >= 1 (Lemire's multiply-shift; bias < n / 2^64).
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<Uint128>(next_u64()) * n) >> 64);
  }
  // Exponential with the given mean, by inversion (exact but needs a log1p;
  // ExpZiggurat below is the fast path hot models use).
  double exponential(double mean) { return mean * -std::log1p(-uniform()); }

  std::uint64_t counter() const { return counter_; }

  static double to_unit(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

 private:
  std::array<std::uint32_t, 2> key_{};
  std::uint32_t lp_ = 0;
  std::uint32_t stream_ = 0;
  std::uint64_t counter_ = 0;
};

// Exp(1) samples by the ziggurat method of Marsaglia & Tsang ("The ziggurat
// method for generating random variables", J. Stat. Softw. 5(8), 2000), 256
// layers of equal area. About 99% of the samples cost one table look-up and one
// multiply; the rest (the wedges and the tail) redraw or take a log. Every
// draw comes from the caller's RandomStream, so a sample is a pure function of
// the stream like any other draw and results do not depend on the rank count.
class ExpZiggurat {
 public:
  static constexpr int kLayers = 256;

  // One sample whose first 64 random bits are `bits` (the caller may take them
  // from a block it also uses for other draws); further bits, needed for about
  // 1% of the samples, come from `rng`.
  static double sample(std::uint64_t bits, RandomStream& rng) {
    const Tables& t = tables_;
    for (;;) {
      // The layer from the low 8 bits, the position in it from the high 53.
      const std::size_t i = bits & (kLayers - 1);
      const double x = RandomStream::to_unit(bits) * t.x[i];
      if (x < t.x[i + 1]) return x;  // inside the layer's rectangle: accept
      if (i == 0) {
        // The base layer's tail beyond r: by memorylessness, r + Exp(1).
        return t.x[1] - std::log1p(-rng.uniform());
      }
      // The wedge between the rectangle and the curve: accept under exp(-x).
      const double y = t.f[i] + rng.uniform() * (t.f[i + 1] - t.f[i]);
      if (y < std::exp(-x)) return x;
      bits = rng.next_u64();
    }
  }
  static double sample(RandomStream& rng) { return sample(rng.next_u64(), rng); }

  // The layer edges, for tests: x[0] = V / f(r) (the base layer's virtual
  // width), x[1] = r, ..., x[256] = 0; f[i] = exp(-x[i]).
  struct Tables {
    std::array<double, kLayers + 1> x{};
    std::array<double, kLayers + 1> f{};
  };
  static const Tables& tables() { return tables_; }

 private:
  static Tables build() {
    // r and the common layer area V for 256 layers (Marsaglia & Tsang, Table 1).
    constexpr double kR = 7.69711747013104972;
    constexpr double kV = 3.949659822581572e-3;
    Tables t;
    t.x[0] = kV / std::exp(-kR);
    t.x[1] = kR;
    for (int i = 2; i < kLayers; ++i) {
      // Layer i - 1 spans [f(x[i-1]), f(x[i])] with area x[i-1] * (f(x[i]) - f(x[i-1])) = V.
      t.x[i] = -std::log(kV / t.x[i - 1] + std::exp(-t.x[i - 1]));
    }
    t.x[kLayers] = 0;
    for (int i = 0; i <= kLayers; ++i) t.f[i] = std::exp(-t.x[i]);
    return t;
  }
  // Built once at start-up (std::exp is not constexpr in C++20); a namespace-
  // scope constant keeps the hot path free of an initialisation guard.
  static inline const Tables tables_ = build();
};

}  // namespace sipsim::pdes
