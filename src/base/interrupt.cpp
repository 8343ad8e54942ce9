#include "sipsim/base/interrupt.hpp"

#include <csignal>

namespace sipsim::base {
namespace {

// volatile sig_atomic_t is the one type a handler may write and the program
// read without a race that the C and C++ standards leave undefined.
volatile std::sig_atomic_t g_signal = 0;

}  // namespace

void request_interrupt(int signal) noexcept {
  if (g_signal == 0) g_signal = signal;
}

int interrupt_signal() noexcept {
  return g_signal;
}

void clear_interrupt() noexcept {
  g_signal = 0;
}

const char* signal_name(int signal) noexcept {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "a signal";
  }
}

}  // namespace sipsim::base
