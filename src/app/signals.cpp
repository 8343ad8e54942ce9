#include "sipsim/app/signals.hpp"

#include "sipsim/base/interrupt.hpp"

namespace sipsim::app {

namespace {

extern "C" void on_interrupt(int signal) {
  base::request_interrupt(signal);
}

void install(int signal, struct sigaction& old) {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  // SA_RESTART: system calls (MPI's included) carry on; the flag is polled.
  // SA_RESETHAND: a second signal ends the process as if no handler were set.
  action.sa_flags = SA_RESTART | SA_RESETHAND;
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
