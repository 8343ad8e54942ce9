#pragma once
// Communicators, collective calls and the message tag (docs/models.md, "Collectives").
//
// A communicator is a group of fabric nodes that run collectives together: a
// tensor-, pipeline-, data- or expert-parallel group of a training job, or the
// group of a benchmark. Its members are numbered 0..p-1 (member m runs on
// fabric node nodes[m]); the algorithms' parameters (hierarchy levels, torus
// dimensions, RAMP job) come with it. Members call collectives on a
// communicator in the same order, so the k-th collective a member starts on a
// communicator is the same collective for every member: its sequence number k.
#include <cstdint>
#include <string>
#include <vector>

#include "sipsim/collective/schedule.hpp"

namespace sipsim::collective {

struct Communicator {
  std::string name;                  // "group", "tp", "dp", ... for messages and records
  std::vector<std::uint32_t> nodes;  // member -> fabric node, distinct
  AlgorithmParams params;
  std::uint32_t size() const { return static_cast<std::uint32_t>(nodes.size()); }
};

// One collective as a program asks for it; `root` is a member index.
struct CollectiveCall {
  Op op = Op::kAllReduce;
  Algorithm algorithm;
  std::uint64_t bytes = 0;
  std::uint32_t root = 0;
};

// The one layout of a message's tag, carried by the fabric with every message:
// communicator (16 bits), the collective's sequence number on it (24 bits), and
// how many Sends of the step the message joins (24 bits, WireMessage::parts)
// so that a receiver can check its grouping against the sender's.
// Point-to-point messages of programs use the reserved communicator kPointToPoint
// and carry in the low 48 bits the time the sender started the send (the
// interpreter's pipeline-bubble attribution, docs/models.md).
struct Tag {
  std::uint32_t comm = 0;
  std::uint32_t seq = 0;
  std::uint32_t parts = 0;

  static constexpr std::uint32_t kPointToPoint = 0xFFFF;
  static constexpr std::uint32_t kMaxComm = 0xFFFE;
  static constexpr std::uint32_t kMaxSeq = (1u << 24) - 1;
  static constexpr std::uint32_t kMaxParts = (1u << 24) - 1;

  std::uint64_t pack() const {
    return std::uint64_t{comm} << 48 | std::uint64_t{seq & kMaxSeq} << 24 | (parts & kMaxParts);
  }
  static Tag unpack(std::uint64_t t) {
    return Tag{static_cast<std::uint32_t>(t >> 48), static_cast<std::uint32_t>(t >> 24) & kMaxSeq,
               static_cast<std::uint32_t>(t) & kMaxParts};
  }
};

}  // namespace sipsim::collective
