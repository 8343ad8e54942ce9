#include "study_dir.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "sipsim/base/text.hpp"
#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/output/run_file_reader.hpp"

namespace sipsim::app {

namespace fs = std::filesystem;

namespace {

constexpr const char* kStudyIdLine = "# study-id: ";
constexpr std::size_t kLogTailBytes = 64 * 1024;

}  // namespace

std::string layout_problem(const fs::path& dir) {
  for (const char* sub : {"runs", "scenarios", "logs"}) {
    const base::FileKind kind = base::file_kind(dir / sub);
    if (kind != base::FileKind::kMissing && kind != base::FileKind::kDirectory) {
      return (dir / sub).string() + " is " + base::describe_file(dir / sub) +
             ", not a directory of the study's own";
    }
  }
  return "";
}

std::string sipsim_binary() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("sipsim") : p.string();
}

std::string study_id_of(const std::string& text) {
  std::size_t at = 0;
  while (at < text.size() && text[at] == '#') {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line(text.data() + at, end - at);
    if (line.starts_with(kStudyIdLine)) return std::string(line.substr(std::strlen(kStudyIdLine)));
    at = end + 1;
  }
  return "";
}

std::string scenario_body(const std::string& text) {
  std::size_t at = 0;
  while (at < text.size() && text[at] == '#') {
    const std::size_t end = text.find('\n', at);
    if (end == std::string::npos) return "";
    at = end + 1;
  }
  return text.substr(at);
}

std::string done_problem(const fs::path& run_file, const fs::path& scenario_file,
                         bool allow_symlink) {
  const std::string name = run_file.string();
  try {
    const output::run_file::Reader in(name, {.allow_symlink = allow_symlink});
    if (const std::string why = in.unfinished_reason(); !why.empty()) {
      return name + ": not a finished run: " + why;
    }
    if (!in.string_attr("/meta", "overrides").empty()) {
      return name + ": was run with --set overrides, not as " + scenario_file.string();
    }
    const std::string ran = in.string_attr("/meta", "scenario_yaml");
    const std::string wanted = base::read_regular_file(scenario_file, base::kMaxScenarioBytes);
    if (scenario_body(ran) != scenario_body(wanted)) {
      return name + ": is a run of another scenario than " + scenario_file.string() +
             " (its /meta@scenario_yaml differs)";
    }
    const std::string ran_id = study_id_of(ran), wanted_id = study_id_of(wanted);
    if (!ran_id.empty() && ran_id != wanted_id) {
      return name + ": is a run of another study (study-id " + base::excerpt(ran_id) +
             ", this one's is " + (wanted_id.empty() ? "none" : wanted_id) + ")";
    }
    return "";
  } catch (const output::run_file::Error& e) {
    return e.what();
  } catch (const base::FileError& e) {
    return e.what();
  } catch (const std::bad_alloc&) {
    return name + ": not enough memory to read it";
  }
}

namespace {

// The last 64 KiB of a regular file ("" when it is not one).
std::string log_tail(const fs::path& path) {
  std::string text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return "";
  base::Fd owned(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return "";
  const off_t from = std::max<off_t>(0, st.st_size - static_cast<off_t>(kLogTailBytes));
  text.resize(kLogTailBytes);
  const ssize_t n = ::pread(fd, text.data(), text.size(), from);
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return text;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::string line = text.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(std::move(line));
    at = end + 1;
  }
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool has_alnum(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c); });
}

// Open MPI frames its help messages (the refusal to run as root, "mpirun
// detected that one or more processes exited with non-zero status", ...)
// between lines of dashes.
bool separator(const std::string& s) {
  return s.size() >= 5 && s.find_first_not_of("- ") == std::string::npos &&
         s.find("-----") != std::string::npos;
}

// sipsim's own last words: "sipsim: error: ...", "sipsim: interrupted by
// ...", or --local's "sipsim sweep: cannot start the run: ...".
bool sipsim_message(const std::string& s) {
  return (s.starts_with("sipsim: ") && !s.starts_with("sipsim: estimating")) ||
         s.starts_with("sipsim sweep: ");
}

}  // namespace

std::string last_line(const fs::path& path) {
  std::string last, last_error;
  for (const std::string& line : lines_of(log_tail(path))) {
    if (lower(line).find("error") != std::string::npos) last_error = line;
    if (has_alnum(line)) last = line;
  }
  return base::excerpt(last_error.empty() ? last : last_error, 300);
}

std::string failure_line(const fs::path& path) {
  const std::vector<std::string> lines = lines_of(log_tail(path));
  // An odd count of separators: the tail began inside a banner.
  const auto separators = std::count_if(lines.begin(), lines.end(), separator);
  bool in_banner = separators % 2 == 1;
  std::string own, cancelled, last_error, last;
  bool root_banner = false;
  for (const std::string& line : lines) {
    if (separator(line)) {
      in_banner = !in_banner;
      continue;
    }
    const std::string low = lower(line);
    if (in_banner) {
      root_banner = root_banner || low.find("attempt to run as root") != std::string::npos;
      continue;
    }
    // The launchers' word that some process failed: not why.
    if (low.find("exited with non-zero status") != std::string::npos) continue;
    if (sipsim_message(line)) own = line;
    // slurmstepd's "*** STEP 12.0 ON node CANCELLED AT ... DUE TO TIME LIMIT ***".
    if (line.find("***") != std::string::npos && line.find("CANCELLED") != std::string::npos) {
      cancelled = line;
    }
    if (low.find("error") != std::string::npos) last_error = line;
    if (has_alnum(line)) last = line;
  }
  const std::string& best = !own.empty()          ? own
                            : !cancelled.empty()  ? cancelled
                            : !last_error.empty() ? last_error
                                                  : last;
  if (best.empty() && root_banner) {
    return "Open MPI refused to run as root (set OMPI_ALLOW_RUN_AS_ROOT=1 and "
           "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)";
  }
  return base::excerpt(best, 300);
}

std::set<std::string> partial_runs(const fs::path& dir) {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir / "runs", ec)) {
    const std::string f = e.path().filename().string();
    const std::size_t h5 = f.find(".h5.");
    if (h5 != std::string::npos && f.ends_with(".partial")) out.insert(f.substr(0, h5));
  }
  return out;
}

RunStatus run_status(const fs::path& dir, const std::string& id,
                     const std::set<std::string>& partial) {
  const fs::path run = dir / "runs" / (id + ".h5");
  std::string damaged;
  if (base::file_kind(run) != base::FileKind::kMissing) {
    damaged = done_problem(run, dir / "scenarios" / (id + ".yaml"), false);
    if (damaged.empty()) return {RunState::kDone, ""};
    // Shown relative to the study directory, as the other reasons are.
    if (damaged.starts_with(dir.string() + "/")) damaged.erase(0, dir.string().size() + 1);
  }
  const fs::path rc = dir / "logs" / (id + ".rc"), err = dir / "logs" / (id + ".err");
  const bool ended = base::file_kind(rc) != base::FileKind::kMissing;
  if (partial.contains(id) && !ended) return {RunState::kRunning, ""};
  const bool started = base::file_kind(err) != base::FileKind::kMissing;
  std::string why = !damaged.empty() ? damaged : started ? failure_line(err) : "";
  if (ended) {
    const std::string code = last_line(rc);
    if (why.empty()) why = code == "0" ? "exit 0 but no run file" : "exit " + code;
    return {RunState::kFailed, why};
  }
  if (!damaged.empty()) return {RunState::kFailed, damaged};
  if (started) {
    return {RunState::kFailed,
            why.empty() ? "stopped without a run file or exit status (killed?)" : why};
  }
  return {RunState::kPending, ""};
}

StudyLock::StudyLock(const fs::path& dir) {
  const fs::path path = dir / ".sweep.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw std::runtime_error(path.string() + ": cannot open the study's lock (" +
                             std::strerror(errno) + ")");
  }
  fd_ = base::Fd(fd);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char buf[32] = {};
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    std::string pid = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
    pid.erase(std::remove_if(pid.begin(), pid.end(), [](char c) { return !std::isdigit(c); }),
              pid.end());
    throw std::runtime_error("another sipsim sweep is writing or running this study" +
                             (pid.empty() ? std::string() : " (pid " + pid + ")") +
                             "; wait for it to end or stop it");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) base::write_all(fd, pid, path);
}

}  // namespace sipsim::app
