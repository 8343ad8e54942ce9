#pragma once
// RAMP (RAMP §3, §4.1, §6.2, §7.5; docs/models.md) as a circuit fabric.
//
// Node (g, j, lambda) = (g*J + j)*Lambda + lambda has x transceiver groups of b
// transceivers at line rate B. A transfer from a to b uses the transceiver
// group RAMP's transcoder picks for the pair (eq. 2 and the RAMP-x step
// patterns), plus, for a RAMP-x job on a subset of the nodes (`job`), the extra
// groups of RAMP §6.2.2 eq. 3-4 that keep the optical rules
// (ramp::transceivers_for_pair); all b transceivers of every group
// used carry equal parts in parallel (eq. 5), each on subnet (g_a, g_b, t) and
// the destination's wavelength.
// A transfer takes whole time slots: `slot` of which `reconfiguration` is the
// guard band, so each transceiver carries (slot - reconfiguration) * B of data
// per slot (950 B per 20 ns at 400 Gb/s, §4.1). Its first bit leaves
// `io_latency` after the node asks (memory to transceiver, §7.5) and arrives
// `propagation` later (1.3 us, §7.5).
//
// Optical rules (docs/models.md, "RAMP-x collectives"), per transfer:
//  (a) a transmitter (node, t) sends one transfer at a time: its FIFO;
//  (b) a receiver (node, t) listens to one subnet port at a time: checked at
//      the receiver;
//  (c) one transmitter per wavelength per subnet at a time: checked by the
//      arbiter of (destination group, wavelength), the LP of node
//      (g_dst, lambda_dst mod J, lambda_dst), so that a group's arbiters are
//      spread over its racks.
// A violation of (b) or (c) stops the run unless `permissive`, in which case the
// conflicting transfer waits (serialised) and is counted.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sipsim/fabric/network.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"

namespace sipsim::fabric {

// A failed transceiver (node, transceiver t of x*b) or subnet (g_src ->
// g_dst, transceiver t), from `at` until `until` (docs/faults.md). Pairs
// whose transceivers or subnet failed use the rest of their groups'
// transceivers, or, with none left, the nearest healthy transceiver group
// (t + 1, t + 2, ... mod x).
struct RampFault {
  pdes::Time at = 0, until = pdes::kTimeMax;
  bool subnet = false;
  std::uint32_t node = 0;              // a transceiver's node
  std::uint32_t g_src = 0, g_dst = 0;  // a subnet's groups
  std::uint32_t t = 0;                 // the transceiver (index in x*b)
  std::string target;                  // in words, for messages
};

struct RampSpec {
  std::uint32_t x = 32;       // communication groups = transceiver groups per node
  std::uint32_t J = 32;       // racks per communication group
  std::uint32_t Lambda = 64;  // nodes per rack = wavelengths
  std::uint32_t b = 1;        // transceivers per transceiver group
  std::uint64_t line_rate_bps = 400'000'000'000;
  pdes::Time slot = 20 * pdes::kNanosecond;
  pdes::Time reconfiguration = 1 * pdes::kNanosecond;
  pdes::Time propagation = 1300 * pdes::kNanosecond;
  pdes::Time io_latency = 100 * pdes::kNanosecond;
  bool permissive = false;
  // The RAMP-x job the transcoder serves (RAMP §6.3: x, J, D of this fabric and the job's
  // active step sizes). When set, pairs of a RAMP-x step use the extra transceiver groups of
  // RAMP §6.2.2 eq. 3-4 that are safe for that job; unset, every pair uses one group.
  std::optional<ramp::RampShape> job;
  // A training job's innermost groups (fabric/ramp/placement.hpp): their step sizes t_k, each
  // dividing job->active[k]. A step-k pair inside one of their blocks (the two nodes' step-k
  // offsets in the job agree but for the last factor t_k) uses the extra groups safe for
  // subgroups of d = t_k, spaced t_k apart, instead of those for the job's s_k.
  std::optional<std::array<std::uint32_t, 4>> inner;
  // Failed transceivers and subnets; with any, the fabric is permissive (a
  // transfer rerouted around a failure may meet others).
  std::vector<RampFault> faults;
};

// Counters of the optical rules (Report::counters: transfers, slots,
// rule_b_conflicts, rule_c_conflicts).
struct RampStats {
  std::uint64_t transfers = 0;  // transceiver-level transfers
  std::uint64_t slots = 0;      // slots occupied by them
  std::uint64_t rule_b_conflicts = 0;
  std::uint64_t rule_c_conflicts = 0;
};

std::unique_ptr<Network> make_ramp(const RampSpec& spec);
// Data bytes one transceiver carries per slot.
std::uint64_t ramp_slot_bytes(const RampSpec& spec);

}  // namespace sipsim::fabric
