#pragma once
// What the fuzz tests share (the scenario loader's, the study commands', the
// Chakra trace reader's): the slowdown their time bounds allow under the
// sanitizers, a random source that gives the same cases on every platform,
// and the seed and scale a run by hand may set.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace sipsim::fuzz {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr double kSlowdown = 4;  // AddressSanitizer and UBSan: the CI's asan preset
#else
inline constexpr double kSlowdown = 1;
#endif

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  // Uniform enough in [0, n); the same sequence on every platform (no
  // std::uniform_int_distribution, whose algorithm is unspecified).
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(engine_() % n); }
  bool chance(unsigned percent) { return below(100) < percent; }
  template <class T>
  const T& pick(const std::vector<T>& items) {
    return items[below(items.size())];
  }

 private:
  std::mt19937_64 engine_;
};

// The seed (SIPSIM_FUZZ_SEED, else `fixed`) and the multiple of the cases
// (SIPSIM_FUZZ_SCALE, else 1), for longer runs by hand.
inline std::uint64_t fuzz_seed(std::uint64_t fixed) {
  const char* env = std::getenv("SIPSIM_FUZZ_SEED");
  return env != nullptr ? std::stoull(env) : fixed;
}
inline int fuzz_scale() {
  const char* env = std::getenv("SIPSIM_FUZZ_SCALE");
  return env != nullptr ? std::max(1, std::stoi(env)) : 1;
}

}  // namespace sipsim::fuzz
