#pragma once
// How long a node's program keeps quiet towards other ranks (the windowed
// engine's program-derived lookahead, docs/scaling.md): an op that sends
// nothing across ranks (compute, a receive, a wait, a collective whose
// members and routes all stay on the node's rank) cannot make the node send
// across ranks before an op that does, its "crossing" op, starts; and a
// compute op in between takes its duration first. So from the end of op i the
// node starts no crossing op before after[i] has passed.
#include <cstdint>
#include <span>
#include <vector>

#include "sipsim/pdes/time.hpp"
#include "sipsim/workload/program.hpp"

namespace sipsim::workload {

struct QuietTime {
  // Per op: whether it sends across ranks at this node, and the least time
  // from its end to the start of a crossing op that depends on it (within
  // this iteration or, through the program's roots, the next; kTimeMax: none
  // ever does).
  std::vector<std::uint8_t> crossing;
  std::vector<pdes::Time> after;

  // The least time from op i's start (or its becoming ready) to the start of
  // a crossing op: i itself, or after its duration, one of its users'.
  pdes::Time until_crossing(const Program& p, std::uint32_t i) const;
};

// `crossing[i]` for every op of `p` (p.finish() called). A wait or recv never
// sends; the caller decides for sends and collectives.
QuietTime quiet_time(const Program& p, std::vector<std::uint8_t> crossing);

}  // namespace sipsim::workload
