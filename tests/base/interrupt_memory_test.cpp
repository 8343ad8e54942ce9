// The interrupt flag and the available-memory probe.
#include <gtest/gtest.h>
#include <sys/sysinfo.h>

#include <csignal>
#include <cstring>

#include "sipsim/base/interrupt.hpp"
#include "sipsim/base/memory.hpp"

namespace sipsim::base {
namespace {

TEST(Interrupt, TheFirstSignalIsKeptUntilCleared) {
  clear_interrupt();
  EXPECT_EQ(interrupt_signal(), 0);
  request_interrupt(SIGTERM);
  request_interrupt(SIGINT);
  EXPECT_EQ(interrupt_signal(), SIGTERM);
  clear_interrupt();
  EXPECT_EQ(interrupt_signal(), 0);
}

TEST(Interrupt, ARealSignalSetsTheFlagThroughAHandler) {
  clear_interrupt();
  struct sigaction action {
  }, old{};
  action.sa_handler = [](int signal) { request_interrupt(signal); };
  sigemptyset(&action.sa_mask);
  ASSERT_EQ(sigaction(SIGINT, &action, &old), 0);
  std::raise(SIGINT);
  sigaction(SIGINT, &old, nullptr);
  EXPECT_EQ(interrupt_signal(), SIGINT);
  clear_interrupt();
}

TEST(Interrupt, SignalNames) {
  EXPECT_STREQ(signal_name(SIGINT), "SIGINT");
  EXPECT_STREQ(signal_name(SIGTERM), "SIGTERM");
  EXPECT_STREQ(signal_name(SIGUSR1), "a signal");
}

TEST(Memory, AvailableIsKnownAndAtMostTheMachine) {
  const auto available = available_memory();
  ASSERT_TRUE(available.has_value());
  EXPECT_GT(*available, 0u);
  struct sysinfo info {};
  ASSERT_EQ(sysinfo(&info), 0);
  EXPECT_LE(*available, static_cast<std::uint64_t>(info.totalram) * info.mem_unit);
}

}  // namespace
}  // namespace sipsim::base
