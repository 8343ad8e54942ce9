#pragma once
// SIGINT and SIGTERM during `sipsim run`: the handler only records the signal
// (base::request_interrupt); the engines and the set-up phases poll it and
// stop cleanly, removing the partial file (docs/user-guide.md, "Signals").
#include <csignal>

namespace sipsim::app {

// Installs the handlers for its lifetime and restores the previous ones.
// Another signal within 2 s of the first is the same request (Slurm sends
// a job step at its time limit SIGTERM twice at once); one after that gets
// the default action (the process ends at once, as after a crash: only its
// partial file is left).
class InterruptHandlers {
 public:
  InterruptHandlers();
  ~InterruptHandlers();
  InterruptHandlers(const InterruptHandlers&) = delete;
  InterruptHandlers& operator=(const InterruptHandlers&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// 128 + signal, the shell's code for a process ended by `signal`: 130 for
// SIGINT, 143 for SIGTERM.
inline constexpr int exit_code_for_signal(int signal) {
  return 128 + signal;
}

}  // namespace sipsim::app
