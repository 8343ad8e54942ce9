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
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "sipsim/collective/ramp_x.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"

namespace sipsim::collective {

// RAMP-x reads the RAMP geometry of fabric/ramp/ (DESIGN.md §1).
namespace ramp = fabric::ramp;
using fabric::ramp::RampShape;
namespace {

constexpr Op kOps[] = {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather,
                       Op::kAllToAll,  Op::kBroadcast,     Op::kReduce,
                       Op::kGather,    Op::kScatter,       Op::kBarrier};
const Algorithm kAlgorithms[] = {
    algorithm("ring"),    algorithm("bidirectional-ring"), algorithm("hierarchical-ring"),
    algorithm("torus2d"), algorithm("halving-doubling"),   algorithm("bruck"),
    algorithm("direct"),  algorithm("binomial-tree"),      algorithm("double-binary-tree")};

// The support matrix of the brief, kept independent of the implementation's own table.
bool expected_support(Algorithm a, Op op) {
  static const std::map<std::string_view, std::set<Op>> kTable = {
      {"ring", {std::begin(kOps), std::end(kOps)}},
      {"bidirectional-ring", {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather}},
      {"hierarchical-ring",
       {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather, Op::kBroadcast, Op::kReduce}},
      {"torus2d", {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather, Op::kAllToAll}},
      {"halving-doubling",
       {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather, Op::kBroadcast, Op::kReduce}},
      {"bruck", {Op::kAllGather, Op::kAllToAll, Op::kBarrier}},
      {"direct", {std::begin(kOps), std::end(kOps)}},
      {"binomial-tree",
       {Op::kBroadcast, Op::kReduce, Op::kGather, Op::kScatter, Op::kAllReduce, Op::kBarrier}},
      {"double-binary-tree", {Op::kAllReduce, Op::kBroadcast, Op::kReduce}},
  };
  return kTable.at(to_string(a)).count(op) > 0;
}

bool rooted(Op op) {
  return op == Op::kBroadcast || op == Op::kReduce || op == Op::kGather || op == Op::kScatter;
}
bool two_dims(Algorithm a) {
  return a == algorithm("hierarchical-ring") || a == algorithm("torus2d");
}

std::string describe(const CollectiveSpec& s) {
  std::ostringstream o;
  o << to_string(s.op) << " / " << to_string(s.algorithm) << " p=" << s.p << " bytes=" << s.bytes
    << " root=" << s.root;
  if (two_dims(s.algorithm)) {
    o << " dims=";
    for (std::size_t i = 0; i < levels(s.dims); ++i) o << (i > 0 ? "x" : "") << s.dims[i];
  }
  if (s.algorithm == algorithm("ramp-x")) {
    o << " ramp=(" << s.ramp.x << "," << s.ramp.J << "," << s.ramp.D << ") active={"
      << s.ramp.active[0] << "," << s.ramp.active[1] << "," << s.ramp.active[2] << ","
      << s.ramp.active[3] << "}";
  }
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

// A message as posted: sender, receiver, the sender's step start time (its round).
struct Transfer {
  std::uint32_t from = 0, to = 0;
  std::uint64_t time = 0;
};

struct Outcome {
  std::string error;         // "" when everything checked out
  std::uint64_t rounds = 0;  // critical path, one unit per step (all steps cost the same)
  std::uint64_t messages = 0;
};

class Executor {
 public:
  Executor(const CollectiveSpec& spec, Mutator mutate, std::vector<Transfer>* log = nullptr)
      : spec_(spec),
        mutate_(std::move(mutate)),
        log_(log),
        p_(spec.p),
        words_((spec.p + 63) / 64) {}

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
    // kCopy: Bruck's rotations and RAMP-x all-to-all's reshape (RAMP §6.1.4) only.
    const bool may_copy = spec_.algorithm == algorithm("bruck") ||
                          (spec_.algorithm == algorithm("ramp-x") && spec_.op == Op::kAllToAll);
    if (s.local == LocalOp::kCopy && (s.sources != 0 || !may_copy)) {
      return where(r, cur.step) + "kCopy outside Bruck's rotations and RAMP's reshape";
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
      if (log_ != nullptr) log_->push_back(Transfer{r, s.peer, cur.start});
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
  std::vector<Transfer>* log_;
  std::uint32_t p_;
  std::size_t words_;
  std::uint64_t chunks_ = 0;
  std::vector<std::uint64_t> chunk_bytes_;
  std::vector<char> mark_;
  std::vector<Words> state_;
  std::vector<std::vector<char>> present_;
  std::vector<std::deque<Message>> queues_;
};

Outcome execute(const CollectiveSpec& spec, Mutator mutate = {},
                std::vector<Transfer>* log = nullptr) {
  return Executor(spec, std::move(mutate), log).run();
}

// Every valid (op, algorithm, dims, root) for group size p.
std::vector<CollectiveSpec> all_specs(std::uint32_t p, const std::vector<std::uint64_t>& sizes,
                                      const std::vector<Algorithm>& algorithms) {
  std::vector<CollectiveSpec> out;
  for (Algorithm a : algorithms) {
    for (Op op : kOps) {
      if (!expected_support(a, op)) continue;
      std::vector<Dims> shapes = {Dims{}};
      if (two_dims(a)) {
        shapes.clear();
        for (std::uint32_t d = 1; d <= p; ++d) {
          if (p % d == 0) shapes.push_back(Dims{d, p / d});
        }
      }
      // Deeper hierarchies: every three-level shape, and one of four levels.
      if (a == algorithm("hierarchical-ring")) {
        for (std::uint32_t d0 = 1; d0 <= p; ++d0) {
          for (std::uint32_t d1 = 1; p % d0 == 0 && d1 <= p / d0; ++d1) {
            if (p / d0 % d1 == 0) shapes.push_back(Dims{d0, d1, p / d0 / d1});
          }
        }
        if (p % 8 == 0) shapes.push_back(Dims{2, 2, 2, p / 8});
      }
      std::set<std::uint32_t> roots = {0};
      if (rooted(op)) roots = {0, p - 1, p / 2};
      for (const Dims& d : shapes) {
        for (std::uint32_t root : roots) {
          for (std::uint64_t bytes : sizes) {
            CollectiveSpec s = make_spec(op, a, p, bytes, root);
            if (two_dims(a)) s.dims = d;
            out.push_back(s);
          }
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
  ASSERT_EQ(algorithm_names().size(), std::size(kAlgorithms) + 1);  // + ramp-x (RampX tests)
  for (std::size_t i = 0; i < std::size(kOps); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(kOps[i]), i);
    EXPECT_EQ(op_names()[i], to_string(kOps[i]));
    EXPECT_EQ(parse_op(to_string(kOps[i])), kOps[i]);
  }
  for (std::size_t i = 0; i < std::size(kAlgorithms); ++i) {
    EXPECT_EQ(kAlgorithms[i].row(), i);
    EXPECT_EQ(all_algorithms()[i], kAlgorithms[i]);
    EXPECT_EQ(algorithm_names()[i], to_string(kAlgorithms[i]));
    EXPECT_EQ(parse_algorithm(to_string(kAlgorithms[i])), kAlgorithms[i]);
  }
  EXPECT_EQ(to_string(Op::kAllReduce), "all-reduce");
  EXPECT_EQ(to_string(Op::kAllToAll), "all-to-all");
  EXPECT_EQ(to_string(algorithm("bidirectional-ring")), "bidirectional-ring");
  EXPECT_EQ(to_string(algorithm("double-binary-tree")), "double-binary-tree");
  EXPECT_EQ(to_string(algorithm("ramp-x")), "ramp-x");
  EXPECT_EQ(algorithm_names().back(), "ramp-x");
  EXPECT_EQ(parse_algorithm("ramp-x"), algorithm("ramp-x"));
  EXPECT_EQ(parse_op("allreduce"), std::nullopt);
  EXPECT_EQ(parse_op(""), std::nullopt);
  EXPECT_EQ(parse_algorithm("Ring"), std::nullopt);
  EXPECT_EQ(parse_algorithm("torus"), std::nullopt);
  EXPECT_THROW(algorithm("torus"), std::invalid_argument);
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
  EXPECT_EQ(why_invalid(make_spec(Op::kAllReduce, algorithm("bruck"), 4)),
            "algorithm bruck does not implement op all-reduce");
  EXPECT_EQ(why_invalid(make_spec(Op::kGather, algorithm("double-binary-tree"), 4)),
            "algorithm double-binary-tree does not implement op gather");
  EXPECT_EQ(why_invalid(make_spec(Op::kBroadcast, algorithm("ring"), 4, 10, 4)),
            "root 4 is not a member (p = 4)");
  EXPECT_EQ(why_invalid(make_spec(Op::kAllReduce, algorithm("ring"), 0)),
            "a collective needs p >= 1 members");
  EXPECT_EQ(why_invalid(make_spec(Op::kAllReduce, algorithm("torus2d"), 6, 10, 0, 2, 2)),
            "algorithm torus2d needs two dims whose product is p = 6, got 2 x 2");
  CollectiveSpec three = make_spec(Op::kAllReduce, algorithm("torus2d"), 8);
  three.dims = Dims{2, 2, 2};
  EXPECT_EQ(why_invalid(three),
            "algorithm torus2d needs two dims whose product is p = 8, got 2 x 2 x 2");
  three.algorithm = algorithm("hierarchical-ring");
  EXPECT_EQ(why_invalid(three), "");
  three.dims = Dims{2, 0, 4};
  EXPECT_EQ(why_invalid(three),
            "algorithm hierarchical-ring needs 2 to 8 dims whose product is p = 8, got 2 x 0 x 4");
  EXPECT_NE(why_invalid(make_spec(Op::kAllReduce, algorithm("hierarchical-ring"), 6, 10, 0, 6, 0)),
            "");
  EXPECT_THROW(Schedule(make_spec(Op::kAllReduce, algorithm("ring"), 0), 0), InvalidCollective);
  EXPECT_THROW(Schedule(make_spec(Op::kAllReduce, algorithm("ring"), 4), 4), InvalidCollective);
  // dims are ignored by the one-dimensional algorithms.
  EXPECT_EQ(why_invalid(make_spec(Op::kAllReduce, algorithm("ring"), 6, 10, 0, 7, 7)), "");
}

TEST(Schedule, StepOutOfRangeThrows) {
  const Schedule s(make_spec(Op::kAllReduce, algorithm("ring"), 4), 1);
  EXPECT_EQ(s.steps(), 6u);
  EXPECT_THROW(s.step(6), std::out_of_range);
  const Schedule one(make_spec(Op::kAllReduce, algorithm("ring"), 1), 0);
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
  const Schedule a(make_spec(Op::kAllToAll, algorithm("bruck"), 13, 1000), 4);
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

bool same_wire(const WireStep& a, const WireStep& b) {
  auto eq = [](const std::vector<WireMessage>& x, const std::vector<WireMessage>& y) {
    return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                      [](const WireMessage& m, const WireMessage& n) {
                        return m.peer == n.peer && m.bytes == n.bytes && m.parts == n.parts;
                      });
  };
  return eq(a.out, b.out) && eq(a.in, b.in) && a.local == b.local && a.sources == b.sources &&
         a.local_bytes == b.local_bytes;
}

// Schedule::runs: the runs partition the steps, every member has the same runs,
// and all steps of a run are identical on the wire for every member (what the
// critical-path estimator relies on); ring phases merge only with even chunks.
TEST(Schedule, RunsAreIdenticalStepsForEveryMember) {
  int merged = 0;
  for (Op op : kOps) {
    for (Algorithm a : kAlgorithms) {
      for (std::uint32_t p : {6u, 8u}) {
        for (std::uint64_t bytes : {std::uint64_t{p} * p * 96, std::uint64_t{1001}}) {
          const std::uint32_t d0 = two_dims(a) ? 2 : 0, d1 = two_dims(a) ? p / 2 : 0;
          const CollectiveSpec spec = make_spec(op, a, p, bytes, 1, d0, d1);
          if (!why_invalid(spec).empty()) continue;
          const std::vector<Schedule::Run> runs0 = Schedule(spec, 0).runs();
          for (std::uint32_t m = 0; m < p; ++m) {
            const Schedule s(spec, m);
            const std::vector<Schedule::Run> runs = s.runs();
            std::uint32_t next = 0;
            for (const Schedule::Run& r : runs) {
              ASSERT_EQ(r.first, next);
              ASSERT_GE(r.count, 1u);
              next += r.count;
              if (r.count > 1) {
                ++merged;
                const std::uint64_t total = op == Op::kBarrier    ? 0
                                            : op == Op::kAllToAll ? bytes * p
                                                                  : bytes;
                EXPECT_EQ(total % s.chunks(), 0u);
                const WireStep first = wire_step(s, r.first);
                for (std::uint32_t i = 1; i < r.count; ++i) {
                  EXPECT_TRUE(same_wire(first, wire_step(s, r.first + i)))
                      << to_string(op) << " " << to_string(a) << " p=" << p << " member " << m
                      << " step " << r.first + i;
                }
              }
            }
            EXPECT_EQ(next, s.steps());
            if (runs0.size() > 1 || runs0.at(0).count > 1) {
              bool any = false;
              for (const Schedule::Run& r : runs0) any = any || r.count > 1;
              if (any) {
                ASSERT_EQ(runs.size(), runs0.size()) << to_string(a);
                for (std::size_t k = 0; k < runs.size(); ++k) {
                  EXPECT_EQ(runs[k].count, runs0[k].count) << to_string(a);
                }
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(merged, 50);
  // 1 GiB ring all-reduce on 65,536 members: two runs of 65,535 steps.
  const std::vector<Schedule::Run> big =
      Schedule(make_spec(Op::kAllReduce, algorithm("ring"), 65536, 1ull << 30), 77).runs();
  ASSERT_EQ(big.size(), 2u);
  EXPECT_EQ(big[1].first, 65535u);
  EXPECT_EQ(big[1].count, 65535u);
}

TEST(ChunkBytes, ChunkCounts) {
  EXPECT_EQ(Schedule(make_spec(Op::kAllReduce, algorithm("ring"), 6), 0).chunks(), 6u);
  EXPECT_EQ(Schedule(make_spec(Op::kAllToAll, algorithm("ring"), 6), 0).chunks(), 36u);
  EXPECT_EQ(Schedule(make_spec(Op::kAllGather, algorithm("bidirectional-ring"), 6), 0).chunks(),
            12u);
  EXPECT_EQ(Schedule(make_spec(Op::kAllReduce, algorithm("halving-doubling"), 6), 0).chunks(), 4u);
  EXPECT_EQ(Schedule(make_spec(Op::kReduceScatter, algorithm("halving-doubling"), 6), 0).chunks(),
            6u);
  EXPECT_EQ(Schedule(make_spec(Op::kAllReduce, algorithm("double-binary-tree"), 6), 0).chunks(),
            2u);
  EXPECT_EQ(Schedule(make_spec(Op::kBarrier, algorithm("bruck"), 6, 99), 0).chunk_bytes(3), 0u);
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
  const std::vector<Algorithm> algorithms = {algorithm("ring"), algorithm("halving-doubling"),
                                             algorithm("bruck"), algorithm("direct")};
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
       {make_spec(Op::kAllReduce, algorithm("bidirectional-ring"), 64, 99999),
        make_spec(Op::kAllReduce, algorithm("hierarchical-ring"), 96, 99999, 0, 8, 12),
        make_spec(Op::kBroadcast, algorithm("hierarchical-ring"), 96, 99999, 50, 8, 12),
        make_spec(Op::kReduce, algorithm("hierarchical-ring"), 96, 99999, 95, 12, 8),
        [] {
          CollectiveSpec s = make_spec(Op::kAllReduce, algorithm("hierarchical-ring"), 96, 99999);
          s.dims = Dims{4, 2, 3, 4};
          return s;
        }(),
        [] {
          CollectiveSpec s =
              make_spec(Op::kBroadcast, algorithm("hierarchical-ring"), 96, 99999, 7);
          s.dims = Dims{8, 2, 6};
          return s;
        }(),
        make_spec(Op::kAllToAll, algorithm("torus2d"), 96, 99999, 0, 8, 12),
        make_spec(Op::kAllReduce, algorithm("torus2d"), 100, 99999, 0, 10, 10),
        make_spec(Op::kAllReduce, algorithm("double-binary-tree"), 100, 99999),
        make_spec(Op::kBroadcast, algorithm("double-binary-tree"), 127, 99999, 77),
        make_spec(Op::kReduce, algorithm("double-binary-tree"), 128, 99999, 5),
        make_spec(Op::kGather, algorithm("binomial-tree"), 100, 99999, 33),
        make_spec(Op::kAllReduce, algorithm("binomial-tree"), 100, 99999)}) {
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
    expect_uniform(make_spec(Op::kAllReduce, algorithm("ring"), p), 2 * (p - 1));
    expect_uniform(make_spec(Op::kReduceScatter, algorithm("ring"), p), p - 1);
    expect_uniform(make_spec(Op::kAllGather, algorithm("ring"), p), p - 1);
    expect_uniform(make_spec(Op::kAllToAll, algorithm("ring"), p), p - 1);
    expect_uniform(make_spec(Op::kBarrier, algorithm("ring"), p), p - 1);
    expect_uniform(make_spec(Op::kAllReduce, algorithm("bidirectional-ring"), p), 2 * (p - 1));
    expect_uniform(make_spec(Op::kAllGather, algorithm("bruck"), p), lg);
    expect_uniform(make_spec(Op::kAllToAll, algorithm("bruck"), p), lg);
    expect_uniform(make_spec(Op::kBarrier, algorithm("bruck"), p), lg);
    expect_uniform(make_spec(Op::kAllToAll, algorithm("direct"), p), p - 1);
    expect_uniform(make_spec(Op::kAllGather, algorithm("direct"), p), p - 1);
    expect_uniform(make_spec(Op::kReduceScatter, algorithm("direct"), p), p - 1);
    expect_uniform(make_spec(Op::kAllReduce, algorithm("direct"), p), 2 * (p - 1));
    if (std::has_single_bit(p)) {
      expect_uniform(make_spec(Op::kAllReduce, algorithm("halving-doubling"), p), 2 * lg);
      expect_uniform(make_spec(Op::kReduceScatter, algorithm("halving-doubling"), p), lg);
      expect_uniform(make_spec(Op::kAllGather, algorithm("halving-doubling"), p), lg);
    } else {  // fold + log2 p' + log2 p' + unfold
      const Outcome out = execute(make_spec(Op::kAllReduce, algorithm("halving-doubling"), p));
      EXPECT_EQ(out.rounds, 2 * (lg - 1) + 2) << p;
    }
    // Rooted direct: p-1 rounds at the root, one step elsewhere.
    for (Op op : {Op::kGather, Op::kScatter, Op::kBroadcast, Op::kReduce}) {
      const CollectiveSpec s = make_spec(op, algorithm("direct"), p, 100, p / 2);
      EXPECT_EQ(Schedule(s, p / 2).steps(), p - 1);
      EXPECT_EQ(Schedule(s, (p / 2 + 1) % p).steps(), 1u);
      EXPECT_EQ(execute(s).rounds, p - 1);
    }
    // Binomial tree: depth ceil(log2 p) at the deepest member, log2 p sends at the root.
    for (Op op : {Op::kBroadcast, Op::kReduce, Op::kGather, Op::kScatter}) {
      const CollectiveSpec s = make_spec(op, algorithm("binomial-tree"), p, 100, p - 1);
      EXPECT_EQ(Schedule(s, p - 1).steps(), lg) << to_string(op) << " p=" << p;
      EXPECT_EQ(execute(s).rounds, lg) << to_string(op) << " p=" << p;
    }
    EXPECT_EQ(execute(make_spec(Op::kAllReduce, algorithm("binomial-tree"), p)).rounds, 2 * lg);
    // Pipelined ring chain: (p-1) hops + (C-1) chunks, C = p.
    EXPECT_EQ(execute(make_spec(Op::kBroadcast, algorithm("ring"), p, 100, 1)).rounds, 2 * p - 2);
    EXPECT_EQ(execute(make_spec(Op::kReduce, algorithm("ring"), p, 100, 1)).rounds, 2 * p - 2);
    EXPECT_EQ(Schedule(make_spec(Op::kBroadcast, algorithm("ring"), p), 0).steps(), p);
    EXPECT_EQ(max_steps(make_spec(Op::kBroadcast, algorithm("ring"), p)), p == 2 ? p : p + 1);
    // Ring relays for gather / scatter: p-1 steps at the root.
    EXPECT_EQ(Schedule(make_spec(Op::kGather, algorithm("ring"), p, 1, 1), 1).steps(), p - 1);
    EXPECT_EQ(execute(make_spec(Op::kGather, algorithm("ring"), p, 1, 1)).rounds, p - 1);
    EXPECT_EQ(execute(make_spec(Op::kScatter, algorithm("ring"), p, 1, 1)).rounds, p - 1);
    // Double binary tree all-reduce: up and down trees of depth <= floor(log2 p) + 1.
    const Outcome dbt = execute(make_spec(Op::kAllReduce, algorithm("double-binary-tree"), p));
    EXPECT_EQ(dbt.error, "");
    EXPECT_LE(dbt.rounds, 2 * (lg + 1)) << p;
  }
  // Two-level rings: 2(L-1) + 2(G-1).
  for (auto [l, g] : {std::pair{2u, 3u}, {4u, 4u}, {3u, 5u}, {1u, 7u}, {7u, 1u}}) {
    expect_uniform(make_spec(Op::kAllReduce, algorithm("hierarchical-ring"), l * g, 100, 0, l, g),
                   2 * (l - 1) + 2 * (g - 1));
    expect_uniform(make_spec(Op::kAllReduce, algorithm("torus2d"), l * g, 100, 0, l, g),
                   2 * (l - 1) + 2 * (g - 1));
    expect_uniform(make_spec(Op::kAllToAll, algorithm("torus2d"), l * g, 100, 0, l, g),
                   (l - 1) + (g - 1));
  }
  // A ring per level: 2 * sum(d_i - 1), e.g. the 65,536-GPU SuperPod's 8 x 2 x 16 x 16 x 16
  // takes 106 steps where two levels (8 x 8192) take 16,396.
  CollectiveSpec deep = make_spec(Op::kAllReduce, algorithm("hierarchical-ring"), 2 * 3 * 4, 1000);
  deep.dims = Dims{2, 3, 4};
  expect_uniform(deep, 2 * (1 + 2 + 3));
  deep.op = Op::kReduceScatter;
  expect_uniform(deep, 1 + 2 + 3);
  deep.p = 65536;
  deep.dims = Dims{8, 2, 16, 16, 16};
  EXPECT_EQ(Schedule(deep, 12345).steps(), 53u);
}

// NCCL's complementary trees: with an even number of ranks, no member reduces data of both
// trees (a member is an inner node in at most one tree).
TEST(DoubleBinaryTree, InnerInAtMostOneTree) {
  for (std::uint32_t p : {2u, 4u, 6u, 10u, 14u, 64u}) {
    const CollectiveSpec spec = make_spec(Op::kAllReduce, algorithm("double-binary-tree"), p, 1000);
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
    const Schedule s(make_spec(Op::kAllReduce, algorithm("ring"), 65536, 1 << 30), 12345);
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
    const Schedule s(make_spec(Op::kAllToAll, algorithm("bruck"), p, std::uint64_t{p} * 1000), 777);
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
  EXPECT_EQ(Schedule(make_spec(Op::kAllReduce, algorithm("halving-doubling"), 1 << 20), 5).steps(),
            40u);
  EXPECT_EQ(Schedule(make_spec(Op::kBroadcast, algorithm("binomial-tree"), 1000000), 0).steps(),
            20u);
  EXPECT_LE(
      Schedule(make_spec(Op::kAllReduce, algorithm("double-binary-tree"), 1000000), 999).steps(),
      8u);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(secs, 2.0);
}

// ---------------------------------------------------------------------------------------------
// The executor must catch broken schedules.

TEST(Executor, DetectsChunkMismatch) {
  const Outcome out = execute(make_spec(Op::kAllReduce, algorithm("ring"), 4, 400),
                              [](std::uint32_t r, std::uint32_t i, Step& s) {
                                if (r == 1 && i == 0) {
                                  s.recvs[0].chunks.first = (s.recvs[0].chunks.first + 1) % 4;
                                }
                              });
  EXPECT_NE(out.error.find("mismatches"), std::string::npos) << out.error;
}

TEST(Executor, DetectsDoubleCounting) {
  // Reduce instead of copy in the all-gather stage: the full sum is added to a partial one.
  const Outcome out = execute(make_spec(Op::kAllReduce, algorithm("ring"), 4, 400),
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
  const Outcome out = execute(make_spec(Op::kAllReduce, algorithm("ring"), 4),
                              [](std::uint32_t r, std::uint32_t i, Step& s) {
                                if (r == 1 && i == 5) s.sends.clear();
                              });
  EXPECT_NE(out.error.find("deadlock"), std::string::npos) << out.error;
}

TEST(Executor, DetectsUnmatchedMessage) {
  // Member 0 of a broadcast gets the data twice.
  const Outcome out = execute(make_spec(Op::kBroadcast, algorithm("direct"), 3, 10, 0),
                              [](std::uint32_t r, std::uint32_t i, Step& s) {
                                if (r == 0 && i == 0) s.sends.push_back(s.sends[0]);
                              });
  EXPECT_NE(out.error.find("unmatched"), std::string::npos) << out.error;
}

TEST(Executor, DetectsWrongBytes) {
  const Outcome out = execute(make_spec(Op::kAllToAll, algorithm("direct"), 3, 30),
                              [](std::uint32_t r, std::uint32_t i, Step& s) {
                                if (r == 1 && i == 1) s.sends[0].bytes += 1;
                              });
  EXPECT_NE(out.error.find("bytes"), std::string::npos) << out.error;
}

TEST(Executor, DetectsSendingAbsentData) {
  const Outcome out = execute(make_spec(Op::kAllGather, algorithm("ring"), 4, 400),
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
  const Outcome out = execute(make_spec(Op::kAllGather, algorithm("ring"), 4, 400),
                              [](std::uint32_t, std::uint32_t i, Step& s) {
                                if (i == 2) {
                                  s.sends[0].chunks.first = (s.sends[0].chunks.first + 1) % 4;
                                  s.recvs[0].chunks.first = (s.recvs[0].chunks.first + 1) % 4;
                                }
                              });
  EXPECT_NE(out.error.find("final state"), std::string::npos) << out.error;
}

TEST(Executor, DetectsWrongLocalOp) {
  const Outcome out = execute(make_spec(Op::kReduceScatter, algorithm("ring"), 4, 400),
                              [](std::uint32_t r, std::uint32_t i, Step& s) {
                                if (r == 0 && i == 1) s.sources = 3;
                              });
  EXPECT_NE(out.error.find("local op"), std::string::npos) << out.error;
}

TEST(Executor, DetectsIncompleteBarrier) {
  // A dissemination barrier that skips its last round leaves members uninformed.
  const Outcome out = execute(make_spec(Op::kBarrier, algorithm("bruck"), 5, 0),
                              [](std::uint32_t, std::uint32_t i, Step& s) {
                                if (i == 2) {
                                  s.sends.clear();
                                  s.recvs.clear();
                                  s.local = LocalOp::kNone;
                                }
                              });
  EXPECT_NE(out.error.find("final state"), std::string::npos) << out.error;
}

// ---------------------------------------------------------------------------------------------
// RAMP-x (MODELS.md §1). The table of subgroups, digits and transceivers is restated here from
// MODELS.md, independently of ramp.hpp, and the schedules are checked against it: invariants
// (1) subgroups partition the nodes with sizes = radix, (2) members of a step-k subgroup share
// the digits of steps 1..k-1, (3) the final state (the executor), (4) optical rules (a)-(c) for
// every concurrent transmission, (5) at most 4 steps (8 for the two-stage ops).

namespace rampt {

struct Node {
  std::uint32_t g = 0, j = 0, d = 0, p = 0;
  friend bool operator==(const Node&, const Node&) = default;
};

struct Fabric {
  std::uint32_t x = 1, J = 1, D = 1;
  std::uint32_t lambda_n() const { return D * x; }
  std::uint32_t nodes() const { return x * J * lambda_n(); }
  Node node(std::uint32_t n) const {
    const std::uint32_t lam = n % lambda_n(), rack = n / lambda_n();
    return Node{rack / J, rack % J, lam / x, lam % x};
  }
  std::uint32_t id(const Node& c) const { return (c.g * J + c.j) * lambda_n() + c.d * x + c.p; }
  std::uint32_t md(std::int64_t v) const {
    const std::int64_t m = x;
    return static_cast<std::uint32_t>(((v % m) + m) % m);
  }
  std::uint32_t radix(int row) const { return row <= 2 ? x : (row == 3 ? J : D); }
  // MODELS.md table, "members" column.
  std::vector<Node> subgroup(int row, const Node& a) const {
    std::vector<Node> out;
    const std::int64_t g = a.g, j = a.j, d = a.d;
    for (std::uint32_t c = 0; c < radix(row); ++c) {
      switch (row) {
        case 1:
          out.push_back(Node{c, a.j, a.d, a.p});
          break;
        case 2:
          out.push_back(Node{md(g + c), a.j, a.d, md(a.p + c)});
          break;
        case 3:
          out.push_back(Node{md(g - j + c), c, a.d, a.p});
          break;
        default:
          out.push_back(Node{md(g - d + c), a.j, c, a.p});
          break;
      }
    }
    return out;
  }
  // The row whose subgroup of a holds b (b != a), 0 if none.
  int row_of(const Node& a, const Node& b) const {
    for (int row = 1; row <= 4; ++row) {
      for (const Node& n : subgroup(row, a)) {
        if (n == b && !(b == a)) return row;
      }
    }
    return 0;
  }
  // "digit held after the step" column.
  std::array<std::uint32_t, 4> digits(const Node& a) const {
    return {md(sgn(a.g) - a.p - a.j - a.d), md(sgn(a.g) - a.j - a.d), a.j, a.d};
  }
  // "transceiver for src -> dst" column.
  std::uint32_t trx(int row, const Node& s, const Node& t) const {
    if (row <= 2) return (s.g + t.g + s.j) % x;
    if (row == 3) return (s.g + t.j) % x;
    return (s.j + t.d + x - s.d) % x;
  }
  // The member of dst's row-k subgroup in group gs (closed form), if any and not dst itself.
  std::optional<Node> source_in_group(int row, const Node& dst, std::uint32_t gs) const {
    const std::uint32_t c = md(sgn(gs) - dst.g);
    if (c == 0) return std::nullopt;
    switch (row) {
      case 1:
        return Node{gs, dst.j, dst.d, dst.p};
      case 2:
        return Node{gs, dst.j, dst.d, md(sgn(dst.p) + c)};
      case 3: {
        const std::uint32_t j2 = md(sgn(dst.j) + c);
        if (j2 >= J) return std::nullopt;
        return Node{gs, j2, dst.d, dst.p};
      }
      default: {
        const std::uint32_t d2 = md(sgn(dst.d) + c);
        if (d2 >= D) return std::nullopt;
        return Node{gs, dst.j, d2, dst.p};
      }
    }
  }
  static std::int64_t sgn(std::uint32_t v) { return static_cast<std::int64_t>(v); }
};

// RAMP §6.2.2 eq. 3, restated: additional transceiver groups for a subgroup of d devices.
std::uint32_t eq3(std::uint32_t x, std::uint32_t d) {
  return d < 2 ? 0 : (x - (x / d) * (d - 1)) / (d - 1);
}

// Optical rules (a)-(c) (MODELS.md §1) over one step's concurrent transmissions (src, dst,
// row), each on the transceiver groups trx(row) + i*stride mod x, i < groups (RAMP §6.2.2
// eq. 3-4); returns "" or the first violation. Rule (b) is checked as the transport does: a
// receiving transceiver serves one transmitter (a second one in the same subnet would share
// its wavelength, rule (c)).
struct Tx {
  Node src, dst;
  int row = 0;
  std::uint32_t groups = 1, stride = 1;
};
std::string check_optical(const Fabric& f, const std::vector<Tx>& txs) {
  std::unordered_map<std::uint64_t, std::uint32_t> tx_dst, rx_src, wl_src;
  tx_dst.reserve(txs.size());
  rx_src.reserve(txs.size());
  wl_src.reserve(txs.size());
  const std::uint64_t x = f.x;
  for (const Tx& t : txs) {
    std::set<std::uint32_t> own;
    for (std::uint32_t i = 0; i < t.groups; ++i) {
      const std::uint32_t trx = (f.trx(t.row, t.src, t.dst) + i * t.stride) % f.x;
      const std::uint32_t s = f.id(t.src), d = f.id(t.dst);
      const std::uint32_t lam = t.dst.d * f.x + t.dst.p;
      std::ostringstream e;
      e << "node " << s << " -> " << d << " (row " << t.row << ", transceiver " << trx << "): ";
      if (!own.insert(trx).second) return e.str() + "(a) one transfer twice on a transceiver";
      auto [a, a_new] = tx_dst.emplace(std::uint64_t{s} * x + trx, d);
      if (!a_new && a->second != d) return e.str() + "(a) transmitter used for two destinations";
      auto [b, b_new] = rx_src.emplace(std::uint64_t{d} * x + trx, s);
      if (!b_new && b->second != s) return e.str() + "(b) receiver used by two transmitters";
      const std::uint64_t key =
          ((std::uint64_t{t.src.g} * x + t.dst.g) * x + trx) * f.lambda_n() + lam;
      auto [c, c_new] = wl_src.emplace(key, s);
      if (!c_new && c->second != s) return e.str() + "(c) wavelength used twice in a subnet";
    }
  }
  return "";
}

CollectiveSpec spec(Op op, const RampShape& sh, std::uint64_t bytes, std::uint32_t root = 0) {
  CollectiveSpec s;
  s.op = op;
  s.algorithm = algorithm("ramp-x");
  s.p = static_cast<std::uint32_t>(ramp::job_size(sh));
  s.bytes = bytes;
  s.root = root;
  s.ramp = sh;
  return s;
}

bool uniform(Op op) {
  return op == Op::kAllReduce || op == Op::kReduceScatter || op == Op::kAllGather ||
         op == Op::kAllToAll || op == Op::kBarrier;
}
bool two_stage(Op op) {
  return op == Op::kAllReduce || op == Op::kReduce || op == Op::kBroadcast;
}

// Invariants (1), (2), (4), (5) on a logged run (the executor checks (3)).
std::string check_invariants(const CollectiveSpec& s, const std::vector<Transfer>& log) {
  const RampShape& sh = s.ramp;
  const Fabric f{sh.x, sh.J, sh.D};
  const bool full = ramp::job_size(sh) == f.nodes();
  const std::vector<std::uint32_t> nodes = ramp::job_nodes(sh);
  std::map<std::uint64_t, std::set<std::pair<std::uint32_t, std::uint32_t>>> by_time;
  for (const Transfer& t : log) by_time[t.time].insert({t.from, t.to});
  std::ostringstream e;
  std::uint32_t most = 0;
  for (std::uint32_t m = 0; m < s.p; ++m) most = std::max(most, Schedule(s, m).steps());
  if (most > (two_stage(s.op) ? 8u : 4u)) {
    e << "(5) " << most << " steps";
    return e.str();
  }
  if (by_time.size() > (two_stage(s.op) ? 8u : 4u)) return "(5) too many rounds";
  // The steps run in the table's order (reduce-scatter-like: 1, 2, 3, 4; all-gather-like: the
  // reverse), skipping inactive ones: with (2) below, a step-k subgroup shares the digits that
  // its members hold from the steps before.
  std::vector<int> up, down, want_rows;
  for (int row = 1; row <= 4; ++row) {
    if (sh.active[row - 1] > 1) up.push_back(row);
  }
  down.assign(up.rbegin(), up.rend());
  const bool starts_up = s.op == Op::kAllReduce || s.op == Op::kReduceScatter ||
                         s.op == Op::kAllToAll || s.op == Op::kScatter || s.op == Op::kReduce ||
                         s.op == Op::kBroadcast;
  want_rows = starts_up ? up : down;
  if (two_stage(s.op)) want_rows.insert(want_rows.end(), down.begin(), down.end());
  std::vector<int> got_rows;
  for (const auto& [time, pairs] : by_time) {
    std::vector<Tx> txs;
    int row = -1;
    std::map<std::uint32_t, std::set<std::uint32_t>> peers;
    for (const auto& [from, to] : pairs) {
      const Node a = f.node(nodes[from]), b = f.node(nodes[to]);
      const int r = f.row_of(a, b);
      if (r == 0 || (row != -1 && r != row)) {
        e << "(1) round " << time << ": " << from << " -> " << to << " not in one step's subgroup";
        return e.str();
      }
      row = r;
      peers[from].insert(to);
      // The library's transcoder agrees with the table; its extra groups (RAMP §6.2.2
      // eq. 3-4) are at most eq. 3's count, d apart, and checked with the rest below.
      const ramp::Coord ca{a.g, a.j, a.d, a.p}, cb{b.g, b.j, b.d, b.p};
      const ramp::TransceiverGroups tg = ramp::transceivers_for_pair(ca, cb, sh);
      if (ramp::step_of_pair(ca, cb, sh) != r ||
          ramp::transceiver_for_pair(ca, cb, sh) != f.trx(r, a, b) ||
          ramp::transceiver(r, ca, cb, sh) != f.trx(r, a, b) || tg.first != f.trx(r, a, b)) {
        return "ramp::transceiver_for_pair disagrees with MODELS.md";
      }
      if (tg.count < 1 || tg.count > 1 + eq3(sh.x, sh.active[r - 1]) ||
          (tg.count > 1 && tg.stride != sh.active[r - 1])) {
        return "ramp::transceivers_for_pair: not eq. 3-4's groups";
      }
      txs.push_back(Tx{a, b, r, tg.count, tg.stride});
      if (full) {  // (2)
        const auto da = f.digits(a), db = f.digits(b);
        for (int i = 0; i + 1 < r; ++i) {
          if (da[i] != db[i]) return "(2) subgroup members differ in an earlier digit";
        }
        if (da[r - 1] == db[r - 1]) return "(2) subgroup members share the step's digit";
      }
    }
    if (uniform(s.op)) {  // (1) every member talks to exactly the rest of its job subgroup
      const std::uint32_t radix = sh.active[row - 1];
      for (std::uint32_t m = 0; m < s.p; ++m) {
        std::set<std::uint32_t> group = peers[m];
        group.insert(m);
        std::set<std::uint32_t> want;
        for (const Node& n : f.subgroup(row, f.node(nodes[m]))) want.insert(f.id(n));
        std::set<std::uint32_t> got;
        for (std::uint32_t q : group) got.insert(nodes[q]);
        if (got.size() != radix ||
            !std::includes(want.begin(), want.end(), got.begin(), got.end()) ||
            (full && got != want)) {
          e << "(1) round " << time << ": member " << m << " talks to " << got.size() - 1
            << " peers, not its step-" << row << " subgroup";
          return e.str();
        }
      }
    }
    if (std::string v = check_optical(f, txs); !v.empty()) {
      e << "(4) round " << time << ": " << v;
      return e.str();
    }
    got_rows.push_back(row);
  }
  if (got_rows != want_rows) return "(2) steps out of the table's order";
  return "";
}

// All-to-all where the executor's bit sets would be too big: every block has one holder.
std::string track_all_to_all(const CollectiveSpec& s, std::vector<Transfer>* log) {
  const std::uint32_t p = s.p;
  std::vector<Schedule> sched;
  for (std::uint32_t r = 0; r < p; ++r) sched.emplace_back(s, r);
  const std::uint64_t C = sched[0].chunks();
  if (C != std::uint64_t{p} * p) return "chunks() != p^2";
  std::vector<std::uint32_t> loc(C);
  for (std::uint64_t b = 0; b < C; ++b) loc[b] = static_cast<std::uint32_t>(b / p);
  auto list = [&](const ChunkSet& cs, std::uint64_t& bytes) {
    std::vector<std::uint64_t> v;
    bytes = 0;
    cs.for_each(C, [&](std::uint64_t c) {
      v.push_back(c);
      bytes += sched[0].chunk_bytes(c);
    });
    return v;
  };
  const std::uint32_t T = sched[0].steps();
  for (std::uint32_t i = 0; i < T; ++i) {
    std::map<std::uint64_t, std::deque<std::vector<std::uint64_t>>> msgs;
    std::vector<Step> st(p);
    for (std::uint32_t r = 0; r < p; ++r) {
      if (sched[r].steps() != T) return "non-uniform all-to-all";
      st[r] = sched[r].step(i);
      for (const Send& snd : st[r].sends) {
        std::uint64_t bytes = 0;
        std::vector<std::uint64_t> v = list(snd.chunks, bytes);
        if (bytes != snd.bytes) return "send bytes";
        for (std::uint64_t c : v) {
          if (loc[c] != r) return "sends a block it does not hold";
        }
        msgs[std::uint64_t{r} * p + snd.peer].push_back(std::move(v));
        if (log != nullptr) log->push_back(Transfer{r, snd.peer, i});
      }
    }
    for (std::uint32_t r = 0; r < p; ++r) {
      std::uint64_t received = 0;
      for (const Recv& rv : st[r].recvs) {
        std::uint64_t bytes = 0;
        const std::vector<std::uint64_t> v = list(rv.chunks, bytes);
        auto& q = msgs[std::uint64_t{rv.peer} * p + r];
        if (q.empty() || q.front() != v || bytes != rv.bytes) return "recv mismatch";
        q.pop_front();
        for (std::uint64_t c : v) loc[c] = r;
        received += bytes;
      }
      if (st[r].local != LocalOp::kCopy || st[r].local_bytes != received) return "reshape";
    }
    for (const auto& [k, q] : msgs) {
      if (!q.empty()) return "unmatched message";
    }
  }
  for (std::uint64_t b = 0; b < C; ++b) {
    if (loc[b] != b % p) return "final state";
  }
  return "";
}

std::string run_and_check(const CollectiveSpec& s) {
  std::vector<Transfer> log;
  if (s.op == Op::kAllToAll && s.p > 128) {
    if (std::string e = track_all_to_all(s, &log); !e.empty()) return e;
  } else {
    const Outcome out = execute(s, {}, &log);
    if (!out.error.empty()) return out.error;
  }
  return check_invariants(s, log);
}

// Every transmission of step `row` of a job: each member to every other member of its job
// subgroup (offsets equal but for c_row), on `groups` transceiver groups d = s_row apart.
std::vector<Tx> all_pairs(const RampShape& sh, int row, std::uint32_t groups) {
  const std::uint32_t d = sh.active[row - 1];
  std::vector<Tx> txs;
  auto node = [&](const ramp::Offsets& c) {
    const ramp::Coord k = ramp::coord_of_offsets(c, sh);
    return Node{k.g, k.j, k.delta, k.p};
  };
  for (std::uint32_t m = 0; m < ramp::job_size(sh); ++m) {
    const ramp::Offsets c = ramp::offsets_of_member(m, sh);
    for (std::uint32_t v = 0; v < d; ++v) {
      if (v == c[row - 1]) continue;
      ramp::Offsets c2 = c;
      c2[row - 1] = v;
      txs.push_back(Tx{node(c), node(c2), row, groups, d});
    }
  }
  return txs;
}

// The largest e <= eq. 3 for which step `row` of the job keeps rules (a)-(c) on 1 + e groups
// d apart, by trying them all.
std::uint32_t safe_extra(const RampShape& sh, int row) {
  const Fabric f{sh.x, sh.J, sh.D};
  std::uint32_t e = 0;
  while (e < eq3(sh.x, sh.active[row - 1]) && check_optical(f, all_pairs(sh, row, e + 2)).empty()) {
    ++e;
  }
  return e;
}

// Job shapes (s1, s2, s3, s4) of fabric (x, J, D): every one, or those whose sizes are in `only`.
std::vector<RampShape> job_shapes(std::uint32_t x, std::uint32_t J, std::uint32_t D,
                                  const std::set<std::uint32_t>& only = {}) {
  std::vector<RampShape> out;
  auto ok = [&](std::uint32_t v) { return only.empty() || v == 1 || only.count(v) > 0; };
  for (std::uint32_t s1 = 1; s1 <= x; ++s1) {
    for (std::uint32_t s2 = 1; s2 <= x; ++s2) {
      for (std::uint32_t s3 = 1; s3 <= J; ++s3) {
        for (std::uint32_t s4 = 1; s4 <= D; ++s4) {
          if (ok(s1) && ok(s2) && ok(s3) && ok(s4))
            out.push_back(RampShape{x, J, D, {s1, s2, s3, s4}});
        }
      }
    }
  }
  return out;
}

}  // namespace rampt

TEST(RampX, TableRestatementIsConsistent) {
  // The test's own model: subgroups partition, digits are a bijection, and the closed-form
  // source used by the sampled 65,536-node check agrees with the subgroups.
  for (std::uint32_t x = 1; x <= 5; ++x) {
    for (std::uint32_t J = 1; J <= x; ++J) {
      for (std::uint32_t D = 1; D <= x; ++D) {
        const rampt::Fabric f{x, J, D};
        std::set<std::array<std::uint32_t, 4>> seen;
        for (std::uint32_t n = 0; n < f.nodes(); ++n) {
          const rampt::Node a = f.node(n);
          ASSERT_EQ(f.id(a), n);
          seen.insert(f.digits(a));
          for (int row = 1; row <= 4; ++row) {
            std::set<std::uint32_t> group;
            for (const rampt::Node& b : f.subgroup(row, a)) {
              group.insert(f.id(b));
              std::set<std::uint32_t> back;
              for (const rampt::Node& c : f.subgroup(row, b)) back.insert(f.id(c));
              ASSERT_EQ(back.size(), f.radix(row));
              for (const rampt::Node& c : f.subgroup(row, a)) ASSERT_TRUE(back.count(f.id(c)));
              for (std::uint32_t gs = 0; gs < x; ++gs) {
                const auto src = f.source_in_group(row, a, gs);
                const bool here = b.g == gs && !(b == a);
                if (here) {
                  ASSERT_TRUE(src.has_value());
                  ASSERT_EQ(f.id(*src), f.id(b));
                }
              }
            }
            ASSERT_EQ(group.size(), f.radix(row));
            for (std::uint32_t gs = 0; gs < x; ++gs) {
              const auto src = f.source_in_group(row, a, gs);
              if (src) {
                ASSERT_TRUE(group.count(f.id(*src))) << x << J << D << row;
              }
            }
          }
        }
        ASSERT_EQ(seen.size(), f.nodes()) << "(3) digits are not a bijection";
      }
    }
  }
}

TEST(RampX, CoordinatesAndJobs) {
  for (std::uint32_t x = 1; x <= 4; ++x) {
    for (std::uint32_t J = 1; J <= x; ++J) {
      for (std::uint32_t D = 1; D <= x; ++D) {
        const RampShape sh = ramp::full_job(x, J, D);
        const rampt::Fabric f{x, J, D};
        for (std::uint32_t m = 0; m < f.nodes(); ++m) {
          const ramp::Coord c = ramp::coord_of_node(m, sh);
          const rampt::Node n = f.node(m);
          ASSERT_EQ(c, (ramp::Coord{n.g, n.j, n.d, n.p}));
          ASSERT_EQ(ramp::node_id(c, sh), m);
          ASSERT_EQ(ramp::node_of_member(m, sh), m);  // full job: member = fabric node
          ASSERT_EQ(ramp::member_of_offsets(ramp::offsets_of_member(m, sh), sh), m);
          const auto d = f.digits(n);
          ASSERT_EQ(ramp::digits(c, sh), d);
          ASSERT_EQ(ramp::job_digits(ramp::offsets_of_member(m, sh), sh), d);
          ASSERT_EQ(c.lambda(x), n.d * x + n.p);
        }
      }
    }
  }
  // A subset job: distinct nodes, member <-> offsets round trip, node 0 first.
  const RampShape sub{4, 4, 2, {3, 2, 3, 2}};
  const std::vector<std::uint32_t> nodes = ramp::job_nodes(sub);
  ASSERT_EQ(nodes.size(), 36u);
  EXPECT_EQ(nodes[0], 0u);
  EXPECT_EQ(std::set<std::uint32_t>(nodes.begin(), nodes.end()).size(), 36u);
  for (std::uint32_t m = 0; m < 36; ++m) {
    EXPECT_EQ(ramp::member_of_offsets(ramp::offsets_of_member(m, sub), sub), m);
    EXPECT_LT(nodes[m], ramp::fabric_nodes(sub));
  }
  // 128-node tensor-parallel group on the reference fabric: rack 0 of every group, devices 0-3.
  const RampShape tp = ramp::shape_for(32, 32, 2, 128);
  const std::vector<std::uint32_t> tp_nodes = ramp::job_nodes(tp);
  for (std::uint32_t m = 0; m < 128; ++m) {
    const ramp::Coord c = ramp::coord_of_node(tp_nodes[m], tp);
    EXPECT_EQ(c.j, 0u);
    EXPECT_EQ(c.delta, 0u);
    EXPECT_LT(c.p, 4u);
  }
}

TEST(RampX, ShapeFor) {
  auto active = [](const RampShape& s) {
    return std::array<std::uint32_t, 4>{s.active[0], s.active[1], s.active[2], s.active[3]};
  };
  using A = std::array<std::uint32_t, 4>;
  EXPECT_EQ(active(ramp::shape_for(32, 32, 2, 128)), (A{32, 4, 1, 1}));
  EXPECT_EQ(active(ramp::shape_for(32, 32, 2, 65536)), (A{32, 32, 32, 2}));
  EXPECT_EQ(active(ramp::shape_for(32, 32, 2, 96)), (A{32, 3, 1, 1}));
  EXPECT_EQ(active(ramp::shape_for(32, 32, 2, 1)), (A{1, 1, 1, 1}));
  EXPECT_EQ(active(ramp::shape_for(32, 32, 2, 32)), (A{32, 1, 1, 1}));
  EXPECT_EQ(active(ramp::shape_for(32, 32, 2, 2048)), (A{32, 32, 2, 1}));
  EXPECT_EQ(active(ramp::shape_for(32, 16, 2, 32 * 32 * 16)), (A{32, 32, 16, 1}));
  EXPECT_EQ(active(ramp::shape_for(4, 4, 2, 64)), (A{4, 4, 4, 1}));
  EXPECT_EQ(active(ramp::shape_for(4, 4, 2, 6)), (A{3, 2, 1, 1}));
  EXPECT_THROW(ramp::shape_for(32, 32, 2, 37), std::invalid_argument);      // prime > x
  EXPECT_THROW(ramp::shape_for(32, 32, 2, 131072), std::invalid_argument);  // > fabric
  EXPECT_THROW(ramp::shape_for(4, 5, 2, 8), std::invalid_argument);         // J > x
  EXPECT_THROW(ramp::shape_for(0, 1, 1, 1), std::invalid_argument);
  EXPECT_EQ(ramp::shape_for(32, 32, 2, 128).x, 32u);
}

TEST(RampX, WhyInvalid) {
  RampShape sh = ramp::full_job(2, 2, 2);
  for (Op op : kOps) EXPECT_EQ(why_invalid(rampt::spec(op, sh, 100)), "") << to_string(op);
  CollectiveSpec s = rampt::spec(Op::kAllReduce, RampShape{}, 100);
  s.p = 4;
  EXPECT_EQ(why_invalid(s), "ramp-x needs a RAMP fabric (x, J, D)");
  EXPECT_THROW(Schedule(s, 0), InvalidCollective);
  s = rampt::spec(Op::kAllReduce, sh, 100);
  s.p = 15;
  EXPECT_EQ(why_invalid(s), "ramp-x needs p = product of the active sizes = 16, got p = 15");
  s = rampt::spec(Op::kAllReduce, RampShape{2, 2, 3, {2, 2, 2, 1}}, 100);
  EXPECT_NE(why_invalid(s).find("D <= x"), std::string::npos) << why_invalid(s);
  s = rampt::spec(Op::kAllReduce, RampShape{2, 3, 1, {2, 2, 1, 1}}, 100);
  EXPECT_NE(why_invalid(s).find("J <= x"), std::string::npos) << why_invalid(s);
  for (const RampShape& bad :
       {RampShape{4, 2, 2, {4, 4, 3, 1}}, RampShape{4, 2, 2, {5, 1, 1, 1}},
        RampShape{4, 2, 2, {1, 1, 1, 3}}, RampShape{4, 2, 2, {0, 1, 1, 1}}}) {
    s = rampt::spec(Op::kAllReduce, bad, 100);
    s.p = std::max<std::uint32_t>(s.p, 1);
    EXPECT_NE(why_invalid(s).find("out of range"), std::string::npos) << why_invalid(s);
  }
  s = rampt::spec(Op::kBroadcast, sh, 100, 8);
  EXPECT_EQ(why_invalid(s), "");
  s.root = 16;
  EXPECT_EQ(why_invalid(s), "root 16 is not a member (p = 16)");
}

// Every op on every full fabric with x <= 4 (J <= x, Lambda = D*x for D = 1..x), roots first
// and last, through the executor and the invariant checks.
TEST(RampX, ExhaustiveSmallFabrics) {
  int failures = 0, runs = 0;
  for (std::uint32_t x = 1; x <= 4; ++x) {
    for (std::uint32_t J = 1; J <= x; ++J) {
      for (std::uint32_t D = 1; D <= x; ++D) {
        const RampShape sh = ramp::full_job(x, J, D);
        const std::uint32_t p = static_cast<std::uint32_t>(ramp::job_size(sh));
        for (Op op : kOps) {
          std::set<std::uint32_t> roots = {0};
          if (rooted(op)) roots.insert(p - 1);
          for (std::uint32_t root : roots) {
            for (std::uint64_t bytes :
                 {std::uint64_t{1}, std::uint64_t{1000}, 3 * std::uint64_t{p} + 1}) {
              const CollectiveSpec s = rampt::spec(op, sh, bytes, root);
              ++runs;
              std::string err;
              if (bytes == 1) {
                err = rampt::run_and_check(s);
              } else if (op == Op::kAllToAll && p > 128) {
                err = rampt::track_all_to_all(s, nullptr);
              } else {
                err = execute(s).error;
              }
              if (!err.empty() && ++failures <= 20) ADD_FAILURE() << describe(s) << ": " << err;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(runs, 1000);
}

// Subset jobs (RAMP §6.3) through the executor and the invariant checks.
TEST(RampX, SubsetJobs) {
  int failures = 0;
  const std::vector<RampShape> shapes = {
      RampShape{4, 4, 2, {4, 2, 1, 1}}, RampShape{4, 4, 2, {4, 4, 2, 1}},
      RampShape{4, 4, 2, {2, 1, 1, 1}}, RampShape{4, 4, 2, {3, 2, 3, 2}},
      RampShape{4, 4, 2, {1, 3, 1, 2}}, RampShape{4, 4, 2, {2, 4, 3, 1}},
      RampShape{4, 3, 3, {1, 1, 3, 3}}, RampShape{4, 4, 2, {1, 1, 1, 1}},
      ramp::shape_for(4, 4, 2, 12),     ramp::shape_for(4, 4, 2, 24)};
  for (const RampShape& sh : shapes) {
    const std::uint32_t p = static_cast<std::uint32_t>(ramp::job_size(sh));
    for (Op op : kOps) {
      std::set<std::uint32_t> roots = {0};
      if (rooted(op)) roots = {0, p / 2, p - 1};
      for (std::uint32_t root : roots) {
        for (std::uint64_t bytes : {std::uint64_t{1}, std::uint64_t{1000}}) {
          const CollectiveSpec s = rampt::spec(op, sh, bytes, root);
          const std::string err = bytes == 1 ? rampt::run_and_check(s) : execute(s).error;
          if (!err.empty() && ++failures <= 20) ADD_FAILURE() << describe(s) << ": " << err;
        }
      }
    }
    // Only the active steps run.
    const int active =
        (sh.active[0] > 1) + (sh.active[1] > 1) + (sh.active[2] > 1) + (sh.active[3] > 1);
    EXPECT_EQ(Schedule(rampt::spec(Op::kReduceScatter, sh, 100), 0).steps(),
              static_cast<std::uint32_t>(active));
    EXPECT_EQ(Schedule(rampt::spec(Op::kAllReduce, sh, 100), p - 1).steps(),
              static_cast<std::uint32_t>(2 * active));
  }
  EXPECT_EQ(failures, 0);
  // The 128-node group of the reference fabric: 2 steps, 31 then 3 peers.
  const CollectiveSpec tp = rampt::spec(Op::kReduceScatter, ramp::shape_for(32, 32, 2, 128), 12800);
  const Schedule s(tp, 77);
  ASSERT_EQ(s.steps(), 2u);
  EXPECT_EQ(s.step(0).recvs.size(), 31u);
  EXPECT_EQ(s.step(1).recvs.size(), 3u);
  EXPECT_EQ(execute(tp).error, "");
}

// RAMP §6.2.2 eq. 3 as printed, and what it gives at the reference point.
TEST(RampX, Eq3AdditionalTransceivers) {
  EXPECT_EQ(ramp::eq3_additional(32, 2), 16u);
  EXPECT_EQ(ramp::eq3_additional(32, 3), 6u);
  EXPECT_EQ(ramp::eq3_additional(32, 4), 2u);
  EXPECT_EQ(ramp::eq3_additional(32, 17), 1u);
  EXPECT_EQ(ramp::eq3_additional(32, 32), 0u);
  EXPECT_EQ(ramp::eq3_additional(32, 1), 0u);
  for (std::uint32_t x = 1; x <= 64; ++x) {
    for (std::uint32_t d = 1; d <= x; ++d) {
      ASSERT_EQ(ramp::eq3_additional(x, d), rampt::eq3(x, d)) << x << " " << d;
      // eq. 5's (1 + #TRX_additional)(d - 1) groups never exceed the node's x.
      ASSERT_LE((1 + rampt::eq3(x, d)) * (d - 1), x) << x << " " << d;
    }
  }
  // 65,536 nodes, full job: eq. 3 gives 0 for steps 1-3 (d = x = J) and step 4 (d = D = 2)
  // has every transceiver index of its subnets taken, so nothing changes.
  const RampShape ref = ramp::full_job(32, 32, 2);
  for (int k = 1; k <= 4; ++k) EXPECT_EQ(ramp::extra_groups(k, ref), 0u) << k;
  EXPECT_EQ(ramp::eq3_additional(32, 2), 16u);
  // The 128-node and 64-node jobs of the reference fabric: step 2 (4 and 2 members).
  EXPECT_EQ(ramp::extra_groups(2, ramp::shape_for(32, 32, 2, 128)), 2u);
  EXPECT_EQ(ramp::extra_groups(2, ramp::shape_for(32, 32, 2, 64)), 15u);  // (e + 1)*2 <= 32
  EXPECT_EQ(ramp::extra_groups(1, ramp::shape_for(32, 32, 2, 64)), 0u);
  // Without a job, one group.
  const ramp::Coord a{0, 0, 0, 0}, b{1, 0, 0, 1};
  EXPECT_EQ(ramp::transceivers_for_pair(a, b, RampShape{32, 32, 2, {0, 0, 0, 0}}).count, 1u);
  EXPECT_EQ(ramp::transceivers_for_pair(a, b, ramp::shape_for(32, 32, 2, 64)).count, 16u);
}

// RAMP §6.2.2 eq. 3-4: for every job shape of every fabric with x <= 4 (J <= x, D <= x), of
// x = 5, 6 with D <= 2, and of x = 8 with small subgroups, every active step gets exactly the
// largest number of extra groups (<= eq. 3, d apart) for which every transmission of the step
// keeps optical rules (a)-(c), found by trying each count against the rule check.
TEST(RampX, ExtraGroupsAreTheLargestSafeCount) {
  std::vector<RampShape> shapes;
  for (std::uint32_t x = 1; x <= 6; ++x) {
    for (std::uint32_t J = 1; J <= x; ++J) {
      for (std::uint32_t D = 1; D <= (x <= 4 ? x : 2); ++D) {
        for (const RampShape& sh : rampt::job_shapes(x, J, D)) shapes.push_back(sh);
      }
    }
  }
  for (const RampShape& sh : rampt::job_shapes(8, 8, 2, {2, 3, 4, 8})) shapes.push_back(sh);
  for (const RampShape& sh : rampt::job_shapes(8, 3, 8, {2, 3})) shapes.push_back(sh);
  int failures = 0, with_extra = 0, bound_by_c = 0;
  for (const RampShape& sh : shapes) {
    for (int row = 1; row <= 4; ++row) {
      const std::uint32_t d = sh.active[row - 1];
      if (d < 2) continue;
      const std::uint32_t want = rampt::safe_extra(sh, row);
      const std::uint32_t got = ramp::extra_groups(row, sh);
      with_extra += want > 0;
      // Rule (c) binds where (a)/(b) and eq. 3 alone would allow more.
      bound_by_c += want < std::min(rampt::eq3(sh.x, d), sh.x / d - 1);
      if (got != want && ++failures <= 20) {
        ADD_FAILURE() << "x=" << sh.x << " J=" << sh.J << " D=" << sh.D << " job " << sh.active[0]
                      << "x" << sh.active[1] << "x" << sh.active[2] << "x" << sh.active[3]
                      << " step " << row << ": " << got << " extra groups, " << want << " safe";
      }
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(with_extra, 500);
  EXPECT_GT(bound_by_c, 100);
}

// Every operation of the job shapes whose steps use extra groups (every one for x <= 4; for
// x = 6 and 8, J = x, D = 2, those with subgroup sizes 1-3), roots first and last, through the
// executor and the invariant checks: rules (a)-(c) hold on every group of every transmission.
TEST(RampX, ExtraGroupsKeepOpticalRulesForEveryOperation) {
  std::vector<RampShape> shapes;
  for (std::uint32_t x = 2; x <= 4; ++x) {
    for (std::uint32_t J = 1; J <= x; ++J) {
      for (std::uint32_t D = 1; D <= x; ++D) {
        for (const RampShape& sh : rampt::job_shapes(x, J, D)) shapes.push_back(sh);
      }
    }
  }
  for (const RampShape& sh : rampt::job_shapes(6, 6, 2, {2, 3})) shapes.push_back(sh);
  for (const RampShape& sh : rampt::job_shapes(8, 8, 2, {2, 3})) shapes.push_back(sh);
  int failures = 0, runs = 0;
  for (const RampShape& sh : shapes) {
    bool extra = false;
    for (int row = 1; row <= 4; ++row) extra = extra || ramp::extra_groups(row, sh) > 0;
    if (!extra) continue;
    const std::uint32_t p = static_cast<std::uint32_t>(ramp::job_size(sh));
    for (Op op : kOps) {
      std::set<std::uint32_t> roots = {0};
      if (rooted(op)) roots.insert(p - 1);
      for (std::uint32_t root : roots) {
        const CollectiveSpec s = rampt::spec(op, sh, 1, root);
        ++runs;
        const std::string err = rampt::run_and_check(s);
        if (!err.empty() && ++failures <= 20) ADD_FAILURE() << describe(s) << ": " << err;
      }
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(runs, 1000);
}

// Message sizes per peer and step (RAMP Table 8) and the local operations.
TEST(RampX, Table8MessageSizes) {
  const std::uint32_t x = 4, J = 3, D = 2;
  const RampShape sh = ramp::full_job(x, J, D);
  const std::uint64_t p = ramp::job_size(sh), m = p * 1000;  // divisible: exact sizes
  auto per_peer = [&](const CollectiveSpec& s, std::uint32_t member, std::uint32_t i) {
    const Step st = Schedule(s, member).step(i);
    std::map<std::uint32_t, std::uint64_t> bytes;
    for (const Send& snd : st.sends) bytes[snd.peer] += snd.bytes;
    std::set<std::uint64_t> sizes;
    for (const auto& [peer, b] : bytes) sizes.insert(b);
    EXPECT_EQ(sizes.size(), 1u);
    return *sizes.begin();
  };
  const std::vector<std::uint64_t> rs = {m / x, m / (x * x), m / (x * x * J), m / (x * x * J * D)};
  for (std::uint32_t member : {0u, 7u, static_cast<std::uint32_t>(p - 1)}) {
    const CollectiveSpec ar = rampt::spec(Op::kAllReduce, sh, m);
    const CollectiveSpec rsc = rampt::spec(Op::kReduceScatter, sh, m);
    const CollectiveSpec ag = rampt::spec(Op::kAllGather, sh, m);
    const CollectiveSpec a2a = rampt::spec(Op::kAllToAll, sh, m);
    for (std::uint32_t i = 0; i < 4; ++i) {
      EXPECT_EQ(per_peer(ar, member, i), rs[i]);
      EXPECT_EQ(per_peer(rsc, member, i), rs[i]);
      EXPECT_EQ(per_peer(ar, member, 7 - i), rs[i]);  // all-gather: the reverse
      EXPECT_EQ(per_peer(ag, member, 3 - i), rs[i]);
      const Step st = Schedule(ar, member).step(i);
      EXPECT_EQ(st.local, LocalOp::kReduce);
      EXPECT_EQ(st.sources, i < 2 ? x : (i == 2 ? J : D));  // x-to-1 reductions
      EXPECT_EQ(st.local_bytes, rs[i]);
      EXPECT_EQ(Schedule(ar, member).step(4 + i).local, LocalOp::kNone);
    }
    // all-to-all: m/x, m/x, m/J, m*x/Lambda.
    EXPECT_EQ(per_peer(a2a, member, 0), m / x);
    EXPECT_EQ(per_peer(a2a, member, 1), m / x);
    EXPECT_EQ(per_peer(a2a, member, 2), m / J);
    EXPECT_EQ(per_peer(a2a, member, 3), m * x / (D * x));
    // After the reduce-scatter stage of all-reduce, member m holds the chunk of its portion
    // index ((d1*x + d2)*J + d3)*D + d4.
    const Step last = Schedule(ar, member).step(3);
    const rampt::Fabric f{x, J, D};
    const auto d = f.digits(f.node(member));
    EXPECT_EQ(last.recvs[0].chunks.first, ((d[0] * x + d[1]) * J + d[2]) * D + d[3]);
    EXPECT_EQ(last.recvs[0].chunks.count(), 1u);
  }
}

// Optical rules (4) and subgroups (1) over every transmission of every step of all-reduce
// (each step of which uses all pairs of its subgroups) at larger fabrics.
TEST(RampX, OpticalRulesLargerFabrics) {
  for (auto [x, J, D] : {std::array<std::uint32_t, 3>{7, 7, 7}, {8, 8, 8}, {16, 16, 2}}) {
    const RampShape sh = ramp::full_job(x, J, D);
    const rampt::Fabric f{x, J, D};
    const CollectiveSpec s = rampt::spec(Op::kAllReduce, sh, 1 << 20);
    const std::uint32_t p = f.nodes();
    std::vector<Schedule> sched;
    for (std::uint32_t m = 0; m < p; ++m) sched.emplace_back(s, m);
    const int rows[8] = {1, 2, 3, 4, 4, 3, 2, 1};
    for (std::uint32_t i = 0; i < 8; ++i) {
      std::vector<rampt::Tx> txs;
      bool ok = true;
      for (std::uint32_t m = 0; m < p && ok; ++m) {
        const Step st = sched[m].step(i);
        const rampt::Node a = f.node(m);
        std::set<std::uint32_t> want, got = {m};
        for (const rampt::Node& n : f.subgroup(rows[i], a)) want.insert(f.id(n));
        for (const Send& snd : st.sends) {
          got.insert(snd.peer);
          txs.push_back(rampt::Tx{a, f.node(snd.peer), rows[i]});
        }
        ok = got == want && st.sends.size() + 1 == want.size();
        EXPECT_TRUE(ok) << "(1) x=" << x << " J=" << J << " D=" << D << " step " << i << " member "
                        << m;
      }
      EXPECT_EQ(rampt::check_optical(f, txs), "") << x << "," << J << "," << D << " step " << i;
    }
  }
}

// 65,536 nodes (x = J = 32, Lambda = 64): 2,000 sampled members per step; their transmissions
// are checked against every transmission of their subnets, found in closed form (every
// member of a step talks to all of its subgroup: checked on the samples).
TEST(RampX, OpticalRulesSampledAt65536) {
  const auto t0 = std::chrono::steady_clock::now();
  const RampShape sh = ramp::full_job(32, 32, 2);
  const rampt::Fabric f{32, 32, 2};
  ASSERT_EQ(f.nodes(), 65536u);
  const CollectiveSpec s = rampt::spec(Op::kAllReduce, sh, std::uint64_t{1} << 30);
  const int rows[8] = {1, 2, 3, 4, 4, 3, 2, 1};
  std::mt19937 rng(12345);
  std::uniform_int_distribution<std::uint32_t> pick(0, f.nodes() - 1);
  int violations = 0;
  for (std::uint32_t i = 0; i < 8; ++i) {
    const int row = rows[i];
    for (int sample = 0; sample < 2000; ++sample) {
      const std::uint32_t m = sample == 0 ? 0 : (sample == 1 ? f.nodes() - 1 : pick(rng));
      const rampt::Node a = f.node(m);
      const Step st = Schedule(s, m).step(i);
      std::set<std::uint32_t> want, got = {m}, from = {m};
      for (const rampt::Node& n : f.subgroup(row, a)) want.insert(f.id(n));
      std::map<std::uint32_t, std::uint32_t> by_trx;  // (a)
      for (const Send& snd : st.sends) {
        got.insert(snd.peer);
        const rampt::Node b = f.node(snd.peer);
        const std::uint32_t t = f.trx(row, a, b);
        const ramp::Coord ca{a.g, a.j, a.d, a.p}, cb{b.g, b.j, b.d, b.p};
        if (ramp::transceiver_for_pair(ca, cb, sh) != t) ++violations;
        if (!by_trx.emplace(t, snd.peer).second) ++violations;
        // (b) all sources reaching b on transceiver t are in a's group.
        for (const rampt::Node& c : f.subgroup(row, b)) {
          if (!(c == b) && f.trx(row, c, b) == t && c.g != a.g) ++violations;
        }
        // (c) on subnet (a.g, b.g, t), wavelength lambda_b: the candidate transmitters are the
        // row-k sources in group a.g of the nodes (b.g, j', lambda_b).
        for (std::uint32_t j2 = 0; j2 < f.J; ++j2) {
          const rampt::Node d2{b.g, j2, b.d, b.p};
          const auto c = f.source_in_group(row, d2, a.g);
          if (c && f.trx(row, *c, d2) == t && !(*c == a)) ++violations;
        }
      }
      for (const Recv& rv : st.recvs) from.insert(rv.peer);
      if (got != want || from != want || st.sends.size() + 1 != want.size()) ++violations;
      if (violations > 0) break;
    }
    ASSERT_EQ(violations, 0) << "step " << i;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(secs, 10.0);
}

// One Send per peer in every step of the digit-layout ops at the reference point, and step
// counts (5) at 65,536 nodes.
TEST(RampX, ReferencePointSchedules) {
  const RampShape sh = ramp::full_job(32, 32, 2);
  const std::uint64_t bytes = std::uint64_t{1} << 30;
  for (std::uint32_t member : {0u, 12345u, 65535u}) {
    const Schedule ar(rampt::spec(Op::kAllReduce, sh, bytes), member);
    ASSERT_EQ(ar.steps(), 8u);
    const std::uint32_t peers[8] = {31, 31, 31, 1, 1, 31, 31, 31};
    for (std::uint32_t i = 0; i < 8; ++i) {
      EXPECT_EQ(ar.step(i).sends.size(), peers[i]);
      EXPECT_EQ(ar.step(i).recvs.size(), peers[i]);
    }
    for (Op op : kOps) {
      const Schedule s(rampt::spec(op, sh, bytes, 65535), member);
      EXPECT_LE(s.steps(), rampt::two_stage(op) ? 8u : 4u) << to_string(op);
      std::uint64_t sends = 0;
      for (std::uint32_t i = 0; i < s.steps(); ++i) sends += s.step(i).sends.size();
      EXPECT_LE(sends, 8u * 31 * 128) << to_string(op);  // a few ChunkSets per peer at most
    }
  }
}

// RAMP §6.1's pipelined tree broadcast (eq. 1) with optical multicast: every
// member ends with every chunk (the executor), k + 1 rounds, and per round the
// multicast rules: a transmitter (node, eq. 2 transceiver) sends one transmission
// (one destination group and wavelength, any number of racks), a receiving
// transceiver hears one transmitter, and a wavelength of a subnet carries one
// transmitter (rule c).
TEST(RampX, PipelinedTreeBroadcast) {
  int checked = 0;
  for (auto [x, J, D] : std::vector<std::array<std::uint32_t, 3>>{
           {2, 2, 1}, {2, 2, 2}, {3, 3, 2}, {4, 4, 2}, {4, 2, 2}, {4, 4, 4}, {3, 2, 1}}) {
    const RampShape sh = ramp::full_job(x, J, D);
    ASSERT_TRUE(ramp::tree_broadcast_fits(sh));
    const std::uint32_t n = static_cast<std::uint32_t>(ramp::job_size(sh));
    for (std::uint32_t k : {1u, 3u, 8u}) {
      for (std::uint32_t root : {0u, n / 2 + 1, n - 1}) {
        CollectiveSpec s = rampt::spec(Op::kBroadcast, sh, 1000 + 37 * k, root);
        s.stages = k;
        ASSERT_EQ(why_invalid(s), "");
        std::vector<Transfer> log;
        const Outcome out = execute(s, {}, &log);
        ASSERT_EQ(out.error, "") << x << J << D << " k=" << k << " root " << root;
        std::uint32_t most = 0;
        for (std::uint32_t m = 0; m < n; ++m) most = std::max(most, Schedule(s, m).steps());
        EXPECT_EQ(most, k + 1);
        std::map<std::uint64_t, std::vector<Transfer>> rounds;
        for (const Transfer& t : log) rounds[t.time].push_back(t);
        for (const auto& [time, txs] : rounds) {
          std::map<std::uint64_t, std::uint64_t> tx_use, rx_use, wl_use;
          for (const Transfer& t : txs) {
            const ramp::Coord a = ramp::coord_of_node(t.from, sh),
                              b = ramp::coord_of_node(t.to, sh);
            const std::uint32_t trx = (a.g + b.g + a.j) % x;  // eq. 2
            const std::uint64_t lam = b.lambda(x);
            const std::uint64_t where = (std::uint64_t{b.g} << 32) | lam;  // group and wavelength
            auto [ta, fa] = tx_use.emplace(std::uint64_t{t.from} * x + trx, where);
            EXPECT_TRUE(fa || ta->second == where) << "(a) round " << time;
            auto [rb, fb] = rx_use.emplace(std::uint64_t{t.to} * x + trx, t.from);
            EXPECT_TRUE(fb || rb->second == t.from) << "(b) round " << time;
            const std::uint64_t key = ((std::uint64_t{a.g} * x + b.g) * x + trx) * 4096 + lam;
            auto [wc, fc] = wl_use.emplace(key, t.from);
            EXPECT_TRUE(fc || wc->second == t.from) << "(c) round " << time;
          }
        }
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 7 * 3 * 3);
  // Only broadcast, only full jobs that the tree covers.
  CollectiveSpec s = rampt::spec(Op::kBroadcast, ramp::full_job(4, 1, 4), 1000);
  s.stages = 2;
  EXPECT_NE(why_invalid(s), "");
  s = rampt::spec(Op::kAllGather, ramp::full_job(4, 4, 2), 1000);
  s.stages = 2;
  EXPECT_NE(why_invalid(s), "");
  // Eq. 1: k = sqrt((s - 2) m beta / alpha), s = 3.
  EXPECT_EQ(broadcast_stages(1'600'000, 100'000, 1000), 4u);
  EXPECT_EQ(broadcast_stages(1'000, 100'000, 1000), 1u);
  EXPECT_EQ(broadcast_stages(1'000'000'000'000, 1, 16), 16u);
}

// Mutated RAMP schedules are caught by the checks above.
TEST(RampX, ChecksCatchBrokenSchedules) {
  const RampShape sh = ramp::full_job(3, 2, 2);
  const CollectiveSpec s = rampt::spec(Op::kReduceScatter, sh, 360);
  // Wrong reduction arity (x-to-1 expected).
  EXPECT_NE(execute(s,
                    [](std::uint32_t, std::uint32_t, Step& st) {
                      if (st.local == LocalOp::kReduce) st.sources = 2;
                    })
                .error.find("local op"),
            std::string::npos);
  // A transmission on a pair outside the step's subgroups.
  std::vector<Transfer> log = {{0, 1, 0}, {0, 2, 0}};
  EXPECT_NE(rampt::check_invariants(s, log).find("(1)"), std::string::npos);
  // Two nodes of one group sending to one destination on one wavelength in one subnet.
  const rampt::Fabric f{4, 4, 1};
  const rampt::Node dst{1, 0, 0, 0};
  const std::vector<rampt::Tx> clash = {{rampt::Node{0, 0, 0, 0}, dst, 1},
                                        {rampt::Node{0, 1, 0, 0}, rampt::Node{1, 1, 0, 0}, 3}};
  const std::string v = rampt::check_optical(f, clash);
  EXPECT_FALSE(v.empty());
  // The paper's step-3 transceiver (eq. 2) makes receivers collide for even x (MODELS.md).
  const rampt::Fabric f4{4, 4, 1};
  std::vector<rampt::Tx> eq2;
  for (std::uint32_t n = 0; n < f4.nodes(); ++n) {
    for (const rampt::Node& b : f4.subgroup(3, f4.node(n))) {
      if (!(b == f4.node(n))) eq2.push_back(rampt::Tx{f4.node(n), b, 1});  // row 1's rule
    }
  }
  EXPECT_FALSE(rampt::check_optical(f4, eq2).empty());
}

}  // namespace
}  // namespace sipsim::collective
