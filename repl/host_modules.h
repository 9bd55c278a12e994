// Lua C modules that the `tocha` host registers in package.preload: GNU readline for the REPL's
// line editing ('tocha.readline', absent when built without readline) and Ctrl-C handling
// ('tocha.sigint'). The REPL itself is Lua (lua/tocha/repl.lua).
#pragma once

extern "C" {
#include <lua.h>
}

namespace tocha_repl {

int open_readline(lua_State* L);
int open_sigint(lua_State* L);

// Set by the readline module around its wait for input: a SIGINT then cancels the line being
// typed instead of interrupting a command. take_reading_interrupt() reports (and clears) one;
// reading_interrupt_fd() becomes readable when one arrives (-1 before install()).
void set_reading(bool reading);
bool take_reading_interrupt();
int reading_interrupt_fd();

}  // namespace tocha_repl
