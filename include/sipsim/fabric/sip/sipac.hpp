#pragma once
// SiPAC (Wu et al., CLEO 2023, paper 004): a routed topology of compute units
// joined by wavelength-selective switches (docs/models.md, "SiPAC").
#include <cstdint>
#include <memory>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/fabric/routed/topology.hpp"

namespace sipsim::fabric {

// SiPAC_l with r-port WSS (paper §2): r^(l+1) units with digits
// (a_l .. a_0) in base r and l + 1 optical ports, one per level; the level-k
// WSS of a unit joins the r units that differ only in digit k, and gives each
// ordered pair of them its own wavelengths (Fig. 1b), so a unit has a direct
// lightpath to each of its (l+1)(r-1) neighbours. The WSS is passive and has no
// buffer: there are no switch vertices; each lightpath is one directed link
// unit -> unit of rate bandwidth / ((l+1)(r-1)) and latency propagation +
// wss_latency. Units relay (O/E/O) towards farther units; routing corrects
// the highest differing digit first (BCube-like), Hamming(src, dst) hops.
// Link ids: unit v, level k, neighbour digit d (skipping v's own digit):
// v * (l+1)(r-1) + k * (r-1) + (d < a_k ? d : d - 1).
// groups(): r, by the top digit.
struct SipacSpec {
  std::uint32_t ports = 0;          // r
  std::uint32_t level = 0;          // l (l + 1 ports per unit)
  std::uint64_t bandwidth_bps = 0;  // per unit, summed over its ports (paper §4)
  pdes::Time wss_latency = 0;
  pdes::Time propagation = 0;
};
std::unique_ptr<Topology> make_sipac(const SipacSpec& spec);

// The keys of a `fabric: {type: sipac}` section: ports, level, bandwidth,
// wss_latency, propagation (at most 2^24 units).
SipacSpec read_sipac(base::MapReader& section);
std::uint32_t sipac_units(const SipacSpec& spec);               // ports^(level+1)
std::uint64_t sipac_lightpath_rate_bps(const SipacSpec& spec);  // per neighbour

}  // namespace sipsim::fabric
