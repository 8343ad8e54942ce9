#include "sipsim/pdes/window_histogram.hpp"

#include <bit>
#include <numeric>

namespace sipsim::pdes {

std::size_t WindowHistogram::bucket_of(std::uint64_t value) {
  if (value < kExact) return static_cast<std::size_t>(value);
  const auto octave = static_cast<std::size_t>(std::bit_width(value) - 1);  // >= 6
  const auto sub = static_cast<std::size_t>(value >> (octave - 5)) & (kSubBuckets - 1);
  return kExact + (octave - 6) * kSubBuckets + sub;
}

std::uint64_t WindowHistogram::bucket_low(std::size_t i) {
  if (i < kExact) return i;
  const std::size_t octave = 6 + (i - kExact) / kSubBuckets;
  const std::uint64_t sub = (i - kExact) % kSubBuckets;
  return (std::uint64_t{1} << octave) + (sub << (octave - 5));
}

std::uint64_t WindowHistogram::samples() const {
  return std::accumulate(counts_.begin(), counts_.end(), std::uint64_t{0});
}

WindowSummary summarize(std::span<const std::uint64_t> counts, std::uint64_t sum,
                        std::uint64_t max) {
  WindowSummary s;
  s.samples = std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
  s.max = max;
  if (s.samples == 0) return s;
  s.mean = static_cast<double>(sum) / static_cast<double>(s.samples);
  // The q-quantile is the smallest value with at least ceil(q * samples)
  // samples at or below it; integer arithmetic keeps it exact.
  auto quantile = [&](std::uint64_t num, std::uint64_t den) {
    const std::uint64_t rank = (s.samples * num + den - 1) / den;
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      seen += counts[i];
      if (seen >= rank && counts[i] > 0) return WindowHistogram::bucket_low(i);
    }
    return max;
  };
  s.p50 = quantile(50, 100);
  s.p99 = quantile(99, 100);
  return s;
}

}  // namespace sipsim::pdes
