#include "interrupt.h"

#include <signal.h>

#include <atomic>

namespace etkit::tools {

namespace {

std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "a signal handler needs a lock-free flag");

void on_interrupt(int) { g_interrupted.store(true, std::memory_order_relaxed); }

}  // namespace

void catch_interrupts() {
  static const bool installed = [] {
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;  // a write in progress completes
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    return true;
  }();
  (void)installed;
}

bool interrupt_requested() { return g_interrupted.load(std::memory_order_relaxed); }

}  // namespace etkit::tools
