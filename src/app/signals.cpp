#include "sipsim/app/signals.hpp"

#include <csignal>
#include <ctime>

#include "sipsim/base/interrupt.hpp"

namespace sipsim::app {

namespace {

// When the first signal came (CLOCK_MONOTONIC seconds), 0 before it.
volatile std::sig_atomic_t g_first_s = 0;

// A repeat within kGraceS seconds of the first is the same request: a Slurm
// job step that reaches its time limit gets SIGTERM from slurmstepd and from
// srun at once, and the run must live to remove its partial file. A later
// one ends the process at once, as if no handler were set (async-signal-safe
// calls only).
constexpr long kGraceS = 2;

long now_s() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<long>(t.tv_sec);
}

extern "C" void on_interrupt(int signal) {
  if (base::interrupt_signal() == 0) {
    g_first_s = static_cast<std::sig_atomic_t>(now_s() + 1);  // + 1: never 0
    base::request_interrupt(signal);
    return;
  }
  if (now_s() + 1 - static_cast<long>(g_first_s) < kGraceS) return;
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

void install(int signal, struct sigaction& old) {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  // SA_RESTART: system calls (MPI's included) carry on; the flag is polled.
  action.sa_flags = SA_RESTART;
  sigaction(signal, &action, &old);
}

}  // namespace

InterruptHandlers::InterruptHandlers() {
  base::clear_interrupt();
  install(SIGINT, old_int_);
  install(SIGTERM, old_term_);
}

InterruptHandlers::~InterruptHandlers() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

}  // namespace sipsim::app
