// The Chakra trace reader against mutated traces: seeds written by
// et_writer.hpp (small valid traces of every node type, sends and receives,
// every collective, every integer attribute field, both schema versions) and
// the real traces beside the repository when present (ASTRA-sim's
// microbenchmarks, a PyTorch step), damaged by seeded random mutations (bit
// flips, bytes inserted or deleted, truncation, a message's length prefix
// made huge, zero or off by a few, messages duplicated or dropped, a node's
// field re-encoded with an edge value: type, id, dependencies, attributes).
// Each case is written to a file and read: it must end in a trace or in a
// TraceError naming the file, within a time bound; nothing else may escape.
// Built with the rest and, in the asan preset, under AddressSanitizer and
// UBSan (label fuzz). A failure prints the seed, the case and its mutations.
#include <google/protobuf/stubs/logging.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#include "et_writer.hpp"
#include "sipsim/workload/chakra/trace.hpp"
#include "support/fuzz.hpp"

namespace sipsim::workload::chakra {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using testing::EtWriter;
namespace et = testing::et;

const fs::path kData = SIPSIM_CHAKRA_DATA;

using fuzz::kSlowdown;
using fuzz::Rng;
// Per case: a small trace reads in well under a millisecond and the 2.9 MB
// PyTorch step in about 0.1 s; the bound catches a reader gone quadratic or
// looping, with room for a machine busy with the rest of ctest.
constexpr double kCaseLimitSeconds = 2.0 * kSlowdown;
constexpr std::uint64_t kSeed = 20261130;

struct Seed {
  std::string name;
  std::string bytes;
};

// Where each length-prefixed message of a valid stream starts (its prefix)
// and how long its prefix is.
struct Message {
  std::size_t start = 0, header = 0, length = 0;
};
std::vector<Message> messages_of(const std::string& s) {
  std::vector<Message> out;
  std::size_t at = 0;
  while (at < s.size()) {
    Message m{at, 0, 0};
    std::uint64_t v = 0;
    for (int shift = 0; at < s.size(); shift += 7) {
      const auto b = static_cast<unsigned char>(s[at++]);
      v |= std::uint64_t{b & 0x7fu} << shift;
      ++m.header;
      if ((b & 0x80u) == 0 || shift > 56) break;
    }
    m.length = static_cast<std::size_t>(v);
    if (m.length > s.size() - at) break;  // a damaged seed: stop at the damage
    at += m.length;
    out.push_back(m);
  }
  return out;
}

std::string varint(std::uint64_t v) {
  std::string out;
  do {
    out += static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v != 0);
  return out;
}

// One to four mutations of `bytes`; `what` says which, for the failure message.
std::string mutate(const std::string& bytes, Rng& rng, std::string& what) {
  std::string s = bytes;
  const std::size_t count = rng.below(2) == 0 ? 1 : 1 + rng.below(4);  // half single, to go deeper
  for (std::size_t k = 0; k < count; ++k) {
    const std::vector<Message> msgs = messages_of(s);
    const std::size_t at = rng.below(s.size() + 1);
    switch (rng.below(11)) {
      case 0:  // flip one bit
        if (s.empty()) break;
        s[at % s.size()] =
            static_cast<char>(s[at % s.size()] ^ static_cast<char>(1u << rng.below(8)));
        what += " flip@" + std::to_string(at % s.size());
        break;
      case 1:  // insert random bytes
      {
        const std::size_t n = 1 + rng.below(8);
        std::string ins;
        for (std::size_t i = 0; i < n; ++i) ins += static_cast<char>(rng.below(256));
        s.insert(at, ins);
        what += " insert" + std::to_string(n) + "@" + std::to_string(at);
        break;
      }
      case 2:  // delete bytes
        s.erase(std::min(at, s.size()), 1 + rng.below(8));
        what += " delete@" + std::to_string(at);
        break;
      case 3:  // truncate
        s.resize(at);
        what += " truncate@" + std::to_string(at);
        break;
      case 4:  // a length prefix made huge, zero or off by a few
      case 5: {
        if (msgs.empty()) break;
        const Message& m = msgs[rng.below(msgs.size())];
        static constexpr std::uint64_t kLengths[] = {
            0, 1, 0x7f, 0x80, 0x7fffffff, 0xffffffff, 0xffffffffffffffff};
        std::uint64_t v = kLengths[rng.below(std::size(kLengths))];
        if (rng.below(2) == 0) v = m.length + rng.below(9) - 4;  // off by up to 4
        s.replace(m.start, m.header, varint(v));
        what += " length@" + std::to_string(m.start) + "=" + std::to_string(v);
        break;
      }
      case 6:  // duplicate a message (a node: the same id twice)
      case 7: {
        if (msgs.empty()) break;
        const Message& m = msgs[rng.below(msgs.size())];
        const std::string copy = s.substr(m.start, m.header + m.length);
        const Message& to = msgs[rng.below(msgs.size())];
        s.insert(to.start, copy);
        what += " duplicate@" + std::to_string(m.start) + "->" + std::to_string(to.start);
        break;
      }
      case 9:  // a node's field set to an edge value, re-encoded: the checks past parsing
      case 10: {
        if (msgs.size() < 2) break;
        const std::size_t i = 1 + rng.below(msgs.size() - 1);  // not the metadata
        const Message& m = msgs[i];
        et::Node n;
        if (!n.ParseFromString(s.substr(m.start + m.header, m.length))) break;
        static constexpr std::int64_t kValues[] = {
            -1,       0, 1, 7, 11, 1 << 20, std::int64_t{1} << 48, (std::int64_t{1} << 48) + 1,
            INT64_MAX};
        const std::int64_t v = kValues[rng.below(std::size(kValues))];
        const std::uint64_t id = rng.below(2) == 0 ? n.id() : rng.below(msgs.size() + 2);
        switch (rng.below(6)) {
          case 0:
            n.set_type(static_cast<int>(v % 13));
            break;
          case 1:
            n.set_id(id);  // maybe another node's
            break;
          case 2:
            n.add_data_deps(id);  // maybe itself, a cycle or none
            break;
          case 3:
            n.add_ctrl_deps(id);
            break;
          case 4:
            n.set_duration_micros(static_cast<std::uint64_t>(v));
            break;
          default: {
            static const char* const kNames[] = {"comm_type", "comm_size",  "comm_src",
                                                 "comm_dst",  "comm_tag",   "is_cpu_op",
                                                 "num_ops",   "tensor_size"};
            et::Attribute* a = n.attr_size() > 0 && rng.below(2) == 0
                                   ? n.mutable_attr(static_cast<int>(
                                         rng.below(static_cast<std::size_t>(n.attr_size()))))
                                   : n.add_attr();
            if (a->name().empty()) a->set_name(kNames[rng.below(std::size(kNames))]);
            if (rng.below(4) == 0) {
              a->set_string_val("x");  // not an integer
            } else {
              a->set_int64_val(v);
            }
          }
        }
        const std::string body = n.SerializeAsString();
        s.replace(m.start, m.header + m.length, varint(body.size()) + body);
        what += " field@" + std::to_string(m.start) + "=" + std::to_string(v);
        break;
      }
      default:  // drop a message (a dependency target may go missing)
      {
        if (msgs.empty()) break;
        const Message& m = msgs[rng.below(msgs.size())];
        s.erase(m.start, m.header + m.length);
        what += " drop@" + std::to_string(m.start);
        break;
      }
    }
  }
  return s;
}

// Small valid traces of every kind the reader knows.
std::vector<Seed> generated_seeds() {
  std::vector<Seed> seeds;
  {
    EtWriter w;
    w.add(testing::comp(1, 5));
    w.add(testing::comp(2, 7, {1}));
    w.add(testing::coll(3, 0, 1 << 20, {2}));
    w.add(testing::comp(4, 3, {3}));
    seeds.push_back({"chain", w.bytes()});
  }
  {
    EtWriter w;
    for (int t = 0; t < kCommTypes; ++t) {
      et::Node n = testing::coll(static_cast<std::uint64_t>(t + 1), t, 4096 << t);
      if (t > 0) n.add_data_deps(static_cast<std::uint64_t>(t));
      testing::set_bools(n, "involved_dim", {true, t % 2 == 0});
      w.add(n);
    }
    seeds.push_back({"collectives", w.bytes()});
  }
  for (const bool send : {true, false}) {
    EtWriter w;
    w.add(testing::comp(1, 5));
    w.add(testing::p2p(2, send, 1, 65536, 7, {1}));
    w.add(testing::p2p(3, send, 1, 1024, 8, {2}));
    seeds.push_back({send ? "sends" : "receives", w.bytes()});
  }
  {
    // Every node type, with memory sizes, FLOPs, a CPU op and a process group.
    EtWriter w("");
    et::Node m;
    m.set_id(0);
    m.set_name("meta");
    m.set_type(1);
    w.add(m);
    for (int t = 2; t < kNodeTypes; ++t) {
      et::Node n =
          testing::comp(static_cast<std::uint64_t>(t), 0, {static_cast<std::uint64_t>(t - 1)});
      n.set_type(t);
      testing::set_int(n, "tensor_size", 1 << 12);
      testing::set_int(n, "num_ops", 1 << 20);
      if (t == 7) {
        testing::set_int(n, "comm_type", 2);
        testing::set_int(n, "comm_size", 8192);
        et::Attribute* pg = n.add_attr();
        pg->set_name("pg_name");
        pg->set_string_val("0");
      }
      if (t == 5 || t == 6) {
        testing::set_int(n, t == 5 ? "comm_dst" : "comm_src", 0);
        testing::set_int(n, "comm_size", 64);
      }
      w.add(n);
    }
    et::Node cpu = testing::comp(20, 9, {4});
    cpu.set_name("c10d::allreduce_");
    cpu.set_type(7);
    testing::set_int(cpu, "is_cpu_op", 1);
    w.add(cpu);
    seeds.push_back({"node-types", w.bytes()});
  }
  {
    // Schema 1.0.1 (the version as an attribute), attribute values in every
    // integer field, control cycles and dependencies on missing nodes.
    EtWriter w("");
    w.bytes().clear();
    et::GlobalMetadata meta;
    et::Attribute* schema = meta.add_attr();
    schema->set_name("schema");
    schema->set_string_val("1.0.1");
    w.add(meta);
    et::Node n = testing::coll(1, 0, 1);
    for (const std::uint64_t d : {1, 2, 77}) n.add_ctrl_deps(d);  // itself, a cycle, missing
    n.mutable_attr(1)->set_uint64_val(std::uint64_t{1} << 40);
    w.add(n);
    et::Node c = testing::comp(2, 4, {1});
    const auto add = [&c](const char* name) {
      et::Attribute* a = c.add_attr();
      a->set_name(name);
      return a;
    };
    add("num_ops")->set_int32_val(100);
    add("tensor_size")->set_uint32_val(64);
    add("is_cpu_op")->set_bool_val(false);
    add("comm_tag")->set_sint64_val(-3);
    add("x1")->set_fixed32_val(5);
    add("x2")->set_fixed64_val(6);
    add("x3")->set_sfixed32_val(-7);
    add("x4")->set_sfixed64_val(-8);
    add("x5")->set_sint32_val(-9);
    add("x6")->set_string_val("text");
    w.add(c);
    seeds.push_back({"schema-1.0.1", w.bytes()});
  }
  {
    // GPU nodes without a duration, priced from their tensors' text
    // (io_tensor_bytes): mutations reach its parser.
    EtWriter w;
    et::Node a = testing::comp(1, 0);
    a.mutable_inputs()->set_shapes("[[64, 8], [[2, 3], [4]], [], [-1]]");
    a.mutable_inputs()->set_types(
        "['Tensor(float)', 'GenericList[Tensor(c10::Half),Tensor(long int)]', 'Bool', "
        "'Tensor(double)']");
    a.mutable_outputs()->set_shapes("[[64, 8]]");
    a.mutable_outputs()->set_types("['Tensor(c10::BFloat16)']");
    w.add(a);
    et::Node b = testing::comp(2, 0, {1});
    b.mutable_inputs()->set_shapes("[[[[1]]], [1000000, 1000000, 1000000]]");
    b.mutable_inputs()->set_types("[\"Tensor(int)\", 'GenericList[Tensor(bool)]']");
    w.add(b);
    seeds.push_back({"tensor-text", w.bytes()});
  }
  seeds.push_back({"layered-300", testing::large_trace(300).bytes()});
  return seeds;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

fs::path temp_path(const std::string& name) {
  return fs::temp_directory_path() /
         ("sipsim_chakra_fuzz_" + std::to_string(::getpid()) + "_" + name + ".et");
}

struct Outcome {
  int read = 0, refused = 0;
};

// `cases` mutations of `seed`, each read from a file: a trace or a TraceError
// naming the file, within the time bound.
Outcome fuzz(const Seed& seed, int cases, std::uint64_t salt) {
  Outcome out;
  // Strings of invalid UTF-8 make protobuf log an error line per case
  // before the parse fails (the reader's error follows).
  const google::protobuf::LogSilencer quiet;
  Rng rng(fuzz::fuzz_seed(kSeed) ^ salt);
  cases *= fuzz::fuzz_scale();
  const fs::path path = temp_path(seed.name);
  for (int c = 0; c < cases; ++c) {
    std::string what;
    const std::string bytes = mutate(seed.bytes, rng, what);
    {
      std::ofstream f(path, std::ios::binary | std::ios::trunc);
      f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    const std::string where = seed.name + " case " + std::to_string(c) + ":" + what;
    const auto t0 = Clock::now();
    try {
      const Trace t = read_trace(path.string());
      // A trace read must be whole: an order of all its nodes, dependencies
      // in range, and printable.
      EXPECT_EQ(t.order.size(), t.nodes.size()) << where;
      for (const Node& n : t.nodes) {
        EXPECT_LE(std::uint64_t{n.deps_begin} + n.deps_count, t.deps.size()) << where;
        EXPECT_LT(n.name, t.names.size()) << where;
      }
      for (const std::uint32_t d : t.deps) EXPECT_LT(d, t.nodes.size()) << where;
      EXPECT_FALSE(describe(t, "").empty());
      ++out.read;
    } catch (const TraceError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(path.string()), std::string::npos) << where << "\n" << msg;
      ++out.refused;
    } catch (const std::exception& e) {
      ADD_FAILURE() << where << ": escaped " << typeid(e).name() << ": " << e.what();
    }
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    EXPECT_LT(s, kCaseLimitSeconds) << where;
    if (::testing::Test::HasFailure()) break;  // the first failing case is the one to read
  }
  fs::remove(path);
  return out;
}

TEST(ChakraFuzz, GeneratedSeeds) {
  const std::vector<Seed> seeds = generated_seeds();
  // Every seed reads as it is: the mutations start from valid traces.
  for (const Seed& s : seeds) {
    const fs::path p = temp_path(s.name + "_seed");
    std::ofstream(p, std::ios::binary)
        .write(s.bytes.data(), static_cast<std::streamsize>(s.bytes.size()));
    EXPECT_NO_THROW(read_trace(p.string())) << s.name;
    fs::remove(p);
  }
  std::uint64_t salt = 0;
  for (const Seed& s : seeds) {
    const Outcome o = fuzz(s, 500, ++salt);
    std::printf("%-14s %4d read, %4d refused\n", s.name.c_str(), o.read, o.refused);
    EXPECT_GT(o.refused, 0) << s.name;
    if (HasFailure()) return;
  }
}

TEST(ChakraFuzz, RealTraces) {
  if (!fs::exists(kData)) GTEST_SKIP() << "no test data at " << kData;
  std::vector<Seed> seeds;
  for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"}) {
    const fs::path p =
        kData / "astra-sim-microbenchmarks" / op / "4npus_1MB" / (std::string(op) + ".0.et");
    if (fs::exists(p)) seeds.push_back({op, slurp(p)});
  }
  const fs::path pytorch = kData / "pytorch" / "chakra.0.et";
  std::uint64_t salt = 100;
  for (const Seed& s : seeds) {
    const Outcome o = fuzz(s, 300, ++salt);
    std::printf("%-14s %4d read, %4d refused\n", s.name.c_str(), o.read, o.refused);
    if (HasFailure()) return;
  }
  if (fs::exists(pytorch)) {
    // 2.9 MB: fewer cases, each reading the whole step.
    const Outcome o = fuzz({"pytorch", slurp(pytorch)}, 40 / static_cast<int>(kSlowdown), ++salt);
    std::printf("%-14s %4d read, %4d refused\n", "pytorch", o.read, o.refused);
  }
}

}  // namespace
}  // namespace sipsim::workload::chakra
