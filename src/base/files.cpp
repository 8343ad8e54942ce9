#include "sipsim/base/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

namespace sipsim::base {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const fs::path& path, const std::string& what, int err) {
  throw FileError(path.string() + ": " + what + " (" + std::strerror(err) + ")");
}

}  // namespace

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

int Fd::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

void Fd::close(const fs::path& path) {
  const int fd = release();
  if (fd >= 0 && ::close(fd) != 0) fail(path, "cannot write", errno);
}

Fd create_fresh(const fs::path& path, mode_t mode) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) fail(path, "cannot replace", errno);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) fail(path, "cannot create", errno);
  return Fd(fd);
}

void write_all(int fd, std::string_view data, const fs::path& path) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(path, "cannot write", n < 0 ? errno : EIO);
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

fs::path unique_temporary(const fs::path& target) {
  std::random_device rd;
  const std::uint64_t r = (std::uint64_t{rd()} << 32) ^ rd();
  char suffix[24];
  std::snprintf(suffix, sizeof suffix, ".%016llx.tmp", static_cast<unsigned long long>(r));
  return fs::path(target.string() + suffix);
}

TempFile::TempFile(const fs::path& target, mode_t mode, bool create)
    : target_(target), path_(unique_temporary(target)) {
  if (!create) return;
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) fail(path_, "cannot create", errno);
  fd_ = Fd(fd);
  // The umask may have narrowed it; the mode asked for is what the file gets.
  if (::fchmod(fd, mode) != 0) fail(path_, "cannot set the mode", errno);
}

TempFile::~TempFile() {
  fd_ = Fd();
  if (!done_) ::unlink(path_.c_str());
}

void TempFile::commit() {
  fd_.close(path_);
  if (std::rename(path_.c_str(), target_.c_str()) != 0) {
    fail(target_, "cannot rename " + path_.filename().string() + " into place", errno);
  }
  done_ = true;
}

void write_file_atomic(const fs::path& path, std::string_view text, mode_t mode) {
  TempFile tmp(path, mode);
  write_all(tmp.fd().get(), text, tmp.path());
  tmp.commit();
}

std::string read_regular_file(const fs::path& path, std::size_t max) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw FileError(path.string() + ": cannot read (" + std::strerror(errno) + ")");
  Fd owned(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    throw FileError(path.string() + ": is " + describe_file(path) + ", not a regular file");
  }
  if (static_cast<std::uint64_t>(st.st_size) > max) {
    throw FileError(path.string() + ": larger than " + std::to_string(max) + " bytes");
  }
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return text;
}

FileKind file_kind(const fs::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return FileKind::kMissing;
  if (S_ISREG(st.st_mode)) return FileKind::kRegular;
  if (S_ISDIR(st.st_mode)) return FileKind::kDirectory;
  if (S_ISLNK(st.st_mode)) return FileKind::kSymlink;
  return FileKind::kOther;
}

std::string describe_file(const fs::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return "missing";
  if (S_ISREG(st.st_mode)) return "a regular file";
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (S_ISLNK(st.st_mode)) return "a symbolic link";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "a device";
  return "not a regular file";
}

FdStream::Buf::Buf(int fd) : fd_(fd), buf_(64 * 1024) {
  setp(buf_.data(), buf_.data() + buf_.size());
}

bool FdStream::Buf::drain() {
  const char* p = pbase();
  std::size_t left = static_cast<std::size_t>(pptr() - pbase());
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  setp(buf_.data(), buf_.data() + buf_.size());
  return true;
}

int FdStream::Buf::sync() {
  return drain() ? 0 : -1;
}

FdStream::Buf::int_type FdStream::Buf::overflow(int_type c) {
  if (!drain()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

FdStream::FdStream(int fd) : std::ostream(nullptr), buf_(fd) {
  rdbuf(&buf_);
}

FdStream::~FdStream() {
  buf_.pubsync();
}

}  // namespace sipsim::base
