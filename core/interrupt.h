// The interrupt flag: raised asynchronously (the REPL's SIGINT handler, an embedding host's own
// signal handling) and polled by the C ABI guard and by long kernels, so that a running command
// stops at its next op instead of only when it returns to Lua. Note [Interrupts] in interrupt.cpp.
#pragma once
#include <atomic>

#define TOCHA_INTERRUPT_EXPORT __attribute__((visibility("default")))

namespace tocha {

// The flag itself; read it through interrupt_pending() (kept inline so kernels can poll it in loops).
TOCHA_INTERRUPT_EXPORT extern std::atomic<bool> interrupt_flag;

// Asks the running command to stop. Async-signal-safe (a lock-free atomic store).
TOCHA_INTERRUPT_EXPORT void interrupt_request() noexcept;
// Drops a pending request (the REPL does it when it returns to its prompt).
TOCHA_INTERRUPT_EXPORT void interrupt_clear() noexcept;
// Whether a request is pending.
inline bool interrupt_pending() noexcept { return interrupt_flag.load(std::memory_order_relaxed); }
// Throws Error("[interrupt] interrupted") once per request (clearing it) when one is pending,
// unless the calling thread ignores interrupts.
TOCHA_INTERRUPT_EXPORT void interrupt_check();
// Makes interrupt_check() a no-op on the calling thread: data-loader workers leave the request
// to the main thread, which waits for them (Note [Loader shutdown], bindings/data_loader.cpp).
void interrupt_ignore_on_this_thread(bool ignore);

}  // namespace tocha
