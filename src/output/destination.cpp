#include "sipsim/output/destination.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "sipsim/base/units.hpp"

namespace sipsim::output {

namespace {

// Room kept besides what is known to be needed: HDF5 writes a little more
// than its cached metadata (the superblock, free-space bookkeeping), and
// less than this and even an empty run file may not fit.
constexpr std::uint64_t kSpareBytes = 64 * 1024;

std::string directory_of(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

}  // namespace

std::string check_free_space(const std::string& path, std::uint64_t bytes) {
  const std::string dir = directory_of(path);
  struct statvfs fs {};
  if (statvfs(dir.c_str(), &fs) != 0) return {};
  // Root may use the blocks reserved for it.
  const std::uint64_t blocks = geteuid() == 0 ? fs.f_bfree : fs.f_bavail;
  const std::uint64_t free = blocks * fs.f_frsize;
  // Some file systems (btrfs) report no inode counts at all.
  const bool no_inodes = fs.f_files != 0 && fs.f_favail == 0;
  if (free >= bytes + kSpareBytes && !no_inodes) return {};
  return std::string(std::strerror(ENOSPC)) + " (" + base::format_bytes(free) + " free in '" + dir +
         "'" + (no_inodes ? ", no inodes" : "") + ")";
}

std::string describe_file_type(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG:
      return "a regular file";
    case S_IFDIR:
      return "a directory";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFIFO:
      return "a FIFO";
    case S_IFSOCK:
      return "a socket";
    case S_IFLNK:
      return "a symbolic link";
    default:
      return "a special file";
  }
}

std::string check_destination(const Destination& d) {
  const std::string& path = d.path;
  if (path.empty()) return "empty output path";
  const std::string named = "output '" + path + "'";
  const std::string elsewhere = "; choose another path with -o";

  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) {
    if (errno != ENOENT) return "cannot write " + named + ": " + std::strerror(errno);
  } else {
    // Follow a symbolic link: what it points to decides (a dangling one
    // points to nothing and is only a link).
    struct stat target = link;
    const bool is_link = S_ISLNK(link.st_mode);
    const bool resolves = !is_link || ::stat(path.c_str(), &target) == 0;
    if (resolves) {
      for (const Input& in : d.inputs) {
        struct stat read {};
        if (::stat(in.path.c_str(), &read) == 0 && read.st_dev == target.st_dev &&
            read.st_ino == target.st_ino) {
          if (path == in.path) return named + " is " + in.what + elsewhere;
          return named + " is " + in.what + " '" + in.path + "' (the same file)" + elsewhere;
        }
      }
      if (!S_ISREG(target.st_mode)) {
        return named + " is " + (is_link ? "a symbolic link to " : "") +
               describe_file_type(target.st_mode) + ", not a regular file" + elsewhere;
      }
    }
    if (!d.replace) {
      return named + " exists; pass --force to overwrite it or -o to choose another";
    }
  }

  const std::string dir = directory_of(path);
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return "cannot write " + named + ": directory '" + dir + "' does not exist";
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    return "cannot write " + named + ": directory '" + dir + "' is not writable";
  }
  return {};
}

}  // namespace sipsim::output
