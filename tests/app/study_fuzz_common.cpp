// The study fuzz test's plumbing (study_fuzz.hpp): temporary directories,
// captured and timed command calls, the watchdog and crash note that name the
// case being run, text mutations.
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <typeinfo>

#include "csv.hpp"
#include "study_fuzz.hpp"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

namespace sipsim::app::fuzz {

namespace {

// The case being run, for the crash note and the watchdog: a fixed buffer,
// so that a signal handler may write it.
char g_case[1024] = "(none)";

void note_case(const std::string& name) {
  const std::size_t n = std::min(name.size(), sizeof g_case - 1);
  std::memcpy(g_case, name.data(), n);
  g_case[n] = '\0';
}

void write_note(const char* what) {
  const char* parts[] = {"\nstudy_fuzz: ", what, " in case: ", g_case, "\n"};
  for (const char* p : parts) {
    if (::write(STDERR_FILENO, p, std::strlen(p)) < 0) return;
  }
}

#if defined(__SANITIZE_ADDRESS__)
// AddressSanitizer reports the crash itself; this adds which input it was.
void on_sanitizer_death() {
  write_note("AddressSanitizer report");
}
#else
void on_crash(int sig) {
  write_note(strsignal(sig));
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}
#endif

void install_crash_note() {
  static bool done = false;
  if (done) return;
  done = true;
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_set_death_callback(on_sanitizer_death);
#else
  // On a stack of its own: a stack overflow is one of the crashes to name.
  static std::vector<char> stack(1 << 16);
  stack_t ss{};
  ss.ss_sp = stack.data();
  ss.ss_size = stack.size();
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = on_crash;
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::sigaction(sig, &sa, nullptr);
#endif
}

// Ends the process, naming the case, when one call runs past kHangSeconds.
class Watchdog {
 public:
  Watchdog() : thread_([this] { loop(); }) { thread_.detach(); }
  void arm() {
    std::lock_guard lock(mutex_);
    deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(kHangSeconds));
    armed_ = true;
    cv_.notify_all();
  }
  void disarm() {
    std::lock_guard lock(mutex_);
    armed_ = false;
  }

 private:
  void loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (!armed_) {
        cv_.wait(lock);
      } else if (cv_.wait_until(lock, deadline_) == std::cv_status::timeout && armed_ &&
                 Clock::now() >= deadline_) {
        write_note("hang (no end within the watchdog's limit)");
        std::_Exit(3);
      }
    }
  }
  std::mutex mutex_;
  std::condition_variable cv_;
  Clock::time_point deadline_{};
  bool armed_ = false;
  std::thread thread_;
};

Watchdog& watchdog() {
  static Watchdog* w = new Watchdog();  // never destroyed: its thread runs to the end
  return *w;
}

// Swaps std::cout's and std::cerr's buffers for one of its own while alive.
class Capture {
 public:
  Capture() : out_(std::cout.rdbuf(text_.rdbuf())), err_(std::cerr.rdbuf(text_.rdbuf())) {}
  ~Capture() {
    std::cout.rdbuf(out_);
    std::cerr.rdbuf(err_);
  }
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::streambuf* out_;
  std::streambuf* err_;
};

}  // namespace

TempDir::TempDir(const std::string& tag) {
  std::string pattern = (fs::temp_directory_path() / ("sipsim-study-fuzz-" + tag + "-XXXXXX"));
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp " + pattern);
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

Outcome run_case(const std::string& name, const std::function<int()>& command) {
  install_crash_note();
  note_case(name);
  Outcome o;
  const auto open_fds = [] {
    std::error_code ec;
    return std::distance(fs::directory_iterator("/proc/self/fd", ec), fs::directory_iterator());
  };
  const auto fds = open_fds();
  const auto start = Clock::now();
  {
    Capture capture;
    watchdog().arm();
    try {
      o.rc = command();
    } catch (const std::exception& e) {
      o.escaped = std::string(typeid(e).name()) + ": " + e.what();
    } catch (...) {
      o.escaped = "an exception that is not a std::exception";
    }
    watchdog().disarm();
    o.output = capture.text();
  }
  o.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  o.fds_left = static_cast<int>(open_fds() - fds);
  note_case("(between cases)");
  return o;
}

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    out.push_back(it->path().lexically_relative(dir).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> temporaries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const std::string& f : listing(dir)) {
    if (f.ends_with(".tmp") || f.ends_with(".partial")) out.push_back(f);
  }
  return out;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

std::string shown(const std::string& text, std::size_t max) {
  std::string out;
  for (std::size_t i = 0; i < std::min(text.size(), max); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || (c >= 0x20 && c < 0x7f)) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  if (text.size() > max) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

namespace {

// The spans of values: after each "key: " up to the end of the token (YAML),
// or each cell between commas (CSV).
std::vector<std::pair<std::size_t, std::size_t>> value_spans(const std::string& text, bool csv) {
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  if (csv) {
    std::size_t begin = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
      if (i == text.size() || text[i] == ',' || text[i] == '\n') {
        spans.emplace_back(begin, i);
        begin = i + 1;
      }
    }
    return spans;
  }
  for (std::size_t at = text.find(": "); at != std::string::npos; at = text.find(": ", at + 1)) {
    const std::size_t begin = at + 2;
    std::size_t end = begin;
    int depth = 0;
    while (end < text.size() && text[end] != '\n' && text[end] != '#') {
      const char c = text[end];
      if (c == '[' || c == '{') ++depth;
      if ((c == ']' || c == '}') && depth-- == 0) break;
      if (c == ',' && depth == 0) break;
      ++end;
    }
    if (end > begin) spans.emplace_back(begin, end);
  }
  return spans;
}

}  // namespace

std::string mutate(const std::string& text, bool csv, const std::vector<std::string>& values,
                   Rng& rng, std::string& what) {
  std::vector<std::string> lines = split_lines(text);
  if (lines.empty()) lines.push_back("");
  const std::size_t i = rng.below(lines.size());
  std::string out;
  switch (rng.below(10)) {
    case 0:
      what += " delete-line";
      lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    case 1:
      what += " duplicate-line";
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(i), lines[i]);
      break;
    case 2:
      what += " swap-lines";
      std::swap(lines[i], lines[rng.below(lines.size())]);
      break;
    case 3:
    case 4:
    case 5: {
      const auto spans = value_spans(text, csv);
      if (spans.empty()) break;
      const auto [b, e] = rng.pick(spans);
      const std::string v = rng.pick(values);
      what += " value(" + shown(text.substr(b, e - b), 40) + "->" + shown(v, 40) + ")";
      return text.substr(0, b) + v + text.substr(e);
    }
    case 6: {
      std::string t = text;
      const std::size_t n = 1 + rng.below(4);
      what += " bytes";
      for (std::size_t k = 0; k < n && !t.empty(); ++k) {
        t[rng.below(t.size())] = static_cast<char>(rng.below(256));
      }
      return t;
    }
    case 7: {
      // A character that means something to YAML or CSV, inserted.
      static const std::vector<std::string> kMarks = {"\"", "'", ",", ":", "#",  "&a ", "*a", "[",
                                                      "]",  "{", "}", "-", "\r", "\t",  "\\", "%"};
      std::string t = text;
      const std::string mark = rng.pick(kMarks);
      what += " insert(" + shown(mark) + ")";
      return t.insert(rng.below(t.size() + 1), mark);
    }
    case 8:
      what += " cut";
      return text.substr(0, rng.below(text.size() + 1));
    case 9:
      what += " indent";
      if (rng.chance(50)) {
        lines[i].insert(0, std::string(1 + rng.below(3), ' '));
      } else if (!lines[i].empty()) {
        lines[i].erase(0, 1);
      }
      break;
  }
  return join_lines(lines);
}

std::vector<std::vector<std::string>> read_csv(const fs::path& path) {
  std::vector<std::vector<std::string>> rows;
  for (const std::string& line : split_lines(read_file(path))) {
    if (!line.empty()) rows.push_back(csv_split(line));
  }
  return rows;
}

}  // namespace sipsim::app::fuzz

#if defined(__SANITIZE_ADDRESS__)
// UBSan (a library of its own) calls this on each report, before it stops
// the test: the same note.
extern "C" void __ubsan_on_report() {
  sipsim::app::fuzz::write_note("UBSan report");
}
#endif
