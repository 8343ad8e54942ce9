#pragma once
// Writes Chakra execution traces for the tests (the schema's messages of
// src/workload/chakra/et.proto): well-formed ones of any size, and the raw
// bytes to damage them.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "chakra/et.pb.h"

namespace sipsim::workload::chakra::testing {

namespace et = sipsim::chakra_et;

// A stream of length-prefixed messages, kept in memory.
class EtWriter {
 public:
  explicit EtWriter(const std::string& version = "0.0.4") {
    et::GlobalMetadata meta;
    meta.set_version(version);
    add(meta);
  }
  void add(const google::protobuf::Message& m) {
    google::protobuf::io::StringOutputStream out(&bytes_);
    google::protobuf::io::CodedOutputStream coded(&out);
    coded.WriteVarint32(static_cast<std::uint32_t>(m.ByteSizeLong()));
    m.SerializeToCodedStream(&coded);
  }
  std::string& bytes() { return bytes_; }
  void save(const std::string& path) const {
    std::ofstream(path, std::ios::binary)
        .write(bytes_.data(), static_cast<std::streamsize>(bytes_.size()));
  }

 private:
  std::string bytes_;
};

inline void set_int(et::Node& n, const std::string& name, std::int64_t v) {
  et::Attribute* a = n.add_attr();
  a->set_name(name);
  a->set_int64_val(v);
}

inline void set_string(et::Node& n, const std::string& name, const std::string& v) {
  et::Attribute* a = n.add_attr();
  a->set_name(name);
  a->set_string_val(v);
}

inline void set_bools(et::Node& n, const std::string& name, const std::vector<bool>& v) {
  et::Attribute* a = n.add_attr();
  a->set_name(name);
  for (const bool b : v) a->mutable_bool_list()->add_values(b);
}

inline et::Node comp(std::uint64_t id, std::uint64_t micros, std::vector<std::uint64_t> deps = {}) {
  et::Node n;
  n.set_id(id);
  n.set_name("comp_" + std::to_string(id));
  n.set_type(4);
  n.set_duration_micros(micros);
  for (const std::uint64_t d : deps) n.add_ctrl_deps(d);
  return n;
}

inline et::Node coll(std::uint64_t id, int comm_type, std::int64_t bytes,
                     std::vector<std::uint64_t> deps = {}) {
  et::Node n;
  n.set_id(id);
  n.set_name("coll_" + std::to_string(id));
  n.set_type(7);
  set_int(n, "comm_type", comm_type);
  set_int(n, "comm_size", bytes);
  for (const std::uint64_t d : deps) n.add_data_deps(d);
  return n;
}

inline et::Node p2p(std::uint64_t id, bool send, std::int64_t peer, std::int64_t bytes,
                    std::int64_t tag, std::vector<std::uint64_t> deps = {}) {
  et::Node n;
  n.set_id(id);
  n.set_name((send ? "send_" : "recv_") + std::to_string(id));
  n.set_type(send ? 5 : 6);
  set_int(n, send ? "comm_dst" : "comm_src", peer);
  set_int(n, "comm_size", bytes);
  set_int(n, "comm_tag", tag);
  for (const std::uint64_t d : deps) n.add_ctrl_deps(d);
  return n;
}

// A layered trace of `nodes` nodes: chains of compute, each depending on the
// previous node and one 64 nodes back, an all-reduce every 1,000.
inline EtWriter large_trace(std::uint64_t nodes) {
  EtWriter w;
  for (std::uint64_t i = 0; i < nodes; ++i) {
    std::vector<std::uint64_t> deps;
    if (i > 0) deps.push_back(i - 1);
    if (i >= 64) deps.push_back(i - 64);
    if (i % 1000 == 999) {
      w.add(coll(i, 0, 1 << 20, deps));
    } else {
      et::Node n = comp(i, 1 + i % 7, deps);
      n.set_name("aten::op_" + std::to_string(i % 500));
      w.add(n);
    }
  }
  return w;
}

// A folder per process (every MPI rank reads the scenario itself, so ranks
// must not share files), removed at exit.
inline const std::filesystem::path& trace_dir() {
  static const struct Dir {
    std::filesystem::path path = std::filesystem::temp_directory_path() /
                                 ("sipsim_chakra_test_" + std::to_string(::getpid()));
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  } dir;
  return dir.path;
}

// Several traces: <dir>/<name>.<g>.et, returning the prefix <dir>/<name>; one
// trace: <dir>/<name>.et, returning that file. Either is a scenario's `trace`.
inline std::string write_traces(const std::string& name, std::vector<EtWriter> traces) {
  const std::filesystem::path& dir = trace_dir();
  std::filesystem::create_directories(dir);
  if (traces.size() == 1) {
    const std::string file = (dir / (name + ".et")).string();
    traces[0].save(file);
    return file;
  }
  for (std::size_t g = 0; g < traces.size(); ++g)
    traces[g].save((dir / (name + "." + std::to_string(g) + ".et")).string());
  return (dir / name).string();
}

}  // namespace sipsim::workload::chakra::testing
