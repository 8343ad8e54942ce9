#pragma once
// A request to stop the run, set from a signal handler (SIGINT, SIGTERM) and
// polled by the engines and between set-up phases. Only the flag lives here;
// app/ installs the handlers, so a library user is never surprised by them.
namespace sipsim::base {

// Async-signal-safe: records `signal` (the first one wins).
void request_interrupt(int signal) noexcept;
// The signal that asked the run to stop, or 0.
int interrupt_signal() noexcept;
// Forgets a request (tests).
void clear_interrupt() noexcept;
// "SIGINT", "SIGTERM", else "a signal".
const char* signal_name(int signal) noexcept;

}  // namespace sipsim::base
