#pragma once
// Collective algorithms as one table (docs/architecture.md). Every algorithm is a
// row: its name, the operations it implements, its chunking, its validity
// checks, its schedule builder and its traits. Code outside the table never
// asks which algorithm it has, only what the algorithm's traits say, so adding
// an algorithm is one file under src/collective/algorithms/ plus one row.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sipsim::collective {

// A row of the algorithm table. Trivially copyable (it crosses ranks in
// records); the default is the table's first row.
class Algorithm {
 public:
  constexpr Algorithm() = default;
  constexpr explicit Algorithm(std::uint16_t row) : row_(row) {}
  constexpr std::uint16_t row() const { return row_; }
  friend constexpr bool operator==(Algorithm, Algorithm) = default;

 private:
  std::uint16_t row_ = 0;
};

// What the code around a collective needs to know about its algorithm.
struct AlgorithmTraits {
  // RAMP §6.2.3: every member moves through the steps in lock-step, each step
  // lasting as long as its slowest member needs (collective::lockstep_rounds).
  bool lockstep = false;
  // The algorithm runs on a job the fabric places (RAMP §6.3: the sub-box of a
  // RAMP network that activates the fewest steps) and the fabric's transcoder
  // serves it (RAMP §6.2.2 eq. 3-4): members are chosen by the fabric, not by
  // the scenario's group.
  bool fabric_placement = false;
  // A step receives from many senders at once, unscheduled (the concurrent
  // direct exchange): `auto` passes over it on fabrics that refuse that
  // (fabric::CostModel::refuses_incast).
  bool incast = false;
  // It runs where a scenario names it (ring-relay: ASTRA-sim's timings, never
  // faster than ring's relay and p(p-1)/2 steps to estimate): `auto` passes
  // over it unless the scenario lists it among auto's choices.
  bool named_only = false;
};

// Whether `auto` may choose `a` on a fabric that does (or does not) refuse an
// unscheduled incast; `listed`: the scenario lists auto's choices itself.
inline bool auto_candidate(const AlgorithmTraits& a, bool refuses_incast, bool listed = false) {
  return (listed || !a.named_only) && !(a.incast && refuses_incast);
}

// The algorithm named `name` (algorithm_names()), or nullopt.
std::optional<Algorithm> parse_algorithm(std::string_view name);
// The algorithm named `name`; throws std::invalid_argument for an unknown name.
Algorithm algorithm(std::string_view name);
std::string_view to_string(Algorithm a);
const AlgorithmTraits& traits(Algorithm a);
// Every algorithm, in table order, and their names (for error messages).
std::vector<Algorithm> all_algorithms();
std::vector<std::string> algorithm_names();

}  // namespace sipsim::collective
