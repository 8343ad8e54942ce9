#pragma once
// Collective operations as per-member step schedules (docs/models.md, "Collectives").
//
// A collective on a group of p members (indices 0..p-1 within the group; the
// mapping to fabric nodes is the caller's) with an algorithm becomes, for each
// member, a list of steps. Step i of member r is computed on demand from
// closed-form rules by Schedule::step(i): nothing is materialised for all
// members, so a 65,536-member ring costs O(1) memory per member.
//
// Data model. The operation's buffer of T bytes is cut into `chunks()`
// chunks, chunk c holding chunk_bytes(c) = floor(T*(c+1)/C) - floor(T*c/C)
// bytes (C = chunks()); T = `bytes`, except T = p*bytes for all-to-all (so that
// each member's p blocks sum to exactly `bytes`, its send buffer, see below) and
// T = 0 for barrier. What a chunk means depends on the operation:
//   all-reduce, reduce, broadcast: C pieces of the buffer;
//   reduce-scatter: C pieces (C a multiple of p); member r's result is every
//     chunk c with c mod p == r (chunk r; chunks r and p+r for bidirectional-ring);
//   all-gather, gather, scatter: C = p (2p for bidirectional-ring all-gather),
//     chunk c is member (c mod p)'s contribution / piece;
//   all-to-all: C = p*p, chunk i*p + j is what member i sends to member j;
//   barrier: bytes ignored (0), C = p (chunk i = "member i has arrived").
// `bytes` follows nccl-tests' "size" column: the per-member buffer for
// all-reduce / broadcast / reduce, the full (p-part) buffer for reduce-scatter
// input, all-gather output, gather output at the root, scatter input at the root,
// and each member's total all-to-all send buffer.
//
// A step: the member sends some chunks to peers and receives chunks from
// peers; each received chunk set is combined into the member's copy either by
// reduction (sum with what it holds) or by copy (overwrite). Sends read the
// member's state at the start of the step. After all receives of the step the
// member performs the local operation (its cost is what the compute model
// prices: reduce of `sources` inputs of `bytes` each, or a copy).
//
// Local operations. kReduce whenever a receive of the step is combined by
// reduction: local_bytes = the bytes of the distinct chunks reduced in the step,
// sources = 1 + the largest number of received inputs reduced into one chunk
// (2 for a ring step, 3 for a tree node with two children). kCopy only where the
// algorithm must move received data after it arrives (Bruck's rotations and
// unpacking); a receive that lands in its final place is kNone. kNone steps
// have sources = local_bytes = 0.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sipsim/collective/algorithm.hpp"
#include "sipsim/collective/payload.hpp"

namespace sipsim::collective {

enum class Op {
  kAllReduce,
  kReduceScatter,
  kAllGather,
  kAllToAll,
  kBroadcast,
  kReduce,
  kGather,
  kScatter,
  kBarrier,
};

std::string_view to_string(Op op);
std::optional<Op> parse_op(std::string_view name);  // "all-reduce", ...
// The names accepted by parse_op, in enum order (for error messages).
std::vector<std::string> op_names();

// nccl-tests bus bandwidth factor (PERFORMANCE.md of nccl-tests):
// busbw = algbw * factor(p); 2(p-1)/p for all-reduce, (p-1)/p for reduce-scatter,
// all-gather, all-to-all, gather, scatter; 1 for broadcast and reduce; 0 for barrier.
double bus_bandwidth_factor(Op op, std::uint32_t p);

// A set of chunk indices: `runs` runs of `run` consecutive indices, run k
// starting at first + k*stride, every index taken modulo the plan's chunks().
// Covers single chunks, contiguous ranges, strided sets and Bruck's bit sets.
struct ChunkSet {
  std::uint64_t first = 0;
  std::uint64_t run = 0;  // 0: empty set
  std::uint64_t stride = 0;
  std::uint64_t runs = 1;
  std::uint64_t count() const { return run * runs; }
  template <class F>
  void for_each(std::uint64_t modulus, F&& f) const {
    for (std::uint64_t k = 0; k < runs; ++k) {
      for (std::uint64_t i = 0; i < run; ++i) f((first + k * stride + i) % modulus);
    }
  }
};

enum class Combine { kReduce, kCopy };

struct Send {
  std::uint32_t peer;  // group index
  ChunkSet chunks;
  std::uint64_t bytes;  // sum of chunk_bytes over `chunks`
};

struct Recv {
  std::uint32_t peer;
  ChunkSet chunks;
  std::uint64_t bytes;
  Combine combine;
};

enum class LocalOp { kNone, kReduce, kCopy };

struct Step {
  std::vector<Send> sends;
  std::vector<Recv> recvs;
  // The sends are one optical multicast (RAMP §6.1 broadcast): they carry the
  // same chunks, and the fabric may deliver them with one transmission per
  // transmitter (Network::multicast).
  bool multicast = false;
  LocalOp local = LocalOp::kNone;
  std::uint32_t sources = 0;      // inputs of the reduction (incl. the member's own), >= 2
  std::uint64_t local_bytes = 0;  // bytes of each input of the reduction / bytes copied
};

// What travels on the wire: all Sends of a step to one peer form one message,
// and all Recvs of a step from one peer are one message (in order of first
// appearance). `parts` is how many Sends/Recvs it joins, so that a receiver can
// check that its grouping matches the sender's.
struct WireMessage {
  std::uint32_t peer;
  std::uint64_t bytes;
  std::uint32_t parts;
};
std::vector<WireMessage> outgoing(const Step& step);
std::vector<WireMessage> incoming(const Step& step);

class Schedule;
// Step i as the network and the compute model see it: one message per peer
// each way and the local operation. Equal to outgoing()/incoming() of
// step(i), but computed in closed form where an algorithm allows it without
// building its chunk sets (RAMP-x all-to-all with uniform blocks: RAMP Table 8,
// bytes/s_k per peer at step k), which is what makes 65,536-node runs fast.
struct WireStep {
  std::vector<WireMessage> out, in;
  bool multicast = false;  // Step::multicast
  LocalOp local = LocalOp::kNone;
  std::uint32_t sources = 0;
  std::uint64_t local_bytes = 0;
  // Empty, keeping the vectors' storage.
  void clear() {
    out.clear();
    in.clear();
    multicast = false;
    local = LocalOp::kNone;
    sources = 0;
    local_bytes = 0;
  }
};
WireStep wire_step(const Schedule& schedule, std::uint32_t i);
// The same into `w`, keeping its vectors' storage (the estimators' levels).
void wire_step_into(const Schedule& schedule, std::uint32_t i, WireStep& w);

// Parameters of a collective. An algorithm reads the parameters it needs (its
// row's configure step, make_spec below): dims: the level sizes of the
// hierarchical ring, innermost first (e.g. {GPUs per server, servers per leaf,
// leaves per pod, ...}; 2 to kMaxLevels entries, the rest 0), or exactly two
// for the 2D torus; p must equal their product, and members of an innermost
// group are consecutive indices. payload: the algorithm family's own
// parameters (payload.hpp), which only the family reads.
inline constexpr std::size_t kMaxLevels = 8;
using Dims = std::array<std::uint32_t, kMaxLevels>;
// The number of leading non-zero entries of dims.
std::size_t levels(const Dims& dims);

struct CollectiveSpec {
  Op op = Op::kAllReduce;
  Algorithm algorithm;
  std::uint32_t p = 1;
  std::uint64_t bytes = 0;
  std::uint32_t root = 0;  // broadcast, reduce, gather, scatter
  Dims dims{};
  AlgorithmPayload payload;  // the algorithm's family fills and reads it
};

// What a communicator offers the algorithms that run on it (docs/models.md, "Collectives"):
// the shapes of the hierarchy its members sit in, derived from the fabric or
// given by the scenario, and the parameters an algorithm family defines for
// itself (the job a fabric placed for it, e.g. RAMP-x's: ramp_x.hpp). Each
// algorithm takes what it needs (make_spec). Equal when the algorithms see the
// same parameters: the payload compares by its family's own ==.
struct AlgorithmParams {
  Dims hierarchy{};  // hierarchical ring: one level per tier of the fabric, innermost first
  Dims torus{};      // 2D torus: {X, Y}
  AlgorithmPayload payload;
  friend bool operator==(const AlgorithmParams&, const AlgorithmParams&) = default;
};

// The collective `op` of `bytes` on p members with `algorithm`, which reads its
// parameters from `params`.
CollectiveSpec make_spec(Op op, Algorithm algorithm, std::uint32_t p, std::uint64_t bytes,
                         std::uint32_t root, const AlgorithmParams& params);

class InvalidCollective : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Why `spec` cannot run (an algorithm that does not implement the op, dims that
// do not multiply to p, root >= p, p == 0), or "" when it can.
std::string why_invalid(const CollectiveSpec& spec);

// The schedule of one member. Throws InvalidCollective when why_invalid(spec)
// is not empty or member >= p.
class Schedule {
 public:
  Schedule(const CollectiveSpec& spec, std::uint32_t member);
  std::uint32_t member() const { return member_; }
  const CollectiveSpec& spec() const { return spec_; }
  std::uint64_t chunks() const { return chunks_; }
  std::uint64_t chunk_bytes(std::uint64_t c) const;
  // Steps of this member; members may have different step counts (trees).
  std::uint32_t steps() const { return steps_; }
  // Throws std::out_of_range when i >= steps().
  Step step(std::uint32_t i) const;

  // Runs of consecutive steps that are identical on the wire for every member
  // of the group (same peers, bytes and local operation): ring phases when the
  // buffer divides evenly into chunks. Every other step is a run of its own.
  // The critical-path estimator evaluates one step per run, which is what
  // makes a 65,536-member ring (131,070 steps) cheap to estimate.
  struct Run {
    std::uint32_t first = 0;
    std::uint32_t count = 0;
  };
  std::vector<Run> runs() const;

 private:
  struct Plan;  // the member's stages (schedule.cpp); shared by copies, immutable

  CollectiveSpec spec_;
  std::uint32_t member_;
  std::uint64_t chunks_ = 1;
  std::uint32_t steps_ = 0;
  std::shared_ptr<const Plan> plan_;
};

}  // namespace sipsim::collective
