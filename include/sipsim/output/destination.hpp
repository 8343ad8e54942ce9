#pragma once
// Where a run file may go. A run writes a new file next to the destination
// and renames it there, so the only thing it can ever replace is a directory
// entry; --force allows that for a regular file only, never for a device,
// FIFO, socket or directory (nor one reached through a symbolic link), nor
// for a file the run reads (the scenario), compared by device and inode so
// that symbolic and hard links are seen through.
#include <cstdint>
#include <string>
#include <vector>

namespace sipsim::output {

// A file the run reads, with what to call it in a message ("the scenario file").
struct Input {
  std::string path;
  std::string what;
};

struct Destination {
  std::string path;           // the final name (-o)
  bool replace = false;       // --force: an existing regular file may be replaced
  std::vector<Input> inputs;  // never replaced, whatever `replace` says
};

// Why the run file cannot go to `d` ("" when it can). Checked by rank 0
// before the run, and again before a --force run removes or replaces what is
// there. A symbolic link is replaced itself, never its target.
std::string check_destination(const Destination& d);

// "" when the file system of `path` has `bytes` free and some to spare (at
// least room for a run file to start), else why not: "No space left on
// device (12KiB free in 'dir')". Quotas are not seen here; writes report
// them (EDQUOT).
std::string check_free_space(const std::string& path, std::uint64_t bytes = 0);

// "a character device", "a directory", ... for a st_mode.
std::string describe_file_type(unsigned mode);

}  // namespace sipsim::output
