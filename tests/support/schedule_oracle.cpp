// The data-level schedule oracle (schedule_oracle.hpp).
#include "support/schedule_oracle.hpp"

#include <algorithm>
#include <deque>
#include <exception>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sipsim/collective/ramp_x.hpp"

namespace sipsim::collective::oracle {

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
      {"direct-concurrent", {std::begin(kOps), std::end(kOps)}},
      {"multicast-tree", {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather, Op::kBroadcast}},
      {"ring-relay", {Op::kAllToAll}},
  };
  return kTable.at(to_string(a)).count(op) > 0;
}

bool rooted(Op op) {
  return op == Op::kBroadcast || op == Op::kReduce || op == Op::kGather || op == Op::kScatter;
}
bool two_dims(Algorithm a) {
  return a == algorithm("hierarchical-ring") || a == algorithm("torus2d") ||
         a == algorithm("multicast-tree");
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
    const fabric::ramp::RampShape& r = ramp_x::spec_params(s).shape;
    o << " ramp=(" << r.x << "," << r.J << "," << r.D << ") active={" << r.active[0] << ","
      << r.active[1] << "," << r.active[2] << "," << r.active[3] << "}";
  }
  return o.str();
}

CollectiveSpec make_spec(Op op, Algorithm a, std::uint32_t p, std::uint64_t bytes,
                         std::uint32_t root, std::uint32_t d0, std::uint32_t d1) {
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

// ---------------------------------------------------------------------------------------------
// The abstract executor.

namespace {

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

}  // namespace

Outcome execute(const CollectiveSpec& spec, Mutator mutate, std::vector<Transfer>* log) {
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
      if (a == algorithm("multicast-tree")) shapes.push_back(Dims{p});
      if (a == algorithm("hierarchical-ring") || a == algorithm("multicast-tree")) {
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

}  // namespace sipsim::collective::oracle
