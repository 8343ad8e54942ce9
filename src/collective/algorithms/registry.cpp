// The algorithm table (algorithm.hpp; docs/architecture.md): one line per algorithm, in the
// order users see (algorithm_names(), error messages); an Algorithm is a row's index.
//
// Adding an algorithm: write src/collective/algorithms/<family>.cpp with its stage builder
// and its row (`extern constinit const AlgorithmRow kMyRow = {"my-name", ...};`, see
// AlgorithmRow in ../registry.hpp), add the file to src/collective/CMakeLists.txt, declare the
// row below and append it to kAlgorithms. Nothing else names an algorithm: code outside the
// table asks the row's traits.
#include "registry.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace sipsim::collective {
namespace detail {

// Defined by the family files (one per family under algorithms/, RAMP-x under ramp_x/).
extern const AlgorithmRow kRingRow;
extern const AlgorithmRow kRingRelayRow;
extern const AlgorithmRow kBidirectionalRingRow;
extern const AlgorithmRow kHierarchicalRingRow;
extern const AlgorithmRow kTorus2dRow;
extern const AlgorithmRow kHalvingDoublingRow;
extern const AlgorithmRow kBruckRow;
extern const AlgorithmRow kDirectRow;
extern const AlgorithmRow kBinomialTreeRow;
extern const AlgorithmRow kDoubleBinaryTreeRow;
extern const AlgorithmRow kDirectConcurrentRow;
extern const AlgorithmRow kMulticastTreeRow;
extern const AlgorithmRow kRampXRow;

namespace {

// Pointers (address constants): the table is ready before any dynamic initialisation.
constinit const auto kAlgorithms = std::to_array<const AlgorithmRow*>({
    &kRingRow,
    &kBidirectionalRingRow,
    &kHierarchicalRingRow,
    &kTorus2dRow,
    &kHalvingDoublingRow,
    &kBruckRow,
    &kDirectRow,
    &kBinomialTreeRow,
    &kDoubleBinaryTreeRow,
    &kDirectConcurrentRow,
    &kMulticastTreeRow,
    &kRingRelayRow,
    &kRampXRow,
});

}  // namespace

const AlgorithmRow* find_row(Algorithm a) {
  return a.row() < kAlgorithms.size() ? kAlgorithms[a.row()] : nullptr;
}

const AlgorithmRow& row(Algorithm a) {
  const AlgorithmRow* r = find_row(a);
  if (r == nullptr) {
    throw InvalidCollective("unknown algorithm (row " + std::to_string(a.row()) + ")");
  }
  return *r;
}

}  // namespace detail

std::string_view to_string(Algorithm a) {
  const detail::AlgorithmRow* r = detail::find_row(a);
  return r != nullptr ? r->name : std::string_view("unknown-algorithm");
}
std::optional<Algorithm> parse_algorithm(std::string_view name) {
  for (std::size_t i = 0; i < detail::kAlgorithms.size(); ++i) {
    if (detail::kAlgorithms[i]->name == name) return Algorithm(static_cast<std::uint16_t>(i));
  }
  return std::nullopt;
}
Algorithm algorithm(std::string_view name) {
  if (auto a = parse_algorithm(name)) return *a;
  throw std::invalid_argument("unknown collective algorithm '" + std::string(name) + "'");
}
const AlgorithmTraits& traits(Algorithm a) {
  return detail::row(a).traits;
}
std::vector<Algorithm> all_algorithms() {
  std::vector<Algorithm> out;
  for (std::size_t i = 0; i < detail::kAlgorithms.size(); ++i) {
    out.push_back(Algorithm(static_cast<std::uint16_t>(i)));
  }
  return out;
}
std::vector<std::string> algorithm_names() {
  std::vector<std::string> out;
  for (const detail::AlgorithmRow* r : detail::kAlgorithms) out.emplace_back(r->name);
  return out;
}

}  // namespace sipsim::collective
