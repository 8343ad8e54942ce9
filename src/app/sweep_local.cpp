// `sipsim sweep --local`: the study's runs here, K at a time (docs/studies.md,
// "Here"). Children die with this process (PR_SET_PDEATHSIG: even after
// SIGKILL), SIGINT and SIGTERM are passed on to them, and their logs are
// created anew, never written through a link.
#include <fcntl.h>
#include <spdlog/fmt/fmt.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include "sipsim/app/commands.hpp"
#include "sipsim/app/signals.hpp"
#include "sipsim/base/files.hpp"
#include "sipsim/base/interrupt.hpp"
#include "study_dir.hpp"
#include "sweep.hpp"

namespace sipsim::app {

namespace {

namespace fs = std::filesystem;

struct Child {
  std::string id;
  std::chrono::steady_clock::time_point start;
};

// Starts one run with its output and errors in logs/<id>.out and .err;
// returns its pid. Throws base::FileError when the logs cannot be created.
pid_t start_run(const Study& study, const std::string& id, const std::string& sipsim) {
  base::Fd out = base::create_fresh("logs/" + id + ".out");
  base::Fd err = base::create_fresh("logs/" + id + ".err");
  std::vector<std::string> argv;
  if (study.ranks > 1) argv = {"mpirun", "-n", std::to_string(study.ranks), "--oversubscribe"};
  argv.insert(argv.end(),
              {sipsim, "run", "scenarios/" + id + ".yaml", "-o", "runs/" + id + ".h5", "-q"});
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw base::FileError(std::string("cannot start a run: ") + std::strerror(errno));
  if (pid == 0) {
    // The child: only async-signal-safe calls until exec.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(143);  // the parent died before prctl
    ::dup2(out.get(), 1);
    ::dup2(err.get(), 2);
    ::execvp(cargv[0], cargv.data());
    const char* msg = "sipsim sweep: cannot start the run: ";
    (void)!::write(2, msg, std::strlen(msg));
    (void)!::write(2, std::strerror(errno), std::strlen(std::strerror(errno)));
    (void)!::write(2, "\n", 1);
    ::_exit(127);
  }
  return pid;
}

void record_exit(const std::string& id, int code) {
  base::Fd rc = base::create_fresh("logs/" + id + ".rc");
  base::write_all(rc.get(), std::to_string(code) + "\n", "logs/" + id + ".rc");
}

}  // namespace

std::string local_launch_problem(const Study& study) {
  if (study.ranks <= 1 || ::geteuid() != 0) return "";
  // Open MPI's mpirun runs as root only with both set to 1; else each run
  // would fail with its multi-line banner instead of running.
  const auto one = [](const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr && std::string(v) == "1";
  };
  if (one("OMPI_ALLOW_RUN_AS_ROOT") && one("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM")) return "";
  return fmt::format(
      "--local starts each run of {} ranks with mpirun, which Open MPI refuses to run as root: "
      "set OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 (or sweep as another "
      "user)",
      study.ranks);
}

int run_local(const Study& study, const fs::path& dir, unsigned jobs) {
  fs::current_path(dir);
  const std::string sipsim = sipsim_binary();
  const std::set<std::string> partial = partial_runs(".");
  std::vector<const StudyRun*> todo;
  for (const StudyRun& r : study.runs) {
    if (run_status(".", r.id, partial).state != RunState::kDone) todo.push_back(&r);
  }
  const std::size_t skipped = study.runs.size() - todo.size();
  std::cout << fmt::format("{}: {} runs, {} done already, {} to run, {} at a time\n", dir.string(),
                           study.runs.size(), skipped, todo.size(), jobs)
            << std::flush;
  const InterruptHandlers handlers;
  std::map<pid_t, Child> running;
  std::size_t next = 0, finished = 0, failed = 0;
  bool passed_on = false;
  while ((next < todo.size() && base::interrupt_signal() == 0) || !running.empty()) {
    while (next < todo.size() && running.size() < jobs && base::interrupt_signal() == 0) {
      const std::string& id = todo[next++]->id;
      // What an earlier attempt left: a partial file, a damaged run file.
      std::error_code ec;
      for (const auto& e : fs::directory_iterator("runs", ec)) {
        const std::string f = e.path().filename().string();
        if (f.starts_with(id + ".h5.") && f.ends_with(".partial")) fs::remove(e.path(), ec);
      }
      fs::remove("runs/" + id + ".h5", ec);
      fs::remove("logs/" + id + ".rc", ec);
      try {
        running[start_run(study, id, sipsim)] = {id, std::chrono::steady_clock::now()};
      } catch (const base::FileError& e) {
        std::cerr << "sipsim: error: run " << id << ": " << e.what() << "\n";
        ++failed;
        ++finished;
      }
    }
    if (const int signal = base::interrupt_signal(); signal != 0 && !passed_on) {
      for (const auto& [pid, child] : running) ::kill(pid, signal);
      passed_on = true;
    }
    int wstatus = 0;
    const pid_t pid = ::waitpid(-1, &wstatus, WNOHANG);
    if (pid <= 0) {
      if (pid < 0 && errno == ECHILD) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const Child child = it->second;
    running.erase(it);
    const int code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    try {
      record_exit(child.id, code);
    } catch (const base::FileError& e) {
      std::cerr << "sipsim: error: " << e.what() << "\n";
    }
    ++finished;
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - child.start).count();
    const std::string file = "runs/" + child.id + ".h5";
    if (code == 0 && base::file_kind(file) == base::FileKind::kRegular) {
      std::cout << fmt::format("[{}/{}] run {} done in {:.1f} s\n", finished, todo.size(), child.id,
                               s);
    } else {
      ++failed;
      std::cout << fmt::format("[{}/{}] run {} failed (exit {}): {}\n", finished, todo.size(),
                               child.id, code, failure_line("logs/" + child.id + ".err"));
    }
    std::cout << std::flush;
  }
  if (const int signal = base::interrupt_signal(); signal != 0) {
    std::cout << fmt::format("{}: stopped by {}: {} runs finished, {} not started\n", dir.string(),
                             base::signal_name(signal), finished, todo.size() - next);
    return exit_code_for_signal(signal);
  }
  std::cout << fmt::format("{}: {} done, {} failed\n", dir.string(), study.runs.size() - failed,
                           failed);
  return failed == 0 ? kExitOk : kExitRunFailed;
}

}  // namespace sipsim::app
