// Tests of the collective schedules: an abstract executor runs every member's schedule
// concurrently on contributor sets and checks message matching, byte accounting, the local
// operation rule, deadlock freedom and the final state of each operation.
#include "sipsim/collective/schedule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace sipsim::collective {
namespace {

constexpr Op kOps[] = {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather,
                       Op::kAllToAll,  Op::kBroadcast,     Op::kReduce,
                       Op::kGather,    Op::kScatter,       Op::kBarrier};
constexpr Algorithm kAlgorithms[] = {
    Algorithm::kRing,    Algorithm::kBidirectionalRing, Algorithm::kHierarchicalRing,
    Algorithm::kTorus2d, Algorithm::kHalvingDoubling,   Algorithm::kBruck,
    Algorithm::kDirect,  Algorithm::kBinomialTree,      Algorithm::kDoubleBinaryTree};

// The support matrix of the brief, kept independent of the implementation's own table.
bool expected_support(Algorithm a, Op op) {
  static const std::map<Algorithm, std::set<Op>> kTable = {
      {Algorithm::kRing, {std::begin(kOps), std::end(kOps)}},
      {Algorithm::kBidirectionalRing, {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather}},
      {Algorithm::kHierarchicalRing,
       {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather, Op::kBroadcast, Op::kReduce}},
      {Algorithm::kTorus2d, {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather, Op::kAllToAll}},
      {Algorithm::kHalvingDoubling,
       {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather, Op::kBroadcast, Op::kReduce}},
      {Algorithm::kBruck, {Op::kAllGather, Op::kAllToAll, Op::kBarrier}},
      {Algorithm::kDirect, {std::begin(kOps), std::end(kOps)}},
      {Algorithm::kBinomialTree,
       {Op::kBroadcast, Op::kReduce, Op::kGather, Op::kScatter, Op::kAllReduce, Op::kBarrier}},
      {Algorithm::kDoubleBinaryTree, {Op::kAllReduce, Op::kBroadcast, Op::kReduce}},
  };
  return kTable.at(a).count(op) > 0;
}

bool rooted(Op op) {
  return op == Op::kBroadcast || op == Op::kReduce || op == Op::kGather || op == Op::kScatter;
}
bool two_dims(Algorithm a) {
  return a == Algorithm::kHierarchicalRing || a == Algorithm::kTorus2d;
}

std::string describe(const CollectiveSpec& s) {
  std::ostringstream o;
  o << to_string(s.op) << " / " << to_string(s.algorithm) << " p=" << s.p << " bytes=" << s.bytes
    << " root=" << s.root;
  if (two_dims(s.algorithm)) o << " dims=" << s.dims[0] << "x" << s.dims[1];
  return o.str();
}

CollectiveSpec make_spec(Op op, Algorithm a, std::uint32_t p, std::uint64_t bytes = 1000,
                         std::uint32_t root = 0, std::uint32_t d0 = 0, std::uint32_t d1 = 0) {
  CollectiveSpec s;
  s.op = op;
  s.algorithm = a;
  s.p = p;
  s.bytes = bytes;
  s.root = root;
  if (two_dims(a) && d0 == 0) {
    d0 = 1;
    d1 = p;
  }
  s.dims[0] = d0;
  s.dims[1] = d1;
  return s;
}

std::uint32_t ceil_log2(std::uint64_t x) {
  return x <= 1 ? 0u : static_cast<std::uint32_t>(std::bit_width(x - 1));
}

// ---------------------------------------------------------------------------------------------
// The abstract executor.

using Mutator = std::function<void(std::uint32_t member, std::uint32_t step, Step&)>;

struct Outcome {
  std::string error;         // "" when everything checked out
  std::uint64_t rounds = 0;  // critical path, one unit per step (all steps cost the same)
  std::uint64_t messages = 0;
};

class Executor {
 public:
  Executor(const CollectiveSpec& spec, Mutator mutate)
      : spec_(spec), mutate_(std::move(mutate)), p_(spec.p), words_((spec.p + 63) / 64) {}

  Outcome run() {
    Outcome out;
    try {
      out.error = execute(out);
    } catch (const std::exception& e) {
      out.error = std::string("exception: ") + e.what();
    }
    return out;
  }

 private:
  using Words = std::vector<std::uint64_t>;

  struct Message {
    std::vector<std::uint64_t> chunks;  // in ChunkSet order
    std::uint64_t bytes = 0;
    Words bits;  // words_ per chunk
    std::uint64_t time = 0;
  };
  struct Cursor {
    std::uint32_t step = 0;
    bool loaded = false;
    bool started = false;
    std::uint64_t start = 0;
    Step current;
  };

  std::uint64_t* bits(std::uint32_t r, std::uint64_t c) { return &state_[r][c * words_]; }
  Words single(std::uint32_t i) const {
    Words w(words_, 0);
    w[i / 64] |= std::uint64_t{1} << (i % 64);
    return w;
  }
  Words full() const {
    Words w(words_, 0);
    for (std::uint32_t i = 0; i < p_; ++i) w[i / 64] |= std::uint64_t{1} << (i % 64);
    return w;
  }
  void give(std::uint32_t r, std::uint64_t c, const Words& w) {
    present_[r][c] = 1;
    std::copy(w.begin(), w.end(), bits(r, c));
  }
  bool holds(std::uint32_t r, std::uint64_t c, const Words& w) {
    return present_[r][c] && std::equal(w.begin(), w.end(), bits(r, c));
  }

  // Enumerates a ChunkSet, rejecting empty sets and repeated chunks.
  std::string enumerate(const ChunkSet& s, std::vector<std::uint64_t>& out) {
    out.clear();
    if (s.run == 0 || s.runs == 0) return "empty chunk set";
    if (s.count() > chunks_) return "chunk set larger than chunks()";
    bool dup = false;
    s.for_each(chunks_, [&](std::uint64_t c) {
      if (mark_[c]) dup = true;
      mark_[c] = 1;
      out.push_back(c);
    });
    for (std::uint64_t c : out) mark_[c] = 0;
    return dup ? "chunk set repeats a chunk" : "";
  }
  std::uint64_t sum_bytes(const std::vector<std::uint64_t>& chunks) const {
    std::uint64_t b = 0;
    for (std::uint64_t c : chunks) b += chunk_bytes_[c];
    return b;
  }

  void initial_state() {
    const std::uint64_t C = chunks_;
    for (std::uint32_t r = 0; r < p_; ++r) {
      for (std::uint64_t c = 0; c < C; ++c) {
        switch (spec_.op) {
          case Op::kAllReduce:
          case Op::kReduceScatter:
          case Op::kReduce:
            give(r, c, single(r));
            break;
          case Op::kBroadcast:
          case Op::kScatter:
            if (r == spec_.root) give(r, c, single(r));
            break;
          case Op::kAllGather:
          case Op::kGather:
          case Op::kBarrier:
            if (c % p_ == r) give(r, c, single(r));
            break;
          case Op::kAllToAll:
            if (c / p_ == r) give(r, c, single(r));
            break;
        }
      }
    }
  }

  std::string final_state() {
    const std::uint64_t C = chunks_;
    const Words all = full();
    for (std::uint32_t r = 0; r < p_; ++r) {
      for (std::uint64_t c = 0; c < C; ++c) {
        const auto owner = static_cast<std::uint32_t>(c % p_);
        bool ok = true;
        switch (spec_.op) {
          case Op::kAllReduce:
            ok = holds(r, c, all);
            break;
          case Op::kReduceScatter:
            ok = owner != r || holds(r, c, all);
            break;
          case Op::kAllGather:
          case Op::kBarrier:
            ok = holds(r, c, single(owner));
            break;
          case Op::kAllToAll:
            ok = owner != r || holds(r, c, single(static_cast<std::uint32_t>(c / p_)));
            break;
          case Op::kBroadcast:
            ok = holds(r, c, single(spec_.root));
            break;
          case Op::kReduce:
            ok = r != spec_.root || holds(r, c, all);
            break;
          case Op::kGather:
            ok = r != spec_.root || holds(r, c, single(owner));
            break;
          case Op::kScatter:
            ok = owner != r || holds(r, c, single(spec_.root));
            break;
        }
        if (!ok) {
          std::ostringstream e;
          e << "final state: member " << r << " chunk " << c << " is "
            << (present_[r][c] ? "wrong" : "absent");
          return e.str();
        }
      }
    }
    return "";
  }

  std::string where(std::uint32_t r, std::uint32_t step) const {
    std::ostringstream e;
    e << "member " << r << " step " << step << ": ";
    return e.str();
  }

  std::string check_local(std::uint32_t r, const Cursor& cur) {
    const Step& s = cur.current;
    std::map<std::uint64_t, std::uint32_t> reduced;
    std::vector<std::uint64_t> chunks;
    for (const Recv& rv : s.recvs) {
      if (rv.combine != Combine::kReduce) continue;
      enumerate(rv.chunks, chunks);
      for (std::uint64_t c : chunks) ++reduced[c];
    }
    if (!reduced.empty()) {
      std::uint32_t most = 0;
      std::uint64_t bytes = 0;
      for (const auto& [c, n] : reduced) {
        most = std::max(most, n);
        bytes += chunk_bytes_[c];
      }
      if (s.local != LocalOp::kReduce || s.sources != 1 + most || s.local_bytes != bytes) {
        std::ostringstream e;
        e << where(r, cur.step) << "local op should be reduce of " << 1 + most << " x " << bytes
          << " bytes, got sources " << s.sources << " bytes " << s.local_bytes;
        return e.str();
      }
      return "";
    }
    if (s.local == LocalOp::kReduce) return where(r, cur.step) + "reduce without a reduction";
    if (s.local == LocalOp::kNone && (s.sources != 0 || s.local_bytes != 0)) {
      return where(r, cur.step) + "kNone with sources or bytes";
    }
    if (s.local == LocalOp::kCopy && (s.sources != 0 || spec_.algorithm != Algorithm::kBruck)) {
      return where(r, cur.step) + "kCopy outside Bruck's rotations";
    }
    return "";
  }

  std::string post_sends(std::uint32_t r, Cursor& cur, Outcome& out) {
    std::vector<std::uint64_t> chunks;
    for (const Send& s : cur.current.sends) {
      if (s.peer >= p_ || s.peer == r) return where(r, cur.step) + "bad send peer";
      if (std::string e = enumerate(s.chunks, chunks); !e.empty()) return where(r, cur.step) + e;
      if (sum_bytes(chunks) != s.bytes) return where(r, cur.step) + "send bytes != chunk bytes";
      Message m;
      m.chunks = chunks;
      m.bytes = s.bytes;
      m.time = cur.start;
      m.bits.reserve(chunks.size() * words_);
      for (std::uint64_t c : chunks) {
        if (!present_[r][c]) {
          std::ostringstream e;
          e << where(r, cur.step) << "sends chunk " << c << " it does not hold";
          return e.str();
        }
        m.bits.insert(m.bits.end(), bits(r, c), bits(r, c) + words_);
      }
      queue(r, s.peer).push_back(std::move(m));
      ++out.messages;
    }
    return "";
  }

  std::deque<Message>& queue(std::uint32_t from, std::uint32_t to) {
    return queues_[std::uint64_t{from} * p_ + to];
  }

  bool ready(std::uint32_t r, const Cursor& cur) {
    std::map<std::uint32_t, std::size_t> need;
    for (const Recv& rv : cur.current.recvs) {
      if (rv.peer >= p_ || rv.peer == r) return true;  // reported by receive()
      if (queue(rv.peer, r).size() < ++need[rv.peer]) return false;
    }
    return true;
  }

  std::string receive(std::uint32_t r, Cursor& cur, std::uint64_t& latest) {
    std::vector<std::uint64_t> chunks;
    for (const Recv& rv : cur.current.recvs) {
      if (rv.peer >= p_ || rv.peer == r) return where(r, cur.step) + "bad recv peer";
      if (std::string e = enumerate(rv.chunks, chunks); !e.empty()) return where(r, cur.step) + e;
      if (sum_bytes(chunks) != rv.bytes) return where(r, cur.step) + "recv bytes != chunk bytes";
      std::deque<Message>& q = queue(rv.peer, r);
      Message m = std::move(q.front());
      q.pop_front();
      if (m.chunks != chunks || m.bytes != rv.bytes) {
        std::ostringstream e;
        e << where(r, cur.step) << "message from " << rv.peer << " mismatches the recv ("
          << m.chunks.size() << " vs " << chunks.size() << " chunks, " << m.bytes << " vs "
          << rv.bytes << " bytes)";
        return e.str();
      }
      latest = std::max(latest, m.time);
      for (std::size_t i = 0; i < chunks.size(); ++i) {
        const std::uint64_t c = chunks[i];
        const std::uint64_t* in = &m.bits[i * words_];
        std::uint64_t* mine = bits(r, c);
        if (rv.combine == Combine::kCopy) {
          present_[r][c] = 1;
          std::copy(in, in + words_, mine);
          continue;
        }
        if (!present_[r][c]) {
          std::ostringstream e;
          e << where(r, cur.step) << "reduces into absent chunk " << c;
          return e.str();
        }
        for (std::size_t w = 0; w < words_; ++w) {
          if (mine[w] & in[w]) {
            std::ostringstream e;
            e << where(r, cur.step) << "double counting in chunk " << c;
            return e.str();
          }
          mine[w] |= in[w];
        }
      }
    }
    return "";
  }

  std::string execute(Outcome& out) {
    std::vector<Schedule> sched;
    for (std::uint32_t r = 0; r < p_; ++r) sched.emplace_back(spec_, r);
    chunks_ = sched[0].chunks();
    for (const Schedule& s : sched) {
      if (s.chunks() != chunks_) return "members disagree on chunks()";
    }
    chunk_bytes_.resize(chunks_);
    for (std::uint64_t c = 0; c < chunks_; ++c) {
      chunk_bytes_[c] = sched[0].chunk_bytes(c);
      if (sched[p_ - 1].chunk_bytes(c) != chunk_bytes_[c]) return "chunk_bytes differ";
    }
    mark_.assign(chunks_, 0);
    state_.assign(p_, Words(chunks_ * words_, 0));
    present_.assign(p_, std::vector<char>(chunks_, 0));
    queues_.resize(std::uint64_t{p_} * p_);
    initial_state();

    std::vector<Cursor> cursor(p_);
    bool progress = true;
    while (progress) {
      progress = false;
      for (std::uint32_t r = 0; r < p_; ++r) {
        Cursor& cur = cursor[r];
        while (cur.step < sched[r].steps()) {
          if (!cur.loaded) {
            cur.current = sched[r].step(cur.step);
            if (mutate_) mutate_(r, cur.step, cur.current);
            cur.loaded = true;
          }
          if (!cur.started) {
            if (std::string e = post_sends(r, cur, out); !e.empty()) return e;
            cur.started = true;
            progress = true;
          }
          if (!ready(r, cur)) break;
          std::uint64_t latest = cur.start;
          if (std::string e = receive(r, cur, latest); !e.empty()) return e;
          if (std::string e = check_local(r, cur); !e.empty()) return e;
          cur.start = latest + 1;
          out.rounds = std::max(out.rounds, cur.start);
          ++cur.step;
          cur.loaded = cur.started = false;
          progress = true;
        }
      }
    }
    for (std::uint32_t r = 0; r < p_; ++r) {
      if (cursor[r].step < sched[r].steps()) {
        std::ostringstream e;
        e << "deadlock: member " << r << " blocked at step " << cursor[r].step << " of "
          << sched[r].steps();
        return e.str();
      }
    }
    for (std::uint64_t i = 0; i < queues_.size(); ++i) {
      if (!queues_[i].empty()) {
        std::ostringstream e;
        e << "unmatched message from " << i / p_ << " to " << i % p_;
        return e.str();
      }
    }
    return final_state();
  }

  CollectiveSpec spec_;
  Mutator mutate_;
  std::uint32_t p_;
  std::size_t words_;
  std::uint64_t chunks_ = 0;
  std::vector<std::uint64_t> chunk_bytes_;
  std::vector<char> mark_;
  std::vector<Words> state_;
  std::vector<std::vector<char>> present_;
  std::vector<std::deque<Message>> queues_;
};

Outcome execute(const CollectiveSpec& spec, Mutator mutate = {}) {
  return Executor(spec, std::move(mutate)).run();
}

// Every valid (op, algorithm, dims, root) for group size p.
std::vector<CollectiveSpec> all_specs(std::uint32_t p, const std::vector<std::uint64_t>& sizes,
                                      const std::vector<Algorithm>& algorithms) {
  std::vector<CollectiveSpec> out;
  for (Algorithm a : algorithms) {
    for (Op op : kOps) {
      if (!expected_support(a, op)) continue;
      std::vector<std::pair<std::uint32_t, std::uint32_t>> dims = {{0, 0}};
      if (two_dims(a)) {
        dims.clear();
        for (std::uint32_t d = 1; d <= p; ++d) {
          if (p % d == 0) dims.emplace_back(d, p / d);
        }
      }
      std::set<std::uint32_t> roots = {0};
      if (rooted(op)) roots = {0, p - 1, p / 2};
      for (const auto& [d0, d1] : dims) {
        for (std::uint32_t root : roots) {
          for (std::uint64_t bytes : sizes) out.push_back(make_spec(op, a, p, bytes, root, d0, d1));
        }
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Names, factors, validation.

TEST(Names, RoundTrip) {
  ASSERT_EQ(op_names().size(), std::size(kOps));
  ASSERT_EQ(algorithm_names().size(), std::size(kAlgorithms));
  for (std::size_t i = 0; i < std::size(kOps); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(kOps[i]), i);
    EXPECT_EQ(op_names()[i], to_string(kOps[i]));
    EXPECT_EQ(parse_op(to_string(kOps[i])), kOps[i]);
  }
  for (std::size_t i = 0; i < std::size(kAlgorithms); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(kAlgorithms[i]), i);
    EXPECT_EQ(algorithm_names()[i], to_string(kAlgorithms[i]));
    EXPECT_EQ(parse_algorithm(to_string(kAlgorithms[i])), kAlgorithms[i]);
  }
  EXPECT_EQ(to_string(Op::kAllReduce), "all-reduce");
  EXPECT_EQ(to_string(Op::kAllToAll), "all-to-all");
  EXPECT_EQ(to_string(Algorithm::kBidirectionalRing), "bidirectional-ring");
  EXPECT_EQ(to_string(Algorithm::kDoubleBinaryTree), "double-binary-tree");
  EXPECT_EQ(parse_op("allreduce"), std::nullopt);
  EXPECT_EQ(parse_op(""), std::nullopt);
  EXPECT_EQ(parse_algorithm("Ring"), std::nullopt);
  EXPECT_EQ(parse_algorithm("torus"), std::nullopt);
}

TEST(BusBandwidth, NcclTestsFactors) {
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Op::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Op::kAllReduce, 1), 0.0);
  for (Op op : {Op::kReduceScatter, Op::kAllGather, Op::kAllToAll, Op::kGather, Op::kScatter}) {
    EXPECT_DOUBLE_EQ(bus_bandwidth_factor(op, 4), 0.75) << to_string(op);
  }
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Op::kBroadcast, 16), 1.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Op::kReduce, 3), 1.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Op::kBarrier, 16), 0.0);
}

TEST(WhyInvalid, SupportMatrixAndMessages) {
  for (Algorithm a : kAlgorithms) {
    for (Op op : kOps) {
      const CollectiveSpec s = make_spec(op, a, 4, 100, 0, 2, 2);
      const std::string why = why_invalid(s);
      if (expected_support(a, op)) {
        EXPECT_EQ(why, "") << describe(s);
        EXPECT_NO_THROW(Schedule(s, 3));
      } else {
        EXPECT_EQ(why, "algorithm " + std::string(to_string(a)) + " does not implement op " +
                           std::string(to_string(op)));
        EXPECT_THROW(Schedule(s, 0), InvalidCollective);
      }
    }
  }
  EXPECT_EQ(why_invalid(make_spec(Op::kAllReduce, Algorithm::kBruck, 4)),
            "algorithm bruck does not implement op all-reduce");
  EXPECT_EQ(why_invalid(make_spec(Op::kGather, Algorithm::kDoubleBinaryTree, 4)),
            "algorithm double-binary-tree does not implement op gather");
  EXPECT_EQ(why_invalid(make_spec(Op::kBroadcast, Algorithm::kRing, 4, 10, 4)),
            "root 4 is not a member (p = 4)");
  EXPECT_EQ(why_invalid(make_spec(Op::kAllReduce, Algorithm::kRing, 0)),
            "a collective needs p >= 1 members");
  EXPECT_EQ(why_invalid(make_spec(Op::kAllReduce, Algorithm::kTorus2d, 6, 10, 0, 2, 2)),
            "algorithm torus2d needs dims whose product is p = 6, got 2 x 2");
  EXPECT_NE(why_invalid(make_spec(Op::kAllReduce, Algorithm::kHierarchicalRing, 6, 10, 0, 6, 0)),
            "");
  EXPECT_THROW(Schedule(make_spec(Op::kAllReduce, Algorithm::kRing, 0), 0), InvalidCollective);
  EXPECT_THROW(Schedule(make_spec(Op::kAllReduce, Algorithm::kRing, 4), 4), InvalidCollective);
  // dims are ignored by the one-dimensional algorithms.
  EXPECT_EQ(why_invalid(make_spec(Op::kAllReduce, Algorithm::kRing, 6, 10, 0, 7, 7)), "");
}

TEST(Schedule, StepOutOfRangeThrows) {
  const Schedule s(make_spec(Op::kAllReduce, Algorithm::kRing, 4), 1);
  EXPECT_EQ(s.steps(), 6u);
  EXPECT_THROW(s.step(6), std::out_of_range);
  const Schedule one(make_spec(Op::kAllReduce, Algorithm::kRing, 1), 0);
  EXPECT_EQ(one.steps(), 0u);
  EXPECT_THROW(one.step(0), std::out_of_range);
}

// ---------------------------------------------------------------------------------------------
// Byte accounting.

TEST(ChunkBytes, PartitionTheBuffer) {
  const std::vector<std::uint64_t> sizes = {
      0, 1, 7, 1000, 123456789, (std::uint64_t{1} << 40) + 3, std::uint64_t{1} << 62};
  for (std::uint32_t p : {1u, 2u, 3u, 7u, 16u, 33u}) {
    for (Algorithm a : kAlgorithms) {
      for (Op op : kOps) {
        if (!expected_support(a, op)) continue;
        for (std::uint64_t bytes : sizes) {
          const CollectiveSpec spec = make_spec(op, a, p, bytes);
          const Schedule s(spec, 0);
          const std::uint64_t C = s.chunks();
          const std::uint64_t rows = op == Op::kAllToAll ? p : 1, per_row = C / rows;
          const std::uint64_t want = op == Op::kBarrier ? 0 : bytes;
          for (std::uint64_t row = 0; row < rows; ++row) {
            std::uint64_t sum = 0, lo = UINT64_MAX, hi = 0;
            for (std::uint64_t c = row * per_row; c < (row + 1) * per_row; ++c) {
              const std::uint64_t b = s.chunk_bytes(c);
              sum += b;
              lo = std::min(lo, b);
              hi = std::max(hi, b);
            }
            ASSERT_EQ(sum, want) << describe(spec) << " row " << row;
            ASSERT_LE(hi - lo, 1u) << describe(spec);
          }
        }
      }
    }
  }
}

// Send / Recv bytes equal the sum of chunk_bytes over their ChunkSet, also for sizes where the
// products bytes * index exceed 64 bits (all-to-all: T = p * bytes > 2^64).
TEST(ChunkBytes, SetBytesMatchChunkSumsForHugeSizes) {
  for (std::uint32_t p : {5u, 12u, 16u}) {
    for (std::uint64_t bytes : {(std::uint64_t{1} << 50) + 12345, (std::uint64_t{1} << 62) + 7}) {
      for (const CollectiveSpec& spec :
           all_specs(p, {bytes}, {std::begin(kAlgorithms), std::end(kAlgorithms)})) {
        for (std::uint32_t r = 0; r < p; ++r) {
          const Schedule s(spec, r);
          auto sum = [&](const ChunkSet& cs) {
            std::uint64_t b = 0;
            cs.for_each(s.chunks(), [&](std::uint64_t c) { b += s.chunk_bytes(c); });
            return b;
          };
          for (std::uint32_t i = 0; i < s.steps(); ++i) {
            const Step st = s.step(i);
            for (const Send& snd : st.sends)
              ASSERT_EQ(snd.bytes, sum(snd.chunks)) << describe(spec);
            for (const Recv& rv : st.recvs) ASSERT_EQ(rv.bytes, sum(rv.chunks)) << describe(spec);
          }
        }
      }
    }
  }
}

TEST(Schedule, CopiesAndRepeatedCallsAgree) {
  const Schedule a(make_spec(Op::kAllToAll, Algorithm::kBruck, 13, 1000), 4);
  const Schedule b = a;
  for (std::uint32_t i = 0; i < a.steps(); ++i) {
    const Step x = a.step(i), y = b.step(i), z = a.step(i);
    ASSERT_EQ(x.sends.size(), y.sends.size());
    ASSERT_EQ(x.sends.size(), z.sends.size());
    for (std::size_t k = 0; k < x.sends.size(); ++k) {
      EXPECT_EQ(x.sends[k].chunks.first, y.sends[k].chunks.first);
      EXPECT_EQ(x.sends[k].bytes, z.sends[k].bytes);
    }
  }
}

TEST(ChunkBytes, ChunkCounts) {
  EXPECT_EQ(Schedule(make_spec(Op::kAllReduce, Algorithm::kRing, 6), 0).chunks(), 6u);
  EXPECT_EQ(Schedule(make_spec(Op::kAllToAll, Algorithm::kRing, 6), 0).chunks(), 36u);
  EXPECT_EQ(Schedule(make_spec(Op::kAllGather, Algorithm::kBidirectionalRing, 6), 0).chunks(), 12u);
  EXPECT_EQ(Schedule(make_spec(Op::kAllReduce, Algorithm::kHalvingDoubling, 6), 0).chunks(), 4u);
  EXPECT_EQ(Schedule(make_spec(Op::kReduceScatter, Algorithm::kHalvingDoubling, 6), 0).chunks(),
            6u);
  EXPECT_EQ(Schedule(make_spec(Op::kAllReduce, Algorithm::kDoubleBinaryTree, 6), 0).chunks(), 2u);
  EXPECT_EQ(Schedule(make_spec(Op::kBarrier, Algorithm::kBruck, 6, 99), 0).chunk_bytes(3), 0u);
}

// ---------------------------------------------------------------------------------------------
// Exhaustive execution.

TEST(Executor, AllCollectivesOnSmallGroups) {
  int failures = 0, runs = 0;
  const std::vector<Algorithm> algorithms(std::begin(kAlgorithms), std::end(kAlgorithms));
  for (std::uint32_t p = 1; p <= 17; ++p) {
    const std::vector<std::uint64_t> sizes = {0, 1, 7, 1000, std::uint64_t{p} * p * 3 + 1};
    for (const CollectiveSpec& spec : all_specs(p, sizes, algorithms)) {
      ++runs;
      const Outcome out = execute(spec);
      if (!out.error.empty() && ++failures <= 20)
        ADD_FAILURE() << describe(spec) << ": " << out.error;
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(runs, 5000);
}

TEST(Executor, LargerGroupsSpotChecks) {
  const std::vector<Algorithm> algorithms = {Algorithm::kRing, Algorithm::kHalvingDoubling,
                                             Algorithm::kBruck, Algorithm::kDirect};
  int failures = 0;
  for (std::uint32_t p : {64u, 100u, 128u}) {
    for (CollectiveSpec spec : all_specs(p, {std::uint64_t{p} * p * 3 + 1}, algorithms)) {
      const Outcome out = execute(spec);
      if (!out.error.empty() && ++failures <= 10)
        ADD_FAILURE() << describe(spec) << ": " << out.error;
    }
  }
  // The other algorithms once each at a larger size.
  for (const CollectiveSpec& spec :
       {make_spec(Op::kAllReduce, Algorithm::kBidirectionalRing, 64, 99999),
        make_spec(Op::kAllReduce, Algorithm::kHierarchicalRing, 96, 99999, 0, 8, 12),
        make_spec(Op::kBroadcast, Algorithm::kHierarchicalRing, 96, 99999, 50, 8, 12),
        make_spec(Op::kReduce, Algorithm::kHierarchicalRing, 96, 99999, 95, 12, 8),
        make_spec(Op::kAllToAll, Algorithm::kTorus2d, 96, 99999, 0, 8, 12),
        make_spec(Op::kAllReduce, Algorithm::kTorus2d, 100, 99999, 0, 10, 10),
        make_spec(Op::kAllReduce, Algorithm::kDoubleBinaryTree, 100, 99999),
        make_spec(Op::kBroadcast, Algorithm::kDoubleBinaryTree, 127, 99999, 77),
        make_spec(Op::kReduce, Algorithm::kDoubleBinaryTree, 128, 99999, 5),
        make_spec(Op::kGather, Algorithm::kBinomialTree, 100, 99999, 33),
        make_spec(Op::kAllReduce, Algorithm::kBinomialTree, 100, 99999)}) {
    const Outcome out = execute(spec);
    EXPECT_EQ(out.error, "") << describe(spec);
  }
  EXPECT_EQ(failures, 0);
}

// ---------------------------------------------------------------------------------------------
// Step counts against the textbook values.

std::uint32_t max_steps(const CollectiveSpec& spec) {
  std::uint32_t m = 0;
  for (std::uint32_t r = 0; r < spec.p; ++r) m = std::max(m, Schedule(spec, r).steps());
  return m;
}
std::uint32_t min_steps(const CollectiveSpec& spec) {
  std::uint32_t m = UINT32_MAX;
  for (std::uint32_t r = 0; r < spec.p; ++r) m = std::min(m, Schedule(spec, r).steps());
  return m;
}
// Every member has exactly n steps and the critical path is n rounds.
void expect_uniform(const CollectiveSpec& spec, std::uint64_t n) {
  EXPECT_EQ(max_steps(spec), n) << describe(spec);
  EXPECT_EQ(min_steps(spec), n) << describe(spec);
  const Outcome out = execute(spec);
  EXPECT_EQ(out.error, "") << describe(spec);
  EXPECT_EQ(out.rounds, n) << describe(spec);
}

TEST(StepCounts, Textbook) {
  for (std::uint32_t p : {2u, 3u, 5u, 8u, 12u, 16u, 31u, 32u}) {
    const std::uint32_t lg = ceil_log2(p);
    expect_uniform(make_spec(Op::kAllReduce, Algorithm::kRing, p), 2 * (p - 1));
    expect_uniform(make_spec(Op::kReduceScatter, Algorithm::kRing, p), p - 1);
    expect_uniform(make_spec(Op::kAllGather, Algorithm::kRing, p), p - 1);
    expect_uniform(make_spec(Op::kAllToAll, Algorithm::kRing, p), p - 1);
    expect_uniform(make_spec(Op::kBarrier, Algorithm::kRing, p), p - 1);
    expect_uniform(make_spec(Op::kAllReduce, Algorithm::kBidirectionalRing, p), 2 * (p - 1));
    expect_uniform(make_spec(Op::kAllGather, Algorithm::kBruck, p), lg);
    expect_uniform(make_spec(Op::kAllToAll, Algorithm::kBruck, p), lg);
    expect_uniform(make_spec(Op::kBarrier, Algorithm::kBruck, p), lg);
    expect_uniform(make_spec(Op::kAllToAll, Algorithm::kDirect, p), p - 1);
    expect_uniform(make_spec(Op::kAllGather, Algorithm::kDirect, p), p - 1);
    expect_uniform(make_spec(Op::kReduceScatter, Algorithm::kDirect, p), p - 1);
    expect_uniform(make_spec(Op::kAllReduce, Algorithm::kDirect, p), 2 * (p - 1));
    if (std::has_single_bit(p)) {
      expect_uniform(make_spec(Op::kAllReduce, Algorithm::kHalvingDoubling, p), 2 * lg);
      expect_uniform(make_spec(Op::kReduceScatter, Algorithm::kHalvingDoubling, p), lg);
      expect_uniform(make_spec(Op::kAllGather, Algorithm::kHalvingDoubling, p), lg);
    } else {  // fold + log2 p' + log2 p' + unfold
      const Outcome out = execute(make_spec(Op::kAllReduce, Algorithm::kHalvingDoubling, p));
      EXPECT_EQ(out.rounds, 2 * (lg - 1) + 2) << p;
    }
    // Rooted direct: p-1 rounds at the root, one step elsewhere.
    for (Op op : {Op::kGather, Op::kScatter, Op::kBroadcast, Op::kReduce}) {
      const CollectiveSpec s = make_spec(op, Algorithm::kDirect, p, 100, p / 2);
      EXPECT_EQ(Schedule(s, p / 2).steps(), p - 1);
      EXPECT_EQ(Schedule(s, (p / 2 + 1) % p).steps(), 1u);
      EXPECT_EQ(execute(s).rounds, p - 1);
    }
    // Binomial tree: depth ceil(log2 p) at the deepest member, log2 p sends at the root.
    for (Op op : {Op::kBroadcast, Op::kReduce, Op::kGather, Op::kScatter}) {
      const CollectiveSpec s = make_spec(op, Algorithm::kBinomialTree, p, 100, p - 1);
      EXPECT_EQ(Schedule(s, p - 1).steps(), lg) << to_string(op) << " p=" << p;
      EXPECT_EQ(execute(s).rounds, lg) << to_string(op) << " p=" << p;
    }
    EXPECT_EQ(execute(make_spec(Op::kAllReduce, Algorithm::kBinomialTree, p)).rounds, 2 * lg);
    // Pipelined ring chain: (p-1) hops + (C-1) chunks, C = p.
    EXPECT_EQ(execute(make_spec(Op::kBroadcast, Algorithm::kRing, p, 100, 1)).rounds, 2 * p - 2);
    EXPECT_EQ(execute(make_spec(Op::kReduce, Algorithm::kRing, p, 100, 1)).rounds, 2 * p - 2);
    EXPECT_EQ(Schedule(make_spec(Op::kBroadcast, Algorithm::kRing, p), 0).steps(), p);
    EXPECT_EQ(max_steps(make_spec(Op::kBroadcast, Algorithm::kRing, p)), p == 2 ? p : p + 1);
    // Ring relays for gather / scatter: p-1 steps at the root.
    EXPECT_EQ(Schedule(make_spec(Op::kGather, Algorithm::kRing, p, 1, 1), 1).steps(), p - 1);
    EXPECT_EQ(execute(make_spec(Op::kGather, Algorithm::kRing, p, 1, 1)).rounds, p - 1);
    EXPECT_EQ(execute(make_spec(Op::kScatter, Algorithm::kRing, p, 1, 1)).rounds, p - 1);
    // Double binary tree all-reduce: up and down trees of depth <= floor(log2 p) + 1.
    const Outcome dbt = execute(make_spec(Op::kAllReduce, Algorithm::kDoubleBinaryTree, p));
    EXPECT_EQ(dbt.error, "");
    EXPECT_LE(dbt.rounds, 2 * (lg + 1)) << p;
  }
  // Two-level rings: 2(L-1) + 2(G-1).
  for (auto [l, g] : {std::pair{2u, 3u}, {4u, 4u}, {3u, 5u}, {1u, 7u}, {7u, 1u}}) {
    expect_uniform(make_spec(Op::kAllReduce, Algorithm::kHierarchicalRing, l * g, 100, 0, l, g),
                   2 * (l - 1) + 2 * (g - 1));
    expect_uniform(make_spec(Op::kAllReduce, Algorithm::kTorus2d, l * g, 100, 0, l, g),
                   2 * (l - 1) + 2 * (g - 1));
    expect_uniform(make_spec(Op::kAllToAll, Algorithm::kTorus2d, l * g, 100, 0, l, g),
                   (l - 1) + (g - 1));
  }
}

// NCCL's complementary trees: with an even number of ranks, no member reduces data of both
// trees (a member is an inner node in at most one tree).
TEST(DoubleBinaryTree, InnerInAtMostOneTree) {
  for (std::uint32_t p : {2u, 4u, 6u, 10u, 14u, 64u}) {
    const CollectiveSpec spec = make_spec(Op::kAllReduce, Algorithm::kDoubleBinaryTree, p, 1000);
    for (std::uint32_t r = 0; r < p; ++r) {
      const Schedule s(spec, r);
      std::set<std::uint64_t> reduced;
      for (std::uint32_t i = 0; i < s.steps(); ++i) {
        for (const Recv& rv : s.step(i).recvs) {
          if (rv.combine == Combine::kReduce) reduced.insert(rv.chunks.first);
        }
      }
      EXPECT_LE(reduced.size(), 1u) << "p=" << p << " member " << r;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// On-demand schedules of very large groups.

TEST(Schedule, LargeGroupsOnDemand) {
  const auto t0 = std::chrono::steady_clock::now();
  {
    const Schedule s(make_spec(Op::kAllReduce, Algorithm::kRing, 65536, 1 << 30), 12345);
    EXPECT_EQ(s.steps(), 2u * 65535);
    const Step st = s.step(100000);  // all-gather stage, step 100000 - 65535
    ASSERT_EQ(st.sends.size(), 1u);
    ASSERT_EQ(st.recvs.size(), 1u);
    EXPECT_EQ(st.sends[0].peer, 12346u);
    EXPECT_EQ(st.recvs[0].peer, 12344u);
    EXPECT_EQ(st.sends[0].chunks.first, (12345 + 65536 * 2 - (100000 - 65535)) % 65536);
    EXPECT_EQ(st.local, LocalOp::kNone);
  }
  {
    // Bruck all-to-all on 65536 members: C = 2^32 chunks; step k sends the p/2 blocks of the
    // positions with bit k set as a few strided ChunkSets.
    const std::uint32_t p = 65536;
    const Schedule s(make_spec(Op::kAllToAll, Algorithm::kBruck, p, std::uint64_t{p} * 1000), 777);
    EXPECT_EQ(s.steps(), 16u);
    for (std::uint32_t k = 0; k < 16; ++k) {
      const Step st = s.step(k);
      std::uint64_t blocks = 0, bytes = 0;
      for (const Send& snd : st.sends) {
        EXPECT_EQ(snd.peer, (777 + (1u << k)) % p);
        blocks += snd.chunks.count();
        bytes += snd.bytes;
      }
      EXPECT_EQ(blocks, p / 2);
      EXPECT_EQ(bytes, std::uint64_t{p} / 2 * 1000);
      EXPECT_LE(st.sends.size(), 512u);
    }
  }
  EXPECT_EQ(Schedule(make_spec(Op::kAllReduce, Algorithm::kHalvingDoubling, 1 << 20), 5).steps(),
            40u);
  EXPECT_EQ(Schedule(make_spec(Op::kBroadcast, Algorithm::kBinomialTree, 1000000), 0).steps(), 20u);
  EXPECT_LE(Schedule(make_spec(Op::kAllReduce, Algorithm::kDoubleBinaryTree, 1000000), 999).steps(),
            8u);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(secs, 2.0);
}

// ---------------------------------------------------------------------------------------------
// The executor must catch broken schedules.

TEST(Executor, DetectsChunkMismatch) {
  const Outcome out = execute(make_spec(Op::kAllReduce, Algorithm::kRing, 4, 400),
                              [](std::uint32_t r, std::uint32_t i, Step& s) {
                                if (r == 1 && i == 0) {
                                  s.recvs[0].chunks.first = (s.recvs[0].chunks.first + 1) % 4;
                                }
                              });
  EXPECT_NE(out.error.find("mismatches"), std::string::npos) << out.error;
}

TEST(Executor, DetectsDoubleCounting) {
  // Reduce instead of copy in the all-gather stage: the full sum is added to a partial one.
  const Outcome out = execute(make_spec(Op::kAllReduce, Algorithm::kRing, 4, 400),
                              [](std::uint32_t r, std::uint32_t i, Step& s) {
                                if (r == 2 && i == 3) {
                                  s.recvs[0].combine = Combine::kReduce;
                                  s.local = LocalOp::kReduce;
                                  s.sources = 2;
                                  s.local_bytes = 100;
                                }
                              });
  EXPECT_NE(out.error.find("double counting"), std::string::npos) << out.error;
}

TEST(Executor, DetectsDeadlock) {
  // Member 1 never sends its last block: member 2 waits forever.
  const Outcome out = execute(make_spec(Op::kAllReduce, Algorithm::kRing, 4),
                              [](std::uint32_t r, std::uint32_t i, Step& s) {
                                if (r == 1 && i == 5) s.sends.clear();
                              });
  EXPECT_NE(out.error.find("deadlock"), std::string::npos) << out.error;
}

TEST(Executor, DetectsUnmatchedMessage) {
  // Member 0 of a broadcast gets the data twice.
  const Outcome out = execute(make_spec(Op::kBroadcast, Algorithm::kDirect, 3, 10, 0),
                              [](std::uint32_t r, std::uint32_t i, Step& s) {
                                if (r == 0 && i == 0) s.sends.push_back(s.sends[0]);
                              });
  EXPECT_NE(out.error.find("unmatched"), std::string::npos) << out.error;
}

TEST(Executor, DetectsWrongBytes) {
  const Outcome out = execute(make_spec(Op::kAllToAll, Algorithm::kDirect, 3, 30),
                              [](std::uint32_t r, std::uint32_t i, Step& s) {
                                if (r == 1 && i == 1) s.sends[0].bytes += 1;
                              });
  EXPECT_NE(out.error.find("bytes"), std::string::npos) << out.error;
}

TEST(Executor, DetectsSendingAbsentData) {
  const Outcome out = execute(make_spec(Op::kAllGather, Algorithm::kRing, 4, 400),
                              [](std::uint32_t, std::uint32_t i, Step& s) {
                                if (i == 0) {  // send the block the member will receive next
                                  s.sends[0].chunks.first = (s.sends[0].chunks.first + 3) % 4;
                                  s.recvs[0].chunks.first = (s.recvs[0].chunks.first + 3) % 4;
                                }
                              });
  EXPECT_NE(out.error.find("does not hold"), std::string::npos) << out.error;
}

TEST(Executor, DetectsWrongFinalState) {
  // Every member forwards an already-known block in the last all-gather step.
  const Outcome out = execute(make_spec(Op::kAllGather, Algorithm::kRing, 4, 400),
                              [](std::uint32_t, std::uint32_t i, Step& s) {
                                if (i == 2) {
                                  s.sends[0].chunks.first = (s.sends[0].chunks.first + 1) % 4;
                                  s.recvs[0].chunks.first = (s.recvs[0].chunks.first + 1) % 4;
                                }
                              });
  EXPECT_NE(out.error.find("final state"), std::string::npos) << out.error;
}

TEST(Executor, DetectsWrongLocalOp) {
  const Outcome out = execute(make_spec(Op::kReduceScatter, Algorithm::kRing, 4, 400),
                              [](std::uint32_t r, std::uint32_t i, Step& s) {
                                if (r == 0 && i == 1) s.sources = 3;
                              });
  EXPECT_NE(out.error.find("local op"), std::string::npos) << out.error;
}

TEST(Executor, DetectsIncompleteBarrier) {
  // A dissemination barrier that skips its last round leaves members uninformed.
  const Outcome out = execute(make_spec(Op::kBarrier, Algorithm::kBruck, 5, 0),
                              [](std::uint32_t, std::uint32_t i, Step& s) {
                                if (i == 2) {
                                  s.sends.clear();
                                  s.recvs.clear();
                                  s.local = LocalOp::kNone;
                                }
                              });
  EXPECT_NE(out.error.find("final state"), std::string::npos) << out.error;
}

}  // namespace
}  // namespace sipsim::collective
