// Ctrl-C in the REPL ('tocha.sigint'): while a line is typed it cancels the line (the readline
// module asks); while a command runs it raises the interrupt flag and arms a Lua count hook.
// Note [REPL interrupts] below says which loops stop and why a second Ctrl-C may end the process.
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include "core/interrupt.h"
#include "repl/host_modules.h"

extern "C" {
#include <lauxlib.h>
}

// Note [REPL interrupts]: a command is stopped by whichever comes first of
//  - the C ABI guard (bindings/capi.h), at the next tensor op, even in JIT-compiled loops;
//  - a count hook (lua.c's method), at the next interpreted Lua instruction.
// Both consume the one request. A loop that LuaJIT compiled and that calls no tensor op (say
// `while true do n = n + 1 end`), or one very long kernel, sees neither: compiled traces never
// run hooks. A second Ctrl-C while the first request is still pending therefore ends the
// process (status 130) rather than leaving the user stuck; history is saved line by line, so
// nothing typed is lost.
namespace tocha_repl {
namespace {

volatile sig_atomic_t g_reading = 0;
volatile sig_atomic_t g_reading_interrupted = 0;
lua_State* g_L = nullptr;
// Self-pipe: the handler writes a byte so that the readline module's select() wakes up even
// when the signal lands while it is busy between two select() calls.
int g_pipe[2] = {-1, -1};

void stop_hook(lua_State* L, lua_Debug*) {
  lua_sethook(L, nullptr, 0, 0);
  // The guard may have consumed the request already (its error is on its way): then stay quiet,
  // or this hook would fire inside the error handler.
  if (!tocha::interrupt_pending()) return;
  tocha::interrupt_clear();
  luaL_where(L, 0);  // level 0: a C hook adds no frame of its own in LuaJIT (as in luajit.c)
  lua_pushfstring(L, "%s[interrupt] interrupted", lua_tostring(L, -1));
  lua_error(L);
}

void on_sigint(int) {
  if (g_reading) {
    g_reading_interrupted = 1;
    if (g_pipe[1] >= 0) {
      ssize_t ignored = write(g_pipe[1], "i", 1);
      (void)ignored;
    }
    return;
  }
  if (tocha::interrupt_pending()) {
    static const char msg[] =
        "\ntocha: Ctrl-C again while the command ignored the first one (a compiled Lua loop or a "
        "long kernel); exiting\n";
    ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    _exit(130);
  }
  tocha::interrupt_request();
  if (g_L) lua_sethook(g_L, stop_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

// Drops a request that arrived after the command's last op, and our hook if it is still armed.
void reset(lua_State* L) {
  tocha::interrupt_clear();
  if (lua_gethook(L) == stop_hook) lua_sethook(L, nullptr, 0, 0);
}

// install(): Ctrl-C is handled by the REPL from now on.
int l_install(lua_State* L) {
  g_L = L;
  if (g_pipe[0] < 0 && pipe(g_pipe) == 0) {
    for (int fd : g_pipe) {
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
      fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
  }
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking read in a command returns instead of hanging on
  sigaction(SIGINT, &sa, nullptr);
  return 0;
}

// reset(): called before and after each command.
int l_reset(lua_State* L) {
  reset(L);
  return 0;
}

// interrupt([hook]): what a first Ctrl-C does during a command, without a signal (for tests);
// interrupt(false) raises only the flag, as an embedding host would.
int l_interrupt(lua_State* L) {
  tocha::interrupt_request();
  if (lua_isnone(L, 1) || lua_toboolean(L, 1)) {
    lua_sethook(L, stop_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
  }
  return 0;
}

}  // namespace

void set_reading(bool reading) {
  if (reading) g_reading_interrupted = 0;
  g_reading = reading ? 1 : 0;
}

bool take_reading_interrupt() {
  char buf[64];
  while (g_pipe[0] >= 0 && read(g_pipe[0], buf, sizeof buf) > 0) {
  }
  bool was = g_reading_interrupted != 0;
  g_reading_interrupted = 0;
  return was;
}

int reading_interrupt_fd() { return g_pipe[0]; }

int open_sigint(lua_State* L) {
  static const luaL_Reg fns[] = {
      {"install", l_install}, {"reset", l_reset}, {"interrupt", l_interrupt}, {nullptr, nullptr}};
  lua_newtable(L);
  luaL_register(L, nullptr, fns);
  return 1;
}

}  // namespace tocha_repl
