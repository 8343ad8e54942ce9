#include "sipsim/output/run_file_reader.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <limits>
#include <new>
#include <system_error>

#include "sipsim/base/files.hpp"
#include "sipsim/base/text.hpp"
#include "sipsim/output/run_file.hpp"

namespace sipsim::output::run_file {

namespace {

using output::h5::Handle;

// Rows read per H5Dread: a 64-byte trace row, 4 MiB a batch.
constexpr hsize_t kBatch = hsize_t{1} << 16;

struct RawTrace {
  std::uint32_t node, iteration, op;
  std::int32_t step;
  char kind[12];
  char category[16];
  std::uint32_t program;
  std::uint64_t start_ps, end_ps;
};

struct RawOpName {
  std::uint32_t program, op, name;
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
  double algbw_GBps, busbw_GBps;
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

// The memory type of a trace row: every column (`program` when the file
// has it), or only `node`.
Handle trace_type(bool node_only, bool program = false) {
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
  if (program) insert(t.get(), "program", offsetof(RawTrace, program), H5T_NATIVE_UINT32);
  insert(t.get(), "start_ps", offsetof(RawTrace, start_ps), H5T_NATIVE_UINT64);
  insert(t.get(), "end_ps", offsetof(RawTrace, end_ps), H5T_NATIVE_UINT64);
  return t;
}

// `legacy`: the rates' names in files written before they were spelt GBps
// (algbw_gbps, busbw_gbps: GB/s all along, only the name changed).
Handle collective_type(bool legacy) {
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
  insert(id, legacy ? "algbw_gbps" : "algbw_GBps", offsetof(RawCollective, algbw_GBps),
         H5T_NATIVE_DOUBLE);
  insert(id, legacy ? "busbw_gbps" : "busbw_GBps", offsetof(RawCollective, busbw_GBps),
         H5T_NATIVE_DOUBLE);
  return t;
}

// Whether the compound type of `dataset` has a member `name`.
bool has_member(hid_t dataset, const char* name) {
  Handle type(H5Dget_type(dataset));
  return type && H5Tget_class(type.get()) == H5T_COMPOUND &&
         H5Tget_member_index(type.get(), name) >= 0;
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
  if (!ok) throw Error(path + ": cannot read " + name + " (damaged)");
}

struct LinkCheck {
  std::string problem;  // the first link or object refused
};

// H5Lvisit: every link must be a hard link (an external link to a FIFO would
// hang the reader, one to another file would report that file's data; the
// visit itself follows none), and no dataset may take its data from other
// files (virtual datasets, external storage).
herr_t check_link(hid_t group, const char* name, const H5L_info_t* info, void* data) {
  auto& check = *static_cast<LinkCheck*>(data);
  const std::string shown = base::excerpt(name);
  if (info->type == H5L_TYPE_EXTERNAL) {
    check.problem = "/" + shown + " is an external link (to another file)";
  } else if (info->type == H5L_TYPE_SOFT) {
    check.problem = "/" + shown + " is a soft link";
  } else if (info->type != H5L_TYPE_HARD) {
    check.problem = "/" + shown + " is a user-defined link";
  } else {
    Handle object(H5Oopen(group, name, H5P_DEFAULT));
    if (!object) {
      check.problem = "/" + shown + " cannot be opened";
    } else if (H5Iget_type(object.get()) == H5I_DATASET) {
      Handle dcpl(H5Dget_create_plist(object.get()));
      if (!dcpl || H5Pget_layout(dcpl.get()) == H5D_VIRTUAL) {
        check.problem = "/" + shown + " is a virtual dataset (it maps other files' data)";
      } else if (H5Pget_external_count(dcpl.get()) != 0) {
        // Its data would be read from another file (a FIFO would hang the read).
        check.problem = "/" + shown + " keeps its data in external files";
      }
    }
  }
  return check.problem.empty() ? 0 : 1;
}

// The bytes a dataset declares (elements x the file type's size), or
// nullopt when that does not fit 64 bits.
std::optional<std::uint64_t> declared_bytes(hid_t dataset) {
  Handle space(H5Dget_space(dataset));
  Handle type(H5Dget_type(dataset));
  if (!space || !type) return std::nullopt;
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0 || rank > 32) return std::nullopt;
  hsize_t dims[32] = {};
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  std::uint64_t bytes = H5Tget_size(type.get());
  for (int i = 0; i < rank; ++i) {
    if (dims[i] != 0 && bytes > std::numeric_limits<std::uint64_t>::max() / dims[i]) {
      return std::nullopt;
    }
    bytes *= dims[i];
  }
  return bytes;
}

// "" when the compound type of `dataset` has every member of `mem_type`
// with the same type class (what H5Dread converts), else the first that it
// lacks. Checked before rows are allocated.
std::string missing_member(hid_t dataset, hid_t mem_type) {
  Handle file_type(H5Dget_type(dataset));
  if (!file_type || H5Tget_class(file_type.get()) != H5T_COMPOUND) return "its columns";
  const int n = H5Tget_nmembers(mem_type);
  for (int i = 0; i < n; ++i) {
    char* name = H5Tget_member_name(mem_type, static_cast<unsigned>(i));
    const std::string member = name ? name : "";
    H5free_memory(name);
    const int at = H5Tget_member_index(file_type.get(), member.c_str());
    if (at < 0 || H5Tget_member_class(file_type.get(), static_cast<unsigned>(at)) !=
                      H5Tget_member_class(mem_type, static_cast<unsigned>(i))) {
      return "column " + member;
    }
  }
  return "";
}

}  // namespace

Reader::Reader(std::string path, ReaderOptions options) : path_(std::move(path)) {
  // Missing objects are normal here (has()); HDF5's own stack traces would
  // only hide the message below.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  // What is at the path is checked before anything opens it: a FIFO would
  // block the open.
  namespace fs = std::filesystem;
  switch (base::file_kind(path_)) {
    case base::FileKind::kMissing:
      throw Error(path_ + ": no such file");
    case base::FileKind::kDirectory:
      throw Error(path_ + ": is a directory");
    case base::FileKind::kRegular:
      break;
    case base::FileKind::kSymlink: {
      std::error_code ec;
      if (!options.allow_symlink) {
        throw Error(path_ + ": is a symbolic link; a study's run files must be its own files");
      }
      if (!fs::is_regular_file(path_, ec)) {
        throw Error(path_ + ": is a symbolic link to " +
                    (fs::exists(path_, ec) ? "something that is not a regular file" : "nothing"));
      }
      break;
    }
    case base::FileKind::kOther:
      throw Error(path_ + ": is " + base::describe_file(path_) + ", not a run file");
  }
  if (H5Fis_hdf5(path_.c_str()) <= 0) {
    throw Error(path_ + ": not a sipsim run file (not HDF5; 'sipsim run' writes one)");
  }
  file_ = Handle(H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!file_) throw Error(path_ + ": cannot open the HDF5 file (damaged or truncated?)");
  hsize_t size = 0;
  if (H5Fget_filesize(file_.get(), &size) < 0) throw Error(path_ + ": cannot read its size");
  file_bytes_ = size;
  LinkCheck check;
  if (H5Lvisit(file_.get(), H5_INDEX_NAME, H5_ITER_NATIVE, check_link, &check) < 0 &&
      check.problem.empty()) {
    check.problem = "its links cannot be read";
  }
  if (!check.problem.empty()) {
    throw Error(path_ + ": not a sipsim run file: " + check.problem);
  }
  if (string_attr("/", "format") != "sipsim") {
    throw Error(path_ + ": not a sipsim run file (no /@format = \"sipsim\")");
  }
  const double version = number_attr("/", "format_version");
  if (version != static_cast<double>(kFormatVersion)) {
    const std::string found =
        std::isnan(version) ? "no format_version"
                            : "format_version " + std::to_string(static_cast<long long>(version));
    throw Error(path_ + ": " + found + ", this sipsim reads " + std::to_string(kFormatVersion) +
                " (version 2 renamed /iterations' tflops_per_gpu to hardware_tflops_per_gpu "
                "and added period_ps): run it again with this sipsim");
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
  Handle type(attr ? H5Aget_type(attr.get()) : -1);
  Handle space(attr ? H5Aget_space(attr.get()) : -1);
  // One string, of no more bytes than the file has (a crafted size would be
  // allocated below; more than one element would be written past it).
  if (!attr || !type || !space || H5Tget_class(type.get()) != H5T_STRING ||
      H5Sget_simple_extent_npoints(space.get()) != 1 || H5Tget_size(type.get()) > file_bytes_) {
    return fallback;
  }
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

Handle Reader::open_checked(const std::string& dataset, int rank) const {
  Handle d(H5Dopen2(file_.get(), dataset.c_str(), H5P_DEFAULT));
  Handle space(d ? H5Dget_space(d.get()) : -1);
  if (!space || H5Sget_simple_extent_ndims(space.get()) != rank) {
    throw Error(path_ + ": " + dataset + " is not a " +
                (rank == 1 ? std::string("table") : std::to_string(rank) + "-D array") +
                " (damaged)");
  }
  const std::optional<std::uint64_t> bytes = declared_bytes(d.get());
  if (!bytes || *bytes > file_bytes_) {
    throw Error(path_ + ": " + dataset + " declares " +
                (bytes ? std::to_string(*bytes) : std::string("more than 2^64")) +
                " bytes, more than the whole file holds (" + std::to_string(file_bytes_) +
                "): damaged or not a run file");
  }
  return d;
}

std::uint64_t Reader::rows(const std::string& dataset) const {
  Handle d = open_checked(dataset, 1);
  Handle space(H5Dget_space(d.get()));
  hsize_t n = 0;
  if (H5Sget_simple_extent_dims(space.get(), &n, nullptr) < 0) {
    throw Error(path_ + ": " + dataset + " is not a table");
  }
  return n;
}

std::uint64_t Reader::table_rows(const std::string& dataset, hid_t mem_type) const {
  const std::uint64_t n = rows(dataset);
  Handle d(H5Dopen2(file_.get(), dataset.c_str(), H5P_DEFAULT));
  if (const std::string lacks = missing_member(d.get(), mem_type); !lacks.empty()) {
    throw Error(path_ + ": " + dataset + " lacks " + lacks + " of the schema (damaged)");
  }
  return n;
}

std::vector<std::uint32_t> Reader::trace_nodes() const {
  Handle type = trace_type(true);
  const hsize_t n = table_rows("/trace/events", type.get());
  Handle d(H5Dopen2(file_.get(), "/trace/events", H5P_DEFAULT));
  std::vector<std::uint32_t> nodes(n);
  for (hsize_t first = 0; first < n; first += kBatch) {
    const hsize_t count = std::min(kBatch, n - first);
    read_rows(path_, d.get(), "/trace/events", type.get(), first, count, nodes.data() + first);
  }
  return nodes;
}

void Reader::for_each_trace_batch(const std::function<void(std::span<const TraceRow>)>& f) const {
  Handle d = open_checked("/trace/events", 1);
  Handle type = trace_type(false, has_member(d.get(), "program"));
  const hsize_t n = table_rows("/trace/events", type.get());
  std::vector<RawTrace> raw(std::min(kBatch, n));
  std::vector<TraceRow> batch;
  for (hsize_t first = 0; first < n; first += kBatch) {
    const hsize_t count = std::min(kBatch, n - first);
    read_rows(path_, d.get(), "/trace/events", type.get(), first, count, raw.data());
    batch.clear();
    for (hsize_t i = 0; i < count; ++i) {
      const RawTrace& r = raw[i];
      batch.push_back({r.node, r.iteration, r.op, r.step, trimmed(r.kind), trimmed(r.category),
                       r.program, r.start_ps, r.end_ps});
    }
    f(batch);
  }
}

std::string_view OpNames::find(std::uint32_t program, std::uint32_t op) const {
  const auto it = by_op.find(std::uint64_t{program} << 32 | op);
  return it == by_op.end() ? std::string_view() : std::string_view(names[it->second]);
}

OpNames Reader::trace_op_names() const {
  OpNames out;
  if (!has("/trace/names") || !has("/trace/ops") || !has("/trace/events") ||
      !has_member(open_checked("/trace/events", 1).get(), "program")) {
    return out;
  }
  // /trace/names: one fixed-length string column, as wide as the file says.
  Handle d = open_checked("/trace/names", 1);
  Handle file_type(H5Dget_type(d.get()));
  const int at = file_type && H5Tget_class(file_type.get()) == H5T_COMPOUND
                     ? H5Tget_member_index(file_type.get(), "name")
                     : -1;
  Handle member(at >= 0 ? H5Tget_member_type(file_type.get(), static_cast<unsigned>(at)) : -1);
  if (!member || H5Tget_class(member.get()) != H5T_STRING ||
      H5Tis_variable_str(member.get()) != 0) {
    throw Error(path_ + ": /trace/names lacks its fixed-length column name (damaged)");
  }
  // No wider than a row of the file's type: the table's bytes bound the read.
  const std::size_t width = H5Tget_size(member.get());
  Handle text_t = string_type(width);
  Handle names_t(H5Tcreate(H5T_COMPOUND, width));
  insert(names_t.get(), "name", 0, text_t.get());
  const hsize_t n = table_rows("/trace/names", names_t.get());
  std::vector<char> text(n * width);
  if (n > 0) read_rows(path_, d.get(), "/trace/names", names_t.get(), 0, n, text.data());
  out.names.reserve(n);
  for (hsize_t i = 0; i < n; ++i) {
    const char* s = text.data() + i * width;
    out.names.emplace_back(s, strnlen(s, width));
  }

  Handle ops = open_checked("/trace/ops", 1);
  Handle ops_t(H5Tcreate(H5T_COMPOUND, sizeof(RawOpName)));
  insert(ops_t.get(), "program", offsetof(RawOpName, program), H5T_NATIVE_UINT32);
  insert(ops_t.get(), "op", offsetof(RawOpName, op), H5T_NATIVE_UINT32);
  insert(ops_t.get(), "name", offsetof(RawOpName, name), H5T_NATIVE_UINT32);
  const hsize_t rows = table_rows("/trace/ops", ops_t.get());
  std::vector<RawOpName> raw(rows);
  if (rows > 0) read_rows(path_, ops.get(), "/trace/ops", ops_t.get(), 0, rows, raw.data());
  out.by_op.reserve(rows);
  for (const RawOpName& r : raw) {
    if (r.name >= out.names.size()) {
      throw Error(path_ + ": /trace/ops names entry " + std::to_string(r.name) +
                  ", but /trace/names has " + std::to_string(out.names.size()) + " (damaged)");
    }
    out.by_op[std::uint64_t{r.program} << 32 | r.op] = r.name;
  }
  return out;
}

std::vector<CollectiveRow> Reader::collectives() const {
  Handle d = open_checked("/collectives", 1);  // throws, naming the file, without the table
  Handle file_type(H5Dget_type(d.get()));
  const bool legacy = file_type && H5Tget_class(file_type.get()) == H5T_COMPOUND &&
                      H5Tget_member_index(file_type.get(), "algbw_GBps") < 0 &&
                      H5Tget_member_index(file_type.get(), "algbw_gbps") >= 0;
  Handle type = collective_type(legacy);
  const hsize_t n = table_rows("/collectives", type.get());
  std::vector<RawCollective> raw(n);
  if (n > 0) read_rows(path_, d.get(), "/collectives", type.get(), 0, n, raw.data());
  std::vector<CollectiveRow> out;
  out.reserve(n);
  for (const RawCollective& r : raw) {
    out.push_back({r.id, trimmed(r.op), trimmed(r.algorithm), r.group_size, r.bytes, r.iteration,
                   r.warmup != 0, r.start_ps, r.end_ps, r.h2h_ps, r.h2t_ps, r.compute_ps,
                   r.algbw_GBps, r.busbw_GBps});
  }
  return out;
}

std::vector<IterationRow> Reader::iterations() const {
  if (!has("/iterations")) return {};
  Handle type(H5Tcreate(H5T_COMPOUND, sizeof(IterationRow)));
  insert(type.get(), "iteration", offsetof(IterationRow, iteration), H5T_NATIVE_UINT32);
  insert(type.get(), "start_ps", offsetof(IterationRow, start_ps), H5T_NATIVE_UINT64);
  insert(type.get(), "end_ps", offsetof(IterationRow, end_ps), H5T_NATIVE_UINT64);
  insert(type.get(), "period_ps", offsetof(IterationRow, period_ps), H5T_NATIVE_UINT64);
  insert(type.get(), "hardware_tflops_per_gpu", offsetof(IterationRow, hardware_tflops_per_gpu),
         H5T_NATIVE_DOUBLE);
  insert(type.get(), "model_tflops_per_gpu", offsetof(IterationRow, model_tflops_per_gpu),
         H5T_NATIVE_DOUBLE);
  const hsize_t n = table_rows("/iterations", type.get());
  Handle d(H5Dopen2(file_.get(), "/iterations", H5P_DEFAULT));
  std::vector<IterationRow> rows(n);
  if (n > 0) read_rows(path_, d.get(), "/iterations", type.get(), 0, n, rows.data());
  return rows;
}

BreakdownMeans Reader::breakdown_means() const {
  BreakdownMeans b;
  if (!has("/breakdown")) return b;
  Handle d = open_checked("/breakdown", 3);
  Handle file_type(H5Dget_type(d.get()));
  if (H5Tget_class(file_type.get()) != H5T_FLOAT) {
    throw Error(path_ + ": /breakdown is not an array of numbers (damaged?)");
  }
  const std::string cats = string_attr("/breakdown", "categories");
  for (std::size_t p = 0; p <= cats.size();) {
    const std::size_t q = std::min(cats.find(',', p), cats.size());
    b.categories.push_back(cats.substr(p, q - p));
    p = q + 1;
  }
  Handle space(H5Dget_space(d.get()));
  hsize_t dims[3] = {0, 0, 0};
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  if (dims[0] > 0 && dims[1] == 0) {
    throw Error(path_ + ": /breakdown has " + std::to_string(dims[0]) +
                " iterations of no GPU (damaged?)");
  }
  if (dims[2] != b.categories.size()) {
    throw Error(path_ + ": /breakdown has " + std::to_string(dims[2]) +
                " categories but its attribute names " + std::to_string(b.categories.size()));
  }
  b.gpus = dims[1];
  // One iteration at a time: open_checked bounded the whole by the file's size.
  const hsize_t per_iteration = dims[1] * dims[2];
  std::vector<double> v(per_iteration);
  for (hsize_t i = 0; i < dims[0]; ++i) {
    if (per_iteration > 0) {
      const hsize_t start[3] = {i, 0, 0}, count[3] = {1, dims[1], dims[2]};
      Handle file_space(H5Dget_space(d.get()));
      Handle mem_space(H5Screate_simple(1, &per_iteration, nullptr));
      if (H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) <
              0 ||
          H5Dread(d.get(), H5T_NATIVE_DOUBLE, mem_space.get(), file_space.get(), H5P_DEFAULT,
                  v.data()) < 0) {
        throw Error(path_ + ": cannot read /breakdown (damaged?)");
      }
    }
    std::vector<double> m(dims[2], 0.0);
    for (hsize_t g = 0; g < dims[1]; ++g) {
      for (hsize_t c = 0; c < dims[2]; ++c) m[c] += v[g * dims[2] + c];
    }
    for (double& x : m) x = dims[1] == 0 ? NAN : x / static_cast<double>(dims[1]) / 1e12;
    b.mean_s.push_back(std::move(m));
  }
  return b;
}

double Reader::number_attr(const std::string& object, const std::string& name) const {
  if (!has(object) ||
      H5Aexists_by_name(file_.get(), object.c_str(), name.c_str(), H5P_DEFAULT) <= 0) {
    return NAN;
  }
  Handle attr(H5Aopen_by_name(file_.get(), object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT));
  Handle type(attr ? H5Aget_type(attr.get()) : -1);
  Handle space(attr ? H5Aget_space(attr.get()) : -1);
  if (!type || !space) return NAN;
  const H5T_class_t cls = H5Tget_class(type.get());
  if ((cls != H5T_INTEGER && cls != H5T_FLOAT) || H5Sget_simple_extent_npoints(space.get()) != 1) {
    return NAN;
  }
  double v = NAN;
  if (H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &v) < 0) return NAN;
  return v;
}

std::string Reader::unfinished_reason() const {
  if (!has("/meta")) return "it has no /meta (a run writes it when it finishes)";
  Handle meta(H5Oopen(file_.get(), "/meta", H5P_DEFAULT));
  if (!meta || H5Iget_type(meta.get()) != H5I_GROUP) return "its /meta is not a group";
  for (const char* name : {"run_id", "end_time_ps", "committed_events"}) {
    if (H5Aexists_by_name(file_.get(), "/meta", name, H5P_DEFAULT) <= 0) {
      return std::string("/meta lacks ") + name + " (a run writes it when it finishes)";
    }
  }
  return "";
}

}  // namespace sipsim::output::run_file
