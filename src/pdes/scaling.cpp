#include "sipsim/pdes/scaling.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace sipsim::pdes {

namespace {

// The model's constants (docs/scaling.md, "The model"); python/sipsim/scaling.py
// holds the same, with where each comes from.
constexpr double kMessageSeconds = 1e-6;     // one point-to-point message (assumed)
constexpr double kExchangeSeconds = 300e-9;  // x without a run to fit it (reference machine)
// The cited allreduce of a window: 6 us on 2^7 hosts, growing as log2 P, plus
// its payload of 15 + P words of 8 bytes per step at 10 GB/s.
constexpr double kAllreduceSeconds = 6e-6;
constexpr double kAllreduceLog2Hosts = 7;
constexpr double kAllreduceWords = 15;
constexpr double kAllreduceBytesPerSecond = 10e9;
constexpr double kPoissonK = 1.0;  // k from one rank: Poisson counts

double allreduce_seconds(int p) {
  if (p < 2) return 0.0;
  const double steps = std::log2(static_cast<double>(p));
  return kAllreduceSeconds * steps / kAllreduceLog2Hosts +
         8 * (kAllreduceWords + p) * steps / kAllreduceBytesPerSecond;
}

// A window's fixed cost at P ranks: a(P) plus one message per peer sent to,
// at most P - 1 and at most the remote events per window.
double window_fixed_seconds(int p, double remote_per_window) {
  const double messages = p > 1 ? std::min(remote_per_window, p - 1.0) : 0.0;
  return allreduce_seconds(p) + messages * kMessageSeconds;
}

// The expected busiest rank-window over the mean, beta_P: P spreads of
// k sqrt(mu) around mu give e_P of them; at most P.
double window_imbalance(int p, double mu, double k) {
  if (p == 1) return 1.0;
  const double beta = 1 + k * expected_max_normal(p) / std::sqrt(mu > 0 ? mu : 1);
  return std::min(beta, static_cast<double>(p));
}

// The constants fitted to one run.
struct Fit {
  double c = 0, u = 0, t1 = 0, k = kPoissonK, s = 0, x = kExchangeSeconds;
};

Fit fit(const ScalingFigures& m, double events_per_window) {
  Fit f;
  const double e = static_cast<double>(m.events);
  if (m.ranks == 1) {
    // The run is its own 1-rank run: its event loop, set-up and wall.
    f.c = m.critical_path_seconds / e;
    f.u = std::max(0.0, m.wall_seconds - m.critical_path_seconds);
    f.t1 = m.wall_seconds;
    return f;
  }
  f.c = m.busy_seconds_mean * m.ranks / e;
  f.t1 = e * f.c;
  const double mu = events_per_window / m.ranks;
  const double beta = static_cast<double>(m.critical_path_events) * m.ranks / e;
  if (mu > 0) f.k = std::max(0.0, (beta - 1) * std::sqrt(mu) / expected_max_normal(m.ranks));
  // Synchronisation, wall - critical path = W s + R x, with s modelled.
  f.s = window_fixed_seconds(m.ranks, m.remote_fraction * events_per_window / m.ranks);
  const double remote_per_rank = m.remote_fraction * e / m.ranks;
  if (remote_per_rank > 0) {
    const double y = m.wall_seconds - m.critical_path_seconds;
    f.x = std::max(0.0, (y - static_cast<double>(m.windows) * f.s) / remote_per_rank);
  }
  return f;
}

}  // namespace

double expected_max_normal(int p) {
  if (p <= 1) return 0.0;
  // The integral of x P phi(x) Phi(x)^(P-1) by Simpson's rule, log Phi
  // accurate in both tails.
  const double lo = -12.0, hi = 12.0 + std::sqrt(2 * std::log(static_cast<double>(p)));
  constexpr int n = 12000;
  const double h = (hi - lo) / n;
  const double norm = 1 / std::sqrt(2 * std::numbers::pi);
  auto integrand = [&](double x) {
    const double log_cdf = x < 0 ? std::log(0.5 * std::erfc(-x / std::numbers::sqrt2))
                                 : std::log1p(-0.5 * std::erfc(x / std::numbers::sqrt2));
    return p * x * norm * std::exp(-0.5 * x * x + (p - 1) * log_cdf);
  };
  double total = integrand(lo) + integrand(hi);
  for (int i = 1; i < n; ++i) total += (i % 2 ? 4 : 2) * integrand(lo + i * h);
  return total * h / 3;
}

bool predictable(const ScalingFigures& run) {
  return run.windowed && run.windows > 0 && run.events > 0 && run.ranks >= 1;
}

std::vector<ScalingPrediction> predict_scaling(const ScalingFigures& m,
                                               std::span<const int> ranks) {
  std::vector<ScalingPrediction> out;
  if (!predictable(m)) return out;
  const double w = static_cast<double>(m.windows);
  const double n = static_cast<double>(m.events) / w;  // events per window, all ranks
  const Fit f = fit(m, n);
  const double fixed_at_m = window_fixed_seconds(m.ranks, m.remote_fraction * n / m.ranks);
  for (const int p : ranks) {
    const double mu = n / p;
    const double beta = window_imbalance(p, mu, f.k);
    // Destinations spread over the other ranks; from one rank, every event
    // crosses as P grows (the worst case).
    const double fp = std::min(
        1.0, m.ranks >= 2 ? m.remote_fraction * (1 - 1.0 / p) / (1 - 1.0 / m.ranks) : 1 - 1.0 / p);
    const double remote_per_window = fp * n / p;
    const double compute = w * mu * beta * f.c;
    double sync = 0;
    if (p > 1) {
      const double s_p =
          std::max(0.0, f.s + window_fixed_seconds(p, remote_per_window) - fixed_at_m);
      sync = w * (s_p + remote_per_window * f.x);
    }
    const double wall = f.u / p + compute + sync;
    out.push_back({p, wall, f.t1 / wall, f.t1 / (p * wall)});
  }
  return out;
}

int ranks_that_pay(const ScalingFigures& run) {
  if (!predictable(run)) return 0;
  std::vector<int> powers;
  for (int p = 2; p <= 256; p *= 2) powers.push_back(p);
  int best = 1;
  for (const ScalingPrediction& s : predict_scaling(run, powers)) {
    if (s.efficiency >= kPaysEfficiency) best = s.ranks;
  }
  return best;
}

}  // namespace sipsim::pdes
