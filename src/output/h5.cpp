#include "sipsim/output/h5.hpp"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace sipsim::output::h5 {
namespace {

// HDF5's largest allowed dirty_bytes_threshold (H5C__MAX_MAX_CACHE_SIZE / 4).
constexpr std::size_t kMaxDirtyBytes = std::size_t{32} << 20;

// Failures must surface as our exceptions on every rank, not as HDF5's error
// stack dumped to stderr by each of N ranks.
void silence_hdf5_errors() {
  static const bool kSilenced = [] {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)kSilenced;
}

// Walk callback: keeps the first (innermost, most specific) error description.
herr_t keep_innermost(unsigned n, const H5E_error2_t* err, void* out) {
  if (n == 0 && err != nullptr && err->desc != nullptr) {
    *static_cast<std::string*>(out) = err->desc;
  }
  return 0;
}

// Why HDF5 failed (e.g. "errno = 2, ... 'No such file or directory'"), to be
// appended to our message; empty when the stack says nothing.
std::string hdf5_detail() {
  std::string detail;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost, &detail);
  H5Eclear2(H5E_DEFAULT);
  return detail.empty() ? std::string() : ": " + detail;
}

// The system's reason for a failed write when it is one that the user must
// act on (a full disk, a quota) and that HDF5's stack does not name: the
// MPI-IO layer sets errno but reports only "file write failed". 0 otherwise.
int system_error() {
  const int err = std::exchange(errno, 0);
  switch (err) {
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
    case EIO:
    case EROFS:
      return err;
    default:
      return 0;
  }
}

// `what` with HDF5's and the system's reason (errno first: reading HDF5's
// stack may change it).
Error describe_failure(const std::string& what) {
  const int err = system_error();
  const std::string detail = hdf5_detail();
  return Error(what + detail + (err != 0 ? std::string(" (") + std::strerror(err) + ")" : ""), err);
}

[[noreturn]] void fail(const std::string& what) {
  throw describe_failure(what);
}

// Set when a file failed to close (library_unusable()).
bool g_unusable = false;

// Wraps a freshly created id, throwing `what` if the call that produced it failed.
Handle checked(hid_t id, const std::string& what) {
  if (id < 0) fail(what);
  return Handle(id);
}

void check(herr_t rc, const std::string& what) {
  if (rc < 0) fail(what);
}

Handle scalar_space() {
  return checked(H5Screate(H5S_SCALAR), "cannot create scalar dataspace");
}

// Creates attribute `name` on `object` (replacing any existing one, whatever
// its type) and writes the single value at `buf` converted from `mem_type`.
void write_scalar_attr(hid_t object, const std::string& name, hid_t file_type, hid_t mem_type,
                       const void* buf) {
  silence_hdf5_errors();
  const std::string what = "attribute '" + name + "'";
  const htri_t exists = H5Aexists(object, name.c_str());
  if (exists < 0) fail("cannot query " + what);
  if (exists > 0) check(H5Adelete(object, name.c_str()), "cannot replace " + what);
  const Handle space = scalar_space();
  const Handle attr =
      checked(H5Acreate2(object, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
              "cannot create " + what);
  check(H5Awrite(attr.get(), mem_type, buf), "cannot write " + what);
}

// A maximal run of consecutive global indices, [first, first + length).
struct Run {
  std::uint64_t first;
  std::uint64_t length;
};

std::vector<Run> coalesce(std::span<const std::uint64_t> indices) {
  std::vector<Run> runs;
  for (const std::uint64_t i : indices) {
    if (!runs.empty() && runs.back().first + runs.back().length == i) {
      ++runs.back().length;
    } else {
      runs.push_back({i, 1});
    }
  }
  return runs;
}

// One H5Sselect_hyperslab call: `count` blocks of `block` elements, `stride` apart.
struct Slab {
  hsize_t start;
  hsize_t stride;
  hsize_t count;
  hsize_t block;
};

// Runs of equal length at a constant spacing (the common round-robin and
// block-cyclic ownerships) become one strided hyperslab each, so regular
// ownerships cost a handful of hyperslabs however many elements they hold.
std::vector<Slab> group_runs(const std::vector<Run>& runs) {
  std::vector<Slab> slabs;
  std::size_t r = 0;
  while (r < runs.size()) {
    Slab slab{runs[r].first, 1, 1, runs[r].length};
    if (r + 1 < runs.size() && runs[r + 1].length == slab.block) {
      slab.stride = runs[r + 1].first - runs[r].first;
      slab.count = 2;
      while (r + slab.count < runs.size() && runs[r + slab.count].length == slab.block &&
             runs[r + slab.count].first - runs[r + slab.count - 1].first == slab.stride) {
        ++slab.count;
      }
    }
    slabs.push_back(slab);
    r += slab.count;
  }
  return slabs;
}

// A new 1-D dataspace of `dims` elements with `slabs` selected.
Handle select_slabs(hsize_t dims, std::span<const Slab> slabs) {
  Handle space = checked(H5Screate_simple(1, &dims, nullptr), "cannot create dataspace");
  H5S_seloper_t op = H5S_SELECT_SET;
  for (const Slab& s : slabs) {
    check(H5Sselect_hyperslab(space.get(), op, &s.start, &s.stride, &s.count, &s.block),
          "cannot select dataset elements");
    op = H5S_SELECT_OR;
  }
  return space;
}

// A new 1-D dataspace of `dims` elements with `indices` (non-empty) selected
// as a union of hyperslabs. HDF5 1.10 ORs a hyperslab into a selection by
// walking all of it, so OR-ing n irregular runs one by one is quadratic
// (minutes for a million runs). Instead, small batches are ORed one by one
// and the batches are merged pairwise like a binary counter, as in merge
// sort: O(n log n) with at most log2(n) partial selections alive at once.
Handle select_indices(hsize_t dims, std::span<const std::uint64_t> indices) {
  constexpr std::size_t kBatch = 64;
  const std::vector<Slab> slabs = group_runs(coalesce(indices));
  struct Partial {
    Handle space;
    int level;
  };
  std::vector<Partial> stack;
  for (std::size_t first = 0; first < slabs.size(); first += kBatch) {
    const std::size_t n = std::min(kBatch, slabs.size() - first);
    Handle merged = select_slabs(dims, std::span<const Slab>(slabs).subspan(first, n));
    int level = 0;
    while (!stack.empty() && stack.back().level == level) {
      check(H5Smodify_select(stack.back().space.get(), H5S_SELECT_OR, merged.get()),
            "cannot merge dataset selections");
      merged = std::move(stack.back().space);
      stack.pop_back();
      ++level;
    }
    stack.push_back({std::move(merged), level});
  }
  while (stack.size() > 1) {
    Handle last = std::move(stack.back().space);
    stack.pop_back();
    check(H5Smodify_select(stack.back().space.get(), H5S_SELECT_OR, last.get()),
          "cannot merge dataset selections");
  }
  return std::move(stack.back().space);
}

// Programming errors in the caller's indices or values.
void validate(const std::string& path, std::uint64_t global_size,
              std::span<const std::uint64_t> indices, std::size_t n_values) {
  const std::string where = "dataset '" + path + "': ";
  if (indices.size() != n_values) {
    throw Error(where + std::to_string(indices.size()) + " indices but " +
                std::to_string(n_values) + " values");
  }
  for (std::size_t k = 0; k < indices.size(); ++k) {
    if (k > 0 && indices[k] <= indices[k - 1]) {
      throw Error(where + "indices not strictly increasing at position " + std::to_string(k));
    }
    if (indices[k] >= global_size) {
      throw Error(where + "index " + std::to_string(indices[k]) + " out of range (size " +
                  std::to_string(global_size) + ")");
    }
  }
}

// A rank's share of a distributed write: where its values go in the dataset
// and how they lie in its buffer.
struct LocalPart {
  Handle file_space;
  Handle mem_space;
};

// Everything a rank does on its own, before any collective call.
LocalPart prepare(const std::string& path, std::uint64_t global_size,
                  std::span<const std::uint64_t> indices, std::size_t n_values) {
  validate(path, global_size, indices, n_values);
  const std::string what = "dataset '" + path + "'";
  const hsize_t dims = global_size;
  const hsize_t local = indices.size();
  LocalPart part;
  part.mem_space =
      checked(H5Screate_simple(1, &local, nullptr), "cannot create memory dataspace for " + what);
  if (indices.empty()) {
    // This rank still joins the collective write, contributing nothing.
    part.file_space =
        checked(H5Screate_simple(1, &dims, nullptr), "cannot create dataspace for " + what);
    check(H5Sselect_none(part.file_space.get()), "cannot select none in " + what);
    check(H5Sselect_none(part.mem_space.get()), "cannot select none in " + what);
  } else {
    part.file_space = select_indices(dims, indices);
  }
  // Cheap insurance against a bug here: a selection that disagrees with the
  // buffer or leaves the extent would make H5Dwrite fail on this rank alone,
  // inside the collective call.
  const hssize_t selected = H5Sget_select_npoints(part.file_space.get());
  if (selected < 0 || static_cast<std::uint64_t>(selected) != indices.size() ||
      H5Sselect_valid(part.file_space.get()) <= 0) {
    throw Error(what + ": bad selection (" + std::to_string(selected) + " elements for " +
                std::to_string(indices.size()) + " indices)");
  }
  return part;
}

Handle write_distributed_impl(File& file, const std::string& path, std::uint64_t global_size,
                              std::span<const std::uint64_t> indices, std::size_t n_values,
                              hid_t file_type, hid_t mem_type, const void* values) {
  silence_hdf5_errors();
  const std::string what = "dataset '" + path + "'";
  LocalPart part;
  std::string local_error;
  try {
    part = prepare(path, global_size, indices, n_values);
  } catch (const Error& e) {
    local_error = e.what();
  }
  // One rank's bad input must not leave the others blocked in the collective
  // H5Dcreate2/H5Dwrite below: agree first, so that every rank throws. The
  // same reduction counts the elements written.
  const std::uint64_t local[2] = {local_error.empty() ? 0u : 1u, indices.size()};
  std::uint64_t total[2] = {0, 0};
  MPI_Allreduce(local, total, 2, MPI_UINT64_T, MPI_SUM, file.comm());
  if (!local_error.empty()) throw Error(local_error);
  if (total[0] != 0) throw Error(what + ": invalid indices or values on another rank");
  if (total[1] > global_size) {
    throw Error(what + ": ranks write " + std::to_string(total[1]) +
                " elements in all, more than " + std::to_string(global_size) +
                ", so their indices overlap");
  }

  // Contiguous layout: written once, in full, so chunking would buy nothing.
  Handle dcpl = checked(H5Pcreate(H5P_DATASET_CREATE), "cannot create property list");
  if (total[1] < global_size) {
    // Some elements belong to no rank. Parallel HDF5 writes no fill value by
    // default and MPI-IO collective buffering can leave garbage in the gaps
    // between ranks' pieces, so write zeros at allocation; this costs a second
    // pass over the dataset, hence only when there are gaps. An all-zero
    // 8-byte pattern is 0 as both U64LE and F64LE.
    const std::uint64_t zero = 0;
    check(H5Pset_fill_value(dcpl.get(), file_type, &zero), "cannot set fill value");
    check(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_ALLOC), "cannot set fill time");
  }
  // The create only uses the file space's extent, not this rank's selection.
  // With fill values it writes, so it can fail on some ranks only.
  Handle dataset(H5Dcreate2(file.id(), path.c_str(), file_type, part.file_space.get(), H5P_DEFAULT,
                            dcpl.get(), H5P_DEFAULT));
  check_collective(file.comm(), dataset ? 0 : -1, "cannot create " + what);
  // A zero-size contiguous dataset has no storage address and HDF5 1.10's
  // collective write fails on it ("addr overflow"); there is nothing to write
  // anyway, and global_size is the same on every rank, so all skip together.
  if (global_size == 0) return dataset;

  const Handle dxpl = checked(H5Pcreate(H5P_DATASET_XFER), "cannot create transfer property list");
  check(H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE), "cannot request collective I/O");
  // An empty span may have a null data(); HDF5 wants a buffer pointer regardless.
  const std::uint64_t dummy = 0;
  const void* buf = values != nullptr ? values : &dummy;
  // Only the ranks that write to the disk see it fail.
  check_collective(file.comm(),
                   H5Dwrite(dataset.get(), mem_type, part.mem_space.get(), part.file_space.get(),
                            dxpl.get(), buf),
                   "cannot write " + what);
  return dataset;
}

}  // namespace

// --- Handle -----------------------------------------------------------------

Handle::Handle(hid_t id) : id_(id < 0 ? -1 : id) {}

Handle::Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, -1)) {}

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = std::exchange(other.id_, -1);
  }
  return *this;
}

Handle::~Handle() {
  reset();
}

hid_t Handle::release() {
  return std::exchange(id_, -1);
}

void Handle::reset() {
  if (id_ < 0) return;
  const hid_t id = std::exchange(id_, -1);
  silence_hdf5_errors();
  // An id already closed behind our back (File::close closes the file's
  // objects too) reports H5I_BADID and is skipped. Close failures are ignored:
  // there is nobody to report them to from a destructor.
  switch (H5Iget_type(id)) {
    case H5I_FILE:
      if (H5Fclose(id) < 0) g_unusable = true;
      break;
    case H5I_GROUP:
      H5Gclose(id);
      break;
    case H5I_DATASET:
      H5Dclose(id);
      break;
    case H5I_DATASPACE:
      H5Sclose(id);
      break;
    case H5I_DATATYPE:
      H5Tclose(id);
      break;
    case H5I_ATTR:
      H5Aclose(id);
      break;
    case H5I_GENPROP_LST:
      H5Pclose(id);
      break;
    default:
      break;
  }
  H5Eclear2(H5E_DEFAULT);
}

// --- File -------------------------------------------------------------------

File File::create(const std::string& path, MPI_Comm comm) {
  silence_hdf5_errors();
  const std::string what = "cannot create HDF5 file '" + path + "'";
  const Handle fapl = checked(H5Pcreate(H5P_FILE_ACCESS), what);
  check(H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL), what);
  // The 1.8+ object header format moves attributes too big for an object
  // header (a scenario's YAML text can exceed 64 KiB) to dense storage.
  check(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST), what);
  // The MPI-IO driver defaults to H5F_CLOSE_SEMI, which makes H5Fclose fail
  // while any group or dataset handle is still alive. STRONG closes them with
  // the file, so File::close() works whatever handles callers still hold.
  check(H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG), what);
  // A metadata write that fails on some ranks only (a full disk) can leave
  // the others waiting inside HDF5 1.10's H5Fflush or H5Fclose. Metadata is
  // written at "sync points": at flush and close, and inside whatever call
  // makes the dirty metadata cross a threshold. At the maximum threshold a
  // run file's metadata (KiB to a few MiB) is written only by flush() and
  // close(), which the caller can make sure have room first
  // (cached_metadata_bytes()), and with one writer (rank 0) there is one
  // place where it can fail.
  H5AC_cache_config_t cache{};
  cache.version = H5AC__CURR_CACHE_CONFIG_VERSION;
  check(H5Pget_mdc_config(fapl.get(), &cache), what);
  cache.metadata_write_strategy = H5AC_METADATA_WRITE_STRATEGY__PROCESS_0_ONLY;
  cache.dirty_bytes_threshold = kMaxDirtyBytes;
  check(H5Pset_mdc_config(fapl.get(), &cache), what);
  // Exclusive: a run never writes into a file it did not create.
  Handle file = checked(H5Fcreate(path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get()), what);
  return File(std::move(file), comm);
}

Handle File::create_group(const std::string& path) {
  silence_hdf5_errors();
  return checked(H5Gcreate2(id(), path.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                 "cannot create group '" + path + "'");
}

Handle File::open_group(const std::string& path) {
  silence_hdf5_errors();
  return checked(H5Gopen2(id(), path.c_str(), H5P_DEFAULT), "cannot open group '" + path + "'");
}

void File::flush() {
  silence_hdf5_errors();
  check_collective(comm_, file_ ? H5Fflush(file_.get(), H5F_SCOPE_GLOBAL) : -1,
                   "cannot write HDF5 file");
}

void File::close() {
  if (!file_) return;
  silence_hdf5_errors();
  const herr_t rc = H5Fclose(file_.get());
  // HDF5 1.10 keeps the id of a file whose close failed (a full disk), but
  // the file is half torn down: closing it again crashes. Forget the id.
  if (rc < 0) {
    file_.release();
    g_unusable = true;
  } else {
    file_.reset();
  }
  check_collective(comm_, rc, "cannot close HDF5 file");
}

void File::abandon() {
  if (!file_) return;
  file_.release();
  g_unusable = true;
}

std::uint64_t File::cached_metadata_bytes() const {
  std::size_t max_size = 0, min_clean_size = 0, cur_size = 0;
  int entries = 0;
  if (!file_ || H5Fget_mdc_size(file_.get(), &max_size, &min_clean_size, &cur_size, &entries) < 0) {
    H5Eclear2(H5E_DEFAULT);
    return 0;
  }
  return cur_size;
}

bool library_unusable() {
  return g_unusable;
}

void agree(MPI_Comm comm, const Error* local) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // The lowest rank whose error names a system error (a full disk: only the
  // ranks whose writes hit it see ENOSPC), else the lowest failing rank.
  const int mine = local == nullptr ? 2 * size : local->system_error() != 0 ? rank : size + rank;
  int first = 2 * size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == 2 * size) return;
  const int origin = first % size;
  std::string message = rank == origin ? local->what() : std::string();
  int system = rank == origin ? local->system_error() : 0;
  int length = static_cast<int>(message.size());
  MPI_Bcast(&length, 1, MPI_INT, origin, comm);
  message.resize(static_cast<std::size_t>(length));
  MPI_Bcast(message.data(), length, MPI_CHAR, origin, comm);
  MPI_Bcast(&system, 1, MPI_INT, origin, comm);
  throw Error(message, system);
}

void check_collective(MPI_Comm comm, herr_t rc, const std::string& what) {
  if (rc < 0) {
    const Error local = describe_failure(what);
    agree(comm, &local);
  } else {
    agree(comm, nullptr);
  }
}

// --- Attributes -------------------------------------------------------------

void write_attr(hid_t object, const std::string& name, std::string_view value) {
  silence_hdf5_errors();
  // Fixed length because parallel HDF5 cannot write variable-length strings.
  // NULLPAD, not NULLTERM: the string fills its type exactly with no
  // terminator byte, and readers (h5py, h5dump) strip the padding, so the
  // bytes read back are exactly `value`. An empty string needs size 1 (HDF5
  // rejects size 0) holding a single pad byte, which also reads back empty.
  const std::string text(value);
  const Handle type = checked(H5Tcopy(H5T_C_S1), "cannot create string type");
  check(H5Tset_size(type.get(), std::max<std::size_t>(text.size(), 1)), "cannot size string type");
  check(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), "cannot set string padding");
  // YAML text may hold non-ASCII characters; say so.
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "cannot set string character set");
  // std::string's data() is never null and is NUL-terminated, so the empty
  // case has its one pad byte.
  write_scalar_attr(object, name, type.get(), type.get(), text.c_str());
}

void write_attr(hid_t object, const std::string& name, std::uint64_t value) {
  write_scalar_attr(object, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value);
}

void write_attr(hid_t object, const std::string& name, std::int64_t value) {
  write_scalar_attr(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
}

void write_attr(hid_t object, const std::string& name, double value) {
  write_scalar_attr(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

namespace {
// An array attribute of shape `dims` (row-major), written whole by every rank.
void write_array_attr(hid_t object, const std::string& name, hid_t file_type, hid_t mem_type,
                      std::span<const hsize_t> dims, const void* buf) {
  silence_hdf5_errors();
  const std::string what = "attribute '" + name + "'";
  const htri_t exists = H5Aexists(object, name.c_str());
  if (exists < 0) fail("cannot query " + what);
  if (exists > 0) check(H5Adelete(object, name.c_str()), "cannot replace " + what);
  const Handle space =
      checked(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
              "cannot create the dataspace of " + what);
  const Handle attr =
      checked(H5Acreate2(object, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
              "cannot create " + what);
  // An empty array (a run that committed no events has no histogram
  // buckets) has nothing to write, and no buffer to write it from.
  hsize_t elements = 1;
  for (const hsize_t d : dims) elements *= d;
  if (elements > 0) check(H5Awrite(attr.get(), mem_type, buf), "cannot write " + what);
}

std::vector<hsize_t> shape_of(std::size_t size, std::span<const std::uint64_t> shape) {
  if (shape.empty()) return {static_cast<hsize_t>(size)};
  return {shape.begin(), shape.end()};
}
}  // namespace

void write_attr(hid_t object, const std::string& name, std::span<const std::uint64_t> values,
                std::span<const std::uint64_t> shape) {
  write_array_attr(object, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, shape_of(values.size(), shape),
                   values.data());
}

void write_attr(hid_t object, const std::string& name, std::span<const double> values) {
  write_array_attr(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, shape_of(values.size(), {}),
                   values.data());
}

// --- Distributed datasets ---------------------------------------------------

Handle write_distributed(File& file, const std::string& path, std::uint64_t global_size,
                         std::span<const std::uint64_t> indices,
                         std::span<const std::uint64_t> values) {
  return write_distributed_impl(file, path, global_size, indices, values.size(), H5T_STD_U64LE,
                                H5T_NATIVE_UINT64, values.data());
}

Handle write_distributed(File& file, const std::string& path, std::uint64_t global_size,
                         std::span<const std::uint64_t> indices, std::span<const double> values) {
  return write_distributed_impl(file, path, global_size, indices, values.size(), H5T_IEEE_F64LE,
                                H5T_NATIVE_DOUBLE, values.data());
}

Handle fixed_string_type(std::size_t size) {
  Handle t(H5Tcopy(H5T_C_S1));
  H5Tset_size(t.get(), size);
  H5Tset_strpad(t.get(), H5T_STR_NULLPAD);
  return t;
}

Handle write_rank0_rows(File& file, const std::string& path, hid_t type, std::uint64_t n,
                        const void* rows) {
  const hsize_t size = n;
  Handle space(H5Screate_simple(1, &size, nullptr));
  Handle dset(H5Dcreate2(file.id(), path.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT));
  check_collective(file.comm(), dset ? 0 : -1, "cannot create " + path);
  int rank = 0;
  MPI_Comm_rank(file.comm(), &rank);
  Handle mem(H5Screate_simple(1, &size, nullptr));
  Handle fspace(H5Dget_space(dset.get()));
  if (rank != 0 || n == 0) {
    H5Sselect_none(mem.get());
    H5Sselect_none(fspace.get());
  }
  if (n == 0) return dset;  // the same on every rank
  Handle dxpl(H5Pcreate(H5P_DATASET_XFER));
  H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE);
  // Rank 0 writes: every rank must learn if that fails (a full disk).
  check_collective(file.comm(),
                   H5Dwrite(dset.get(), type, mem.get(), fspace.get(), dxpl.get(), rows),
                   "writing " + path + ": rows");
  return dset;
}

}  // namespace sipsim::output::h5
