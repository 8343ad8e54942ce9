#pragma once
// Files that sipsim writes where others may have put things first (a study
// directory, an export's destination): nothing is written through a symbolic
// link or into a file that was there before, and what a reader finds under
// the final name is always whole.
#include <sys/types.h>

#include <filesystem>
#include <ostream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

namespace sipsim::base {

// "path: what (strerror)".
class FileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
  int get() const { return fd_; }
  int release();
  explicit operator bool() const { return fd_ >= 0; }
  // Closes it now; throws FileError naming `path` when the close fails.
  void close(const std::filesystem::path& path);

 private:
  int fd_ = -1;
};

// Creates `path` new for writing: whatever is there (a file, a planted
// symbolic link) is unlinked first, then the file is created with O_CREAT |
// O_EXCL | O_NOFOLLOW. Throws FileError.
Fd create_fresh(const std::filesystem::path& path, mode_t mode = 0644);

// Writes all of `data` to `fd`; throws FileError naming `path`.
void write_all(int fd, std::string_view data, const std::filesystem::path& path);

// "<target>.<16 random hex digits>.tmp": a name beside `target` that no one
// can have prepared, for a writer that creates it exclusively itself (HDF5's
// H5F_ACC_EXCL).
std::filesystem::path unique_temporary(const std::filesystem::path& target);

// A temporary file beside its target, created exclusively under a
// unique_temporary() name, removed by the destructor unless renamed into place.
class TempFile {
 public:
  // create = false: only the name, for a writer that creates the file itself.
  explicit TempFile(const std::filesystem::path& target, mode_t mode = 0644, bool create = true);
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile();
  const std::filesystem::path& path() const { return path_; }
  Fd& fd() { return fd_; }
  // Closes it and renames it over `target_` (a symbolic link there is
  // replaced, not followed). Throws FileError.
  void commit();

 private:
  std::filesystem::path target_, path_;
  Fd fd_;
  bool done_ = false;
};

// Writes `text` whole or not at all: a TempFile with `mode`, renamed over
// `path`. Throws FileError.
void write_file_atomic(const std::filesystem::path& path, std::string_view text,
                       mode_t mode = 0644);

// A file's text, from a regular file only (opened without blocking, so a
// FIFO is refused, not waited for) of at most `max` bytes; throws FileError.
std::string read_regular_file(const std::filesystem::path& path, std::size_t max);

// What is at `path`, without following a final symbolic link.
enum class FileKind { kMissing, kRegular, kDirectory, kSymlink, kOther };
FileKind file_kind(const std::filesystem::path& path);
// "a FIFO", "a directory", "a symbolic link", ...: for messages.
std::string describe_file(const std::filesystem::path& path);

// An ostream writing to a descriptor it does not own, 64 KiB at a time; a
// failed write sets badbit (check it after flush()).
class FdStream : public std::ostream {
 public:
  explicit FdStream(int fd);
  ~FdStream() override;

 private:
  class Buf : public std::streambuf {
   public:
    explicit Buf(int fd);
    int sync() override;
    int_type overflow(int_type c) override;

   private:
    bool drain();
    int fd_;
    std::vector<char> buf_;
  };
  Buf buf_;
};

}  // namespace sipsim::base
