// The Chakra trace reader on real traces (ASTRA-sim's microbenchmarks, a
// PyTorch step; skipped when the test data is absent) and on damaged ones
// written by et_writer.hpp, each error named by file, node and field.
#include "sipsim/workload/chakra/trace.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "et_writer.hpp"

namespace sipsim::workload::chakra {
namespace {

namespace fs = std::filesystem;
using testing::EtWriter;

const fs::path kData = SIPSIM_CHAKRA_DATA;

fs::path temp_path(const std::string& name) {
  return fs::temp_directory_path() / ("sipsim_chakra_" + std::to_string(::getpid()) + "_" + name);
}

// The message of reading `w`'s bytes as a file.
std::string error_of(EtWriter& w, const std::string& name) {
  const fs::path p = temp_path(name);
  w.save(p);
  std::string what;
  try {
    read_trace(p);
  } catch (const TraceError& e) {
    what = e.what();
  }
  fs::remove(p);
  EXPECT_FALSE(what.empty()) << name << " was read without an error";
  EXPECT_NE(what.find(p.string()), std::string::npos) << what;
  return what;
}

TEST(ChakraTrace, AstraSimMicrobenchmarksParse) {
  const fs::path root = kData / "astra-sim-microbenchmarks";
  if (!fs::exists(root)) GTEST_SKIP() << "no test data at " << root;
  const std::pair<const char*, CommType> ops[] = {{"all_reduce", CommType::kAllReduce},
                                                  {"all_gather", CommType::kAllGather},
                                                  {"reduce_scatter", CommType::kReduceScatter},
                                                  {"all_to_all", CommType::kAllToAll}};
  int files = 0;
  for (const auto& [op, type] : ops) {
    for (const int npus : {4, 8, 16}) {
      for (int r = 0; r < npus; ++r) {
        const fs::path p = root / op / (std::to_string(npus) + "npus_1MB") /
                           (std::string(op) + "." + std::to_string(r) + ".et");
        const Trace t = read_trace(p);
        EXPECT_EQ(t.version, "0.0.4");
        ASSERT_EQ(t.nodes.size(), 1u) << p;
        const Node& n = t.nodes[0];
        EXPECT_EQ(n.type, NodeType::kCommColl);
        EXPECT_FALSE(n.cpu_op);
        EXPECT_TRUE(n.has_comm_type);
        EXPECT_EQ(n.comm_type, type) << p;
        EXPECT_EQ(n.comm_size, 1'048'576u);
        EXPECT_EQ(t.order.size(), 1u);
        ++files;
      }
    }
  }
  EXPECT_EQ(files, 4 * (4 + 8 + 16));
}

TEST(ChakraTrace, PyTorchStep) {
  const fs::path p = kData / "pytorch" / "chakra.0.et";
  if (!fs::exists(p)) GTEST_SKIP() << "no test data at " << p;
  const Trace t = read_trace(p);
  EXPECT_EQ(t.version, "1.0.1");
  EXPECT_EQ(t.nodes.size(), 3664u);
  const TraceStats s = statistics(t);
  EXPECT_EQ(s.by_type[static_cast<int>(NodeType::kComp)], 3643u);
  EXPECT_EQ(s.by_type[static_cast<int>(NodeType::kCommColl)], 21u);
  EXPECT_EQ(t.order.size(), t.nodes.size());
  EXPECT_GT(s.compute_us, 0u);
  // Every dependency comes before its user in the order.
  std::vector<std::uint32_t> pos(t.nodes.size());
  for (std::uint32_t i = 0; i < t.order.size(); ++i) pos[t.order[i]] = i;
  for (std::uint32_t i = 0; i < t.nodes.size(); ++i) {
    const Node& n = t.nodes[i];
    for (std::uint32_t j = 0; j < n.deps_count; ++j)
      EXPECT_LT(pos[t.deps[n.deps_begin + j]], pos[i]);
  }
  EXPECT_GT(t.unknown_attributes.count("op_schema"), 0u);
  EXPECT_EQ(t.missing_ctrl_deps, 1277u);
  // The 157 GPU nodes without a duration are device-to-device copies whose
  // inputs and outputs give their bytes.
  EXPECT_EQ(s.without_duration, 157u);
  EXPECT_EQ(s.io_sized, 157u);
  EXPECT_EQ(s.untimed, 0u);
  const std::string text = describe(t, "  ");
  EXPECT_NE(text.find("157 priced by their tensors' bytes"), std::string::npos) << text;
  EXPECT_NE(text.find("COMM_COLL_NODE 21"), std::string::npos) << text;
  EXPECT_NE(text.find("ALL_REDUCE"), std::string::npos) << text;
}

// PyTorch's observer writes one entry per argument: a tensor's shape, a
// tensor list's shapes, [] for a scalar.
TEST(ChakraTrace, TensorBytesFromInputsAndOutputs) {
  EXPECT_EQ(io_tensor_bytes("[[64], [64], []]", "['Tensor(float)', 'Tensor(float)', 'Bool']"),
            512u);
  EXPECT_EQ(io_tensor_bytes("[[2, 3, 4]]", "['Tensor(c10::BFloat16)']"), 48u);
  EXPECT_EQ(io_tensor_bytes("[[[8], [2, 2]], []]",
                            "['GenericList[Tensor(long int),Tensor(double)]', 'Int']"),
            96u);
  EXPECT_EQ(io_tensor_bytes("[[], [4]]", "['Tensor(nullptr (uninitialized))', 'GenericList[Int]']"),
            0u);
  EXPECT_EQ(io_tensor_bytes("", ""), 0u);
  EXPECT_EQ(io_tensor_bytes("[[]]", "['Tensor(float)']"), 4u);  // a 0-d tensor: one element
  // Not the observer's form: not priced from it.
  EXPECT_EQ(io_tensor_bytes("[64]", "['Tensor(float)']"), std::nullopt);
  EXPECT_EQ(io_tensor_bytes("[[64]", "['Tensor(float)']"), std::nullopt);
  EXPECT_EQ(io_tensor_bytes("[[6x4]]", "['Tensor(float)']"), std::nullopt);
  EXPECT_EQ(io_tensor_bytes("[[64]]", "['Tensor(float)"), std::nullopt);
  EXPECT_EQ(io_tensor_bytes("[[-1]]", "['Tensor(float)']"), 0u);  // no size
  // An absurd shape does not overflow.
  EXPECT_EQ(io_tensor_bytes("[[1000000000, 1000000000, 1000000000]]", "['Tensor(float)']"), 0u);
  const std::string deep(40, '[');
  EXPECT_EQ(io_tensor_bytes(deep + std::string(40, ']'), "['Tensor(float)']"), std::nullopt);
}

TEST(ChakraTrace, DamagedStreams) {
  {
    EtWriter w;
    w.add(testing::comp(1, 5));
    w.bytes() += std::string(11, '\xff');
    EXPECT_NE(error_of(w, "varint").find("message 2 at byte"), std::string::npos);
    EXPECT_NE(error_of(w, "varint").find("malformed length prefix"), std::string::npos);
  }
  {
    EtWriter w;
    w.add(testing::comp(1, 5));
    w.bytes().resize(w.bytes().size() - 3);
    EXPECT_NE(error_of(w, "truncated").find("truncated message"), std::string::npos);
  }
  {
    EtWriter w;
    w.bytes() += "\xff\xff\xff\x7f";  // 268,435,455 bytes declared
    EXPECT_NE(error_of(w, "huge").find("more than the whole file"), std::string::npos);
  }
  {
    EtWriter w;
    w.bytes() += std::string("\x03\xff\xff\xff", 4);
    EXPECT_NE(error_of(w, "garbage").find("not a valid sipsim.chakra_et.Node"), std::string::npos);
  }
  {
    EtWriter w;
    w.bytes().clear();
    EXPECT_NE(error_of(w, "empty").find("empty file"), std::string::npos);
  }
}

TEST(ChakraTrace, DamagedNodes) {
  auto one = [](const testing::et::Node& n, const std::string& name) {
    EtWriter w;
    w.add(testing::comp(1, 5));
    w.add(n);
    return error_of(w, name);
  };
  testing::et::Node bad_type = testing::comp(2, 1);
  bad_type.set_type(42);
  EXPECT_NE(one(bad_type, "type").find("node 2 ('comp_2'): type: unknown node type 42"),
            std::string::npos);
  EXPECT_NE(one(testing::coll(2, 0, 64, {99}), "dep")
                .find("node 2 ('coll_2'): data_deps: no node has id 99"),
            std::string::npos);
  EXPECT_NE(one(testing::coll(2, 0, 0), "size0").find("node 2 ('coll_2'): attr comm_size: 0 bytes"),
            std::string::npos);
  EXPECT_NE(one(testing::coll(2, 0, std::int64_t{1} << 50), "sizebig")
                .find("attr comm_size: 1125899906842624 bytes"),
            std::string::npos);
  EXPECT_NE(
      one(testing::coll(2, 12, 64), "ctype").find("attr comm_type: unknown collective type 12"),
      std::string::npos);
  testing::et::Node no_type = testing::comp(2, 0);
  no_type.set_type(7);
  testing::set_int(no_type, "comm_size", 64);
  EXPECT_NE(
      one(no_type, "notype").find("node 2 ('comp_2'): attr comm_type: missing on a COMM_COLL_NODE"),
      std::string::npos);
  EXPECT_NE(one(testing::comp(1, 1), "dup").find("node 1 ('comp_1'): id: a second node"),
            std::string::npos);
  {
    EtWriter w;
    w.add(testing::comp(1, 5));
    w.add(testing::coll(2, 0, 64, {1, 4}));
    w.add(testing::coll(3, 0, 64, {2}));
    w.add(testing::coll(4, 0, 64, {3}));
    const std::string e = error_of(w, "cycle");
    EXPECT_NE(e.find("data_deps: dependency cycle through this node"), std::string::npos) << e;
  }
}

// involved_dim as a bit mask and its length; more than 32 dimensions, or a
// value that is not a bool list, is refused at the node.
TEST(ChakraTrace, InvolvedDimStoredAsMask) {
  EtWriter w;
  testing::et::Node n = testing::coll(1, 0, 64);
  testing::set_bools(n, "involved_dim", {true, false, true});
  testing::set_string(n, "pg_name", "tp");
  w.add(n);
  w.add(testing::coll(2, 0, 64, {1}));
  const fs::path p = temp_path("involved");
  w.save(p);
  const Trace t = read_trace(p);
  fs::remove(p);
  EXPECT_EQ(t.nodes[0].involved_dim, 0b101u);
  EXPECT_EQ(t.nodes[0].involved_dims, 3u);
  EXPECT_EQ(t.names[t.nodes[0].pg_name], "tp");
  EXPECT_EQ(t.nodes[1].involved_dims, 0u);
  EXPECT_EQ(t.nodes[1].pg_name, 0u);

  EtWriter many;
  testing::et::Node m = testing::coll(3, 0, 64);
  testing::set_bools(m, "involved_dim", std::vector<bool>(33, true));
  many.add(m);
  EXPECT_NE(error_of(many, "dims33")
                .find("node 3 ('coll_3'): attr involved_dim: 33 dimensions: at most 32"),
            std::string::npos);
  EtWriter integer;
  testing::et::Node k = testing::coll(4, 0, 64);
  testing::set_int(k, "involved_dim", 1);
  integer.add(k);
  EXPECT_NE(
      error_of(integer, "dimsint").find("node 4 ('coll_4'): attr involved_dim: not a bool list"),
      std::string::npos);
}

// Control dependencies closing a cycle (as PyTorch conversions leave them)
// are dropped and counted; the order follows the rest.
TEST(ChakraTrace, ControlCyclesBroken) {
  EtWriter w;
  w.add(testing::comp(1, 5, {1}));  // on itself
  w.add(testing::comp(2, 5, {3}));  // 2 -> 3 -> 2
  w.add(testing::comp(3, 5, {2, 1}));
  w.add(testing::coll(4, 0, 64, {3}));
  const fs::path p = temp_path("ctrlcycle");
  w.save(p);
  const Trace t = read_trace(p);
  fs::remove(p);
  EXPECT_EQ(t.broken_ctrl_deps, 2u);
  ASSERT_EQ(t.order.size(), 4u);
  EXPECT_EQ(t.order, (std::vector<std::uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(t.nodes[2].deps_count, 2u);
}

TEST(ChakraTrace, UnknownAttributesCounted) {
  EtWriter w("1.0.1");
  testing::et::Node n = testing::comp(1, 5);
  testing::set_int(n, "my_attr", 3);
  w.add(n);
  n.set_id(2);
  w.add(n);
  const fs::path p = temp_path("unknown");
  w.save(p);
  const Trace t = read_trace(p);
  fs::remove(p);
  EXPECT_EQ(t.unknown_attributes.at("my_attr"), 2u);
  EXPECT_EQ(t.missing_ctrl_deps, 0u);
}

// The load speed and memory of a large generated trace
// (SIPSIM_CHAKRA_LARGE_NODES nodes, default 200,000), printed for the docs.
TEST(ChakraTrace, LargeTraceLoads) {
  std::uint64_t nodes = 200'000;
  if (const char* env = std::getenv("SIPSIM_CHAKRA_LARGE_NODES")) nodes = std::stoull(env);
  const fs::path p = temp_path("large");
  testing::large_trace(nodes).save(p);
  const auto bytes = fs::file_size(p);
  rusage before{};
  ::getrusage(RUSAGE_SELF, &before);
  const auto t0 = std::chrono::steady_clock::now();
  const Trace t = read_trace(p);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage after{};
  ::getrusage(RUSAGE_SELF, &after);
  fs::remove(p);
  ASSERT_EQ(t.nodes.size(), nodes);
  EXPECT_EQ(t.order.size(), nodes);
  std::printf("%llu nodes, %llu bytes: loaded in %.3f s (%.0f nodes/s); peak RSS %ld -> %ld KiB\n",
              static_cast<unsigned long long>(nodes), static_cast<unsigned long long>(bytes), s,
              static_cast<double>(nodes) / s, before.ru_maxrss, after.ru_maxrss);
  EXPECT_LT(s, 30.0);
}

}  // namespace
}  // namespace sipsim::workload::chakra
