#pragma once
// Exact integer rate arithmetic shared by the device models: an amount of
// work at a rate, rounded up to whole picoseconds, saturating at kTimeMax.
#include <cstdint>

#include "sipsim/compute/accelerator.hpp"
#include "sipsim/pdes/time.hpp"

namespace sipsim::compute::rates {

__extension__ typedef unsigned __int128 U128;

inline pdes::Time clamp_time(U128 ps) {
  return ps >= pdes::kTimeMax ? pdes::kTimeMax : static_cast<pdes::Time>(ps);
}

// ceil(amount * 1e12 / rate) ps.
inline pdes::Time time_at_rate(U128 amount, std::uint64_t rate) {
  return clamp_time((amount * pdes::kSecond + rate - 1) / rate);
}

// ceil(amount * 1e12 * 1e6 / (rate * eff_ppm)) ps: `amount` at `rate` scaled by eff.
// amount < 2^66 and rate * eff < 2^72, so nothing overflows 128 bits.
inline pdes::Time time_at_rate_eff(U128 amount, std::uint64_t rate, std::uint64_t eff_ppm) {
  const U128 den = static_cast<U128>(rate) * eff_ppm;
  return clamp_time((amount * pdes::kSecond * kPpm + den - 1) / den);
}

}  // namespace sipsim::compute::rates
