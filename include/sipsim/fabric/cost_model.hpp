#pragma once
// What a fabric costs on paper: the closed forms and shared resources the
// estimators (analytical/, collective::step_cost) price messages with. Apart
// from fabric::Network so that an estimator takes only this and cannot send,
// host LPs or report; every fabric is one (Network derives from it).
#include <cstdint>
#include <vector>

#include "sipsim/pdes/time.hpp"

namespace sipsim::fabric {

// ceil(bytes * 8 / rate) in ps: the time `bytes` occupy a port of `rate_bps`.
pdes::Time serialization_ps(std::uint64_t bytes, std::uint64_t rate_bps);

class CostModel {
 public:
  virtual ~CostModel() = default;

  // Closed-form, uncongested delivery time of one message of `bytes` from a
  // to b sent at an idle fabric: what the simulator must reproduce exactly
  // when nothing else is in flight.
  virtual pdes::Time uncongested_ps(std::uint32_t a, std::uint32_t b,
                                    std::uint64_t bytes) const = 0;
  // How long, uncontended, the sender is busy with that message: from the send
  // until its last byte has left (what Network::send returns, minus now).
  virtual pdes::Time injection_ps(std::uint32_t a, std::uint32_t b, std::uint64_t bytes) const = 0;
  // Injection rate of a node (its total port bandwidth towards the fabric).
  virtual std::uint64_t node_rate_bps() const = 0;
  // The slowest link on the path from node a to node b: the rate at which a
  // lone message's data flows (RAMP §7.4's effective bandwidth of a step).
  virtual std::uint64_t path_rate_bps(std::uint32_t a, std::uint32_t b) const = 0;

  // The shared resources a message from a to b occupies (ports, links,
  // transceivers), each with its rate: what the critical-path estimator
  // (RAMP §7.4.1) loads with a step's concurrent messages. Ids are below
  // resource_count(). Appends to `out`.
  struct Resource {
    std::uint32_t id;
    std::uint64_t rate_bps;
  };
  virtual std::uint32_t resource_count() const = 0;
  virtual void path_resources(std::uint32_t a, std::uint32_t b,
                              std::vector<Resource>& out) const = 0;

  // What the estimators (analytical/) ask of every message a -> b of `bytes`,
  // in one call: injection_ps, uncongested_ps and path_rate_bps, and, when
  // `resources` is given, path_resources appended to it. Always equal to those
  // four queries (the default asks them); a fabric overrides it to share the
  // work they repeat (RAMP's transceiver groups, a routed fabric's route walk).
  struct PathQuote {
    pdes::Time injection = 0;
    pdes::Time uncongested = 0;
    std::uint64_t rate_bps = 0;
  };
  virtual PathQuote quote(std::uint32_t a, std::uint32_t b, std::uint64_t bytes,
                          std::vector<Resource>* resources) const;

  // A path as a few runs instead of one resource each (optional; the
  // estimators use it to load and query a run in O(1)): resources are laid out
  // on rings, ring r occupying positions [base, base + size) of a space of
  // run_space() positions, and a run covers `length` consecutive positions of
  // one ring from `first` (wrapping at the ring's end), all of one rate and
  // latency. The positions of a path's runs map one to one to the resources
  // path_resources lists (in order; no resource twice), so bytes added per
  // position are the resource loads. quote_runs fills `q` as quote() would and
  // appends the runs; it returns false (and appends nothing) where a fabric or
  // a pair has no such description, and the caller asks quote() instead.
  struct PathRun {
    std::uint32_t base = 0, size = 0, first = 0, length = 0;
    std::uint64_t rate_bps = 0;
    pdes::Time latency = 0;
  };
  virtual std::uint32_t run_space() const { return 0; }
  virtual bool quote_runs(std::uint32_t /*a*/, std::uint32_t /*b*/, std::uint64_t /*bytes*/,
                          PathQuote& /*q*/, std::vector<PathRun>& /*runs*/) const {
    return false;
  }

  // True when a node's messages leave through independent ports at once
  // (RAMP's transceivers); false when they share one injection port.
  virtual bool parallel_ports() const { return false; }
  // True when a node's sends of one step all start at once and those whose
  // paths share a link share it (a routed fabric: a SiPAC unit's lightpaths,
  // a torus node's links, a BCube node's ports, all sending together; two
  // sends through one NIC each wait for the other). The estimators then
  // start them together: the critical path (RAMP §7.4.1) charges the
  // sharing by its loads, the idle-fabric estimate ignores it like all
  // contention. Every fabric with parallel ports has it.
  virtual bool concurrent_sends() const { return parallel_ports(); }
  // True when a node that receives from many senders at once, in a pattern
  // the fabric did not schedule, breaks its rules and stops the run (strict
  // RAMP: two senders on one wavelength of a subnet, rule (c)); `auto` then
  // passes over the algorithms whose steps do that (AlgorithmTraits::incast).
  virtual bool refuses_incast() const { return false; }
};

}  // namespace sipsim::fabric
