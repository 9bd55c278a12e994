// The interrupt flag (interrupt.h).
//
// Note [Interrupts]: Ctrl-C in the REPL calls interrupt_request() from the signal handler. Every
// C ABI entry point checks the flag before it runs (bindings/capi.h), so a Lua loop that calls
// tensor ops stops at its next op even when LuaJIT compiled it (compiled traces never run Lua
// hooks). A long kernel may call interrupt_check() between chunks of work to stop sooner. The
// check consumes the request, so one Ctrl-C raises exactly one "[interrupt] interrupted" error.
#include "core/interrupt.h"
#include "core/error.h"

namespace tocha {

std::atomic<bool> interrupt_flag{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the flag is written from a signal handler");

void interrupt_request() noexcept { interrupt_flag.store(true, std::memory_order_relaxed); }

void interrupt_clear() noexcept { interrupt_flag.store(false, std::memory_order_relaxed); }

namespace {
thread_local bool t_ignore = false;
}

void interrupt_ignore_on_this_thread(bool ignore) { t_ignore = ignore; }

void interrupt_check() {
  if (t_ignore) return;
  if (interrupt_pending() && interrupt_flag.exchange(false)) throw Error("[interrupt] interrupted");
}

}  // namespace tocha
