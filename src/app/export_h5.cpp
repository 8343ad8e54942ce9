#include "export_h5.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace sipsim::app::run_file {

namespace {

using output::h5::Handle;

// Rows read per H5Dread: a 64-byte trace row, 4 MiB a batch.
constexpr hsize_t kBatch = hsize_t{1} << 16;

struct RawTrace {
  std::uint32_t node, iteration, op;
  std::int32_t step;
  char kind[12];
  char category[16];
  std::uint64_t start_ps, end_ps;
};

struct RawCollective {
  std::uint64_t id;
  char op[16];
  char algorithm[24];
  std::uint32_t group_size;
  std::uint64_t bytes;
  std::uint32_t iteration;
  std::uint8_t warmup;
  std::uint64_t start_ps, end_ps, h2h_ps, h2t_ps, compute_ps;
  double algbw_gbps, busbw_gbps;
};

Handle string_type(std::size_t size) {
  Handle t(H5Tcopy(H5T_C_S1));
  H5Tset_size(t.get(), size);
  H5Tset_strpad(t.get(), H5T_STR_NULLPAD);
  return t;
}

template <std::size_t N>
std::string trimmed(const char (&s)[N]) {
  return std::string(s, strnlen(s, N));
}

void insert(hid_t type, const char* name, std::size_t offset, hid_t member) {
  if (H5Tinsert(type, name, offset, member) < 0) {
    throw std::logic_error(std::string("export: cannot describe column ") + name);
  }
}

// The memory type of a trace row: every column, or only `node`.
Handle trace_type(bool node_only) {
  if (node_only) {
    Handle t(H5Tcreate(H5T_COMPOUND, sizeof(std::uint32_t)));
    insert(t.get(), "node", 0, H5T_NATIVE_UINT32);
    return t;
  }
  Handle kind = string_type(sizeof(RawTrace::kind));
  Handle category = string_type(sizeof(RawTrace::category));
  Handle t(H5Tcreate(H5T_COMPOUND, sizeof(RawTrace)));
  insert(t.get(), "node", offsetof(RawTrace, node), H5T_NATIVE_UINT32);
  insert(t.get(), "iteration", offsetof(RawTrace, iteration), H5T_NATIVE_UINT32);
  insert(t.get(), "op", offsetof(RawTrace, op), H5T_NATIVE_UINT32);
  insert(t.get(), "step", offsetof(RawTrace, step), H5T_NATIVE_INT32);
  insert(t.get(), "kind", offsetof(RawTrace, kind), kind.get());
  insert(t.get(), "category", offsetof(RawTrace, category), category.get());
  insert(t.get(), "start_ps", offsetof(RawTrace, start_ps), H5T_NATIVE_UINT64);
  insert(t.get(), "end_ps", offsetof(RawTrace, end_ps), H5T_NATIVE_UINT64);
  return t;
}

Handle collective_type() {
  Handle op = string_type(sizeof(RawCollective::op));
  Handle algorithm = string_type(sizeof(RawCollective::algorithm));
  Handle t(H5Tcreate(H5T_COMPOUND, sizeof(RawCollective)));
  const hid_t id = t.get();
  insert(id, "id", offsetof(RawCollective, id), H5T_NATIVE_UINT64);
  insert(id, "op", offsetof(RawCollective, op), op.get());
  insert(id, "algorithm", offsetof(RawCollective, algorithm), algorithm.get());
  insert(id, "group_size", offsetof(RawCollective, group_size), H5T_NATIVE_UINT32);
  insert(id, "bytes", offsetof(RawCollective, bytes), H5T_NATIVE_UINT64);
  insert(id, "iteration", offsetof(RawCollective, iteration), H5T_NATIVE_UINT32);
  insert(id, "warmup", offsetof(RawCollective, warmup), H5T_NATIVE_UINT8);
  insert(id, "start_ps", offsetof(RawCollective, start_ps), H5T_NATIVE_UINT64);
  insert(id, "end_ps", offsetof(RawCollective, end_ps), H5T_NATIVE_UINT64);
  insert(id, "h2h_ps", offsetof(RawCollective, h2h_ps), H5T_NATIVE_UINT64);
  insert(id, "h2t_ps", offsetof(RawCollective, h2t_ps), H5T_NATIVE_UINT64);
  insert(id, "compute_ps", offsetof(RawCollective, compute_ps), H5T_NATIVE_UINT64);
  insert(id, "algbw_gbps", offsetof(RawCollective, algbw_gbps), H5T_NATIVE_DOUBLE);
  insert(id, "busbw_gbps", offsetof(RawCollective, busbw_gbps), H5T_NATIVE_DOUBLE);
  return t;
}

// Reads rows [first, first + count) of the 1-D `dataset` into `out`.
void read_rows(const std::string& path, hid_t dataset, const char* name, hid_t mem_type,
               hsize_t first, hsize_t count, void* out) {
  Handle file_space(H5Dget_space(dataset));
  Handle mem_space(H5Screate_simple(1, &count, nullptr));
  const bool ok =
      file_space && mem_space &&
      H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &first, nullptr, &count, nullptr) >=
          0 &&
      H5Dread(dataset, mem_type, mem_space.get(), file_space.get(), H5P_DEFAULT, out) >= 0;
  if (!ok) throw Error(path + ": cannot read " + name + " (damaged, or not format_version 1)");
}

}  // namespace

Reader::Reader(std::string path) : path_(std::move(path)) {
  // Missing objects are normal here (has()); HDF5's own stack traces would
  // only hide the message below.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  std::error_code ec;
  if (!std::filesystem::exists(path_, ec)) throw Error(path_ + ": no such file");
  if (std::filesystem::is_directory(path_, ec)) throw Error(path_ + ": is a directory");
  if (H5Fis_hdf5(path_.c_str()) <= 0) {
    throw Error(path_ + ": not a sipsim run file (not HDF5; 'sipsim run' writes one)");
  }
  file_ = Handle(H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!file_) throw Error(path_ + ": cannot open the HDF5 file");
  if (string_attr("/", "format") != "sipsim") {
    throw Error(path_ + ": not a sipsim run file (no /@format = \"sipsim\")");
  }
}

bool Reader::has(const std::string& object) const {
  // Each link on the way must exist before the next is asked about.
  std::size_t at = 1;
  while (at <= object.size()) {
    const std::size_t slash = object.find('/', at);
    const std::string prefix = object.substr(0, slash);
    if (H5Lexists(file_.get(), prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    if (slash == std::string::npos) break;
    at = slash + 1;
  }
  return true;
}

std::string Reader::string_attr(const std::string& object, const std::string& name,
                                const std::string& fallback) const {
  if (H5Aexists_by_name(file_.get(), object.c_str(), name.c_str(), H5P_DEFAULT) <= 0) {
    return fallback;
  }
  Handle attr(H5Aopen_by_name(file_.get(), object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT));
  Handle type(H5Aget_type(attr.get()));
  if (!attr || !type || H5Tget_class(type.get()) != H5T_STRING) return fallback;
  if (H5Tis_variable_str(type.get()) > 0) {
    char* value = nullptr;
    Handle mem(H5Tcopy(H5T_C_S1));
    H5Tset_size(mem.get(), H5T_VARIABLE);
    if (H5Aread(attr.get(), mem.get(), &value) < 0 || !value) return fallback;
    std::string s(value);
    H5free_memory(value);
    return s;
  }
  const std::size_t size = H5Tget_size(type.get());
  std::string s(size, '\0');
  if (H5Aread(attr.get(), type.get(), s.data()) < 0) return fallback;
  s.resize(strnlen(s.data(), size));
  return s;
}

std::uint64_t Reader::rows(const std::string& dataset) const {
  Handle d(H5Dopen2(file_.get(), dataset.c_str(), H5P_DEFAULT));
  Handle space(d ? H5Dget_space(d.get()) : -1);
  hsize_t n = 0;
  if (!space || H5Sget_simple_extent_ndims(space.get()) != 1 ||
      H5Sget_simple_extent_dims(space.get(), &n, nullptr) < 0) {
    throw Error(path_ + ": " + dataset + " is not a table");
  }
  return n;
}

std::vector<std::uint32_t> Reader::trace_nodes() const {
  const hsize_t n = rows("/trace/events");
  Handle d(H5Dopen2(file_.get(), "/trace/events", H5P_DEFAULT));
  Handle type = trace_type(true);
  std::vector<std::uint32_t> nodes(n);
  for (hsize_t first = 0; first < n; first += kBatch) {
    const hsize_t count = std::min(kBatch, n - first);
    read_rows(path_, d.get(), "/trace/events", type.get(), first, count, nodes.data() + first);
  }
  return nodes;
}

void Reader::for_each_trace_batch(const std::function<void(std::span<const TraceRow>)>& f) const {
  const hsize_t n = rows("/trace/events");
  Handle d(H5Dopen2(file_.get(), "/trace/events", H5P_DEFAULT));
  Handle type = trace_type(false);
  std::vector<RawTrace> raw(std::min(kBatch, n));
  std::vector<TraceRow> batch;
  for (hsize_t first = 0; first < n; first += kBatch) {
    const hsize_t count = std::min(kBatch, n - first);
    read_rows(path_, d.get(), "/trace/events", type.get(), first, count, raw.data());
    batch.clear();
    for (hsize_t i = 0; i < count; ++i) {
      const RawTrace& r = raw[i];
      batch.push_back({r.node, r.iteration, r.op, r.step, trimmed(r.kind), trimmed(r.category),
                       r.start_ps, r.end_ps});
    }
    f(batch);
  }
}

std::vector<CollectiveRow> Reader::collectives() const {
  const hsize_t n = rows("/collectives");
  Handle d(H5Dopen2(file_.get(), "/collectives", H5P_DEFAULT));
  Handle type = collective_type();
  std::vector<RawCollective> raw(n);
  if (n > 0) read_rows(path_, d.get(), "/collectives", type.get(), 0, n, raw.data());
  std::vector<CollectiveRow> out;
  out.reserve(n);
  for (const RawCollective& r : raw) {
    out.push_back({r.id, trimmed(r.op), trimmed(r.algorithm), r.group_size, r.bytes, r.iteration,
                   r.warmup != 0, r.start_ps, r.end_ps, r.h2h_ps, r.h2t_ps, r.compute_ps,
                   r.algbw_gbps, r.busbw_gbps});
  }
  return out;
}

}  // namespace sipsim::app::run_file
