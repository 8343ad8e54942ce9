#pragma once
// Thin RAII layer over parallel HDF5 (MPI-IO driver). Every call here is
// collective over the communicator the file was created with: all ranks call
// it, in the same order, with the same names and (for attributes) the same
// values. Strings are written as fixed-length (parallel HDF5 cannot write
// variable-length strings).
#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sipsim::output::h5 {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, int system_error = 0)
      : std::runtime_error(message), system_error_(system_error) {}
  // The errno behind the failure when it says what to do about it (ENOSPC,
  // EDQUOT, EIO, ...), else 0.
  int system_error() const { return system_error_; }

 private:
  int system_error_;
};

// Owns one HDF5 identifier (file, group, dataset, dataspace, property list,
// datatype or attribute) and closes it with the right H5*close.
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id);
  Handle(Handle&& other) noexcept;
  Handle& operator=(Handle&& other) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle();
  hid_t get() const { return id_; }
  explicit operator bool() const { return id_ >= 0; }
  void reset();
  // Gives up ownership without closing; returns the id.
  hid_t release();

 private:
  hid_t id_ = -1;
};

class File {
 public:
  // Creates `path`, which must not exist, for parallel access over `comm`;
  // collective. Throws Error naming the path when it cannot be created.
  static File create(const std::string& path, MPI_Comm comm);
  File(File&&) noexcept = default;
  File& operator=(File&&) noexcept = default;

  hid_t id() const { return file_.get(); }
  MPI_Comm comm() const { return comm_; }
  // Creates the group at an absolute path ("/meta", "/lp"); parents must exist.
  Handle create_group(const std::string& path);
  // Opens the existing group at an absolute path.
  Handle open_group(const std::string& path);
  // Writes everything cached to the file; collective, and throws on every
  // rank when it fails on any (a full disk). The file stays usable.
  void flush();
  // Flushes and closes; further use is an error. Also done by the destructor.
  // Collective; throws on every rank when it fails on any. A failed close
  // leaves HDF5 unusable (library_unusable()).
  void close();
  // Gives the file up without closing it, when closing would fail (its
  // metadata cannot be written): HDF5 is then unusable (library_unusable()).
  void abandon();
  // Bytes in the file's metadata cache: at most what flush() or close() may
  // still write besides raw data. Local.
  std::uint64_t cached_metadata_bytes() const;

 private:
  File(Handle file, MPI_Comm comm) : file_(std::move(file)), comm_(comm) {}
  Handle file_;
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// True once a file failed to close on this rank, or was abandoned. HDF5 1.10
// then holds a half torn-down (or unwritable) file that it crashes on, or
// fails to write, when it shuts down at MPI_Finalize: the process must end
// without finalizing (std::_Exit).
bool library_unusable();

// Throws on every rank of `comm` when `local` is set on any: the error of the
// lowest rank whose error names a system error, else of the lowest failing
// rank. Collective.
void agree(MPI_Comm comm, const Error* local);
// After a collective call that may fail on some ranks only (a write that
// fills the disk fails on the ranks that write): throws Error(what, with
// HDF5's and the system's reason) on every rank when `rc` < 0 on any.
void check_collective(MPI_Comm comm, herr_t rc, const std::string& what);

// A compound table's string column: fixed-length, `size` bytes, null-padded.
Handle fixed_string_type(std::size_t size);
// Fills such a field from `text`, cut at N bytes.
template <std::size_t N>
void copy_fixed(char (&field)[N], std::string_view text) {
  std::memset(field, 0, N);
  std::memcpy(field, text.data(), std::min(N, text.size()));
}

// Attributes on any object (file id, group or dataset handle).
void write_attr(hid_t object, const std::string& name, std::string_view value);
void write_attr(hid_t object, const std::string& name, std::uint64_t value);
void write_attr(hid_t object, const std::string& name, std::int64_t value);
void write_attr(hid_t object, const std::string& name, double value);
// Array attributes, the same on every rank: 1-D, or of `shape` (row-major,
// its product the number of values). At least one element.
void write_attr(hid_t object, const std::string& name, std::span<const std::uint64_t> values,
                std::span<const std::uint64_t> shape = {});
void write_attr(hid_t object, const std::string& name, std::span<const double> values);

// A 1-D table of `n` rows of compound `type` at absolute `path`, the same
// on every rank: rank 0 writes `rows` (the others' are not read); collective.
// Returns the dataset handle for its attributes.
Handle write_rank0_rows(File& file, const std::string& path, hid_t type, std::uint64_t n,
                        const void* rows);

// A 1-D dataset of `global_size` elements at absolute `path`, each rank writing
// the elements at `indices` (strictly increasing global indices; any rank may
// own none) with `values[i]` going to `indices[i]`. Written collectively.
// Returns the dataset handle so that attributes (units) can be added.
Handle write_distributed(File& file, const std::string& path, std::uint64_t global_size,
                         std::span<const std::uint64_t> indices,
                         std::span<const std::uint64_t> values);
Handle write_distributed(File& file, const std::string& path, std::uint64_t global_size,
                         std::span<const std::uint64_t> indices, std::span<const double> values);

}  // namespace sipsim::output::h5
