#pragma once
// Distribution of events per window per rank (docs/scaling.md): a fixed
// log-linear histogram, so ranks add theirs up exactly and the quantiles are
// the same at every run of the same scenario and rank count.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace sipsim::pdes {

class WindowHistogram {
 public:
  // Values below 64 have a bucket each; above, 32 buckets per power of two
  // (a bucket is at most 1/32 of its lower bound wide).
  static constexpr std::size_t kExact = 64;
  static constexpr std::size_t kSubBuckets = 32;
  static constexpr std::size_t kBuckets = kExact + (64 - 6) * kSubBuckets;

  static std::size_t bucket_of(std::uint64_t value);
  // The smallest value of bucket `i`.
  static std::uint64_t bucket_low(std::size_t i);

  void add(std::uint64_t value) {
    ++counts_[bucket_of(value)];
    sum_ += value;
    if (value > max_) max_ = value;
  }
  std::span<const std::uint64_t, kBuckets> counts() const { return counts_; }
  std::uint64_t samples() const;
  std::uint64_t sum() const { return sum_; }
  std::uint64_t max() const { return max_; }

 private:
  std::array<std::uint64_t, kBuckets> counts_{};
  std::uint64_t sum_ = 0;
  std::uint64_t max_ = 0;
};

// Mean, quantiles and maximum of a histogram given as counts per bucket.
struct WindowSummary {
  std::uint64_t samples = 0;
  double mean = 0;
  std::uint64_t p50 = 0, p99 = 0;  // lower bound of the bucket holding the quantile
  std::uint64_t max = 0;
};
// `counts` covers buckets 0..counts.size()-1; `sum` and `max` are exact.
WindowSummary summarize(std::span<const std::uint64_t> counts, std::uint64_t sum,
                        std::uint64_t max);

}  // namespace sipsim::pdes
