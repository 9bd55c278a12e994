// 'tocha.readline': GNU readline for the REPL: line editing, Ctrl-R search, history kept in a
// file with a size limit, and Tab completion answered by a Lua function. It reads in readline's
// callback mode, waiting in select(), so that Ctrl-C can cancel the line being typed.
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/select.h>
#include <unistd.h>
#include <vector>

#include <readline/history.h>
#include <readline/readline.h>

#include "repl/host_modules.h"

extern "C" {
#include <lauxlib.h>
}

namespace tocha_repl {
namespace {

lua_State* g_L = nullptr;  // the state running readline(), for the completer
int g_completer = LUA_NOREF;
std::vector<std::string> g_matches;
char* g_line = nullptr;
bool g_done = false;
volatile sig_atomic_t g_resized = 0;

void on_line(char* line) {
  g_line = line;
  g_done = true;
  // Removing the handler here keeps readline from printing the next prompt before the result.
  rl_callback_handler_remove();
}

char* next_match(const char*, int state) {
  static size_t i;
  if (state == 0) i = 0;
  return i < g_matches.size() ? strdup(g_matches[i++].c_str()) : nullptr;
}

// Calls the Lua completer(word, line, start, stop); it returns candidates for the whole word, or
// nil to let readline complete file names. Inside a string readline's file names are used as is.
char** attempt_completion(const char* text, int start, int end) {
  if (rl_completion_quote_character || !g_L || g_completer == LUA_NOREF) return nullptr;
  lua_State* L = g_L;
  rl_attempted_completion_over = 1;  // no file names for Lua code, even when nothing matches
  g_matches.clear();
  int top = lua_gettop(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, g_completer);
  lua_pushstring(L, text);
  lua_pushstring(L, rl_line_buffer);
  lua_pushinteger(L, start);
  lua_pushinteger(L, end);
  // pcall: a Lua error must never unwind through readline's C frames.
  if (lua_pcall(L, 4, 1, 0) == 0) {
    if (lua_istable(L, -1)) {
      for (int i = 1;; ++i) {
        lua_rawgeti(L, -1, i);
        const char* s = lua_tostring(L, -1);
        if (!s) break;
        g_matches.emplace_back(s);
        lua_pop(L, 1);
      }
    } else if (lua_isnil(L, -1)) {
      rl_attempted_completion_over = 0;
    }
  }
  lua_settop(L, top);
  rl_completion_append_character = '\0';  // the completer adds '(' or '.' itself
  if (g_matches.empty()) return nullptr;
  return rl_completion_matches(text, next_match);
}

// Lists matches by their last component (`narrow`, not `x:narrow`), as file names are.
void display_matches(char** matches, int n, int) {
  std::vector<std::string> names;
  std::vector<char*> ptrs;
  int longest = 0;
  for (int i = 1; i <= n; ++i) {
    std::string s = matches[i];
    size_t cut = s.find_last_of(".:");
    if (cut != std::string::npos && cut + 1 < s.size()) s = s.substr(cut + 1);
    names.push_back(s);
    if (int(s.size()) > longest) longest = int(s.size());
  }
  ptrs.push_back(matches[0]);
  for (auto& s : names) ptrs.push_back(&s[0]);
  ptrs.push_back(nullptr);
  rl_display_match_list(ptrs.data(), n, longest);
  rl_forced_update_display();
}

void on_sigwinch(int) { g_resized = 1; }

bool g_initialized = false;
void initialize() {
  if (g_initialized) return;
  g_initialized = true;
  rl_readline_name = "tocha";
  rl_instream = stdin;
  rl_outstream = stdout;
  rl_catch_signals = 0;  // SIGINT is ours (sigint.cpp)
  rl_catch_sigwinch = 0;
  rl_attempted_completion_function = attempt_completion;
  rl_completion_display_matches_hook = display_matches;
  // '.' and ':' stay inside the word so that `x:na` and `nn.Spa` complete as a whole; '/' and
  // '~' too, because readline skips a break character that starts a quoted word ("/usr, "~/x).
  // The Lua completer finds the name at the end of the word itself.
  rl_basic_word_break_characters = const_cast<char*>(" \t\n\"\\'`@$><=;|&{}()[],+-*%^#");
  rl_completer_quote_characters = const_cast<char*>("\"'");
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigwinch;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // resizing the window must not break a command's blocking read
  sigaction(SIGWINCH, &sa, nullptr);
  using_history();
}

// readline(prompt): the line (without newline), nil at end of input (Ctrl-D), false when Ctrl-C
// cancelled it.
int l_readline(lua_State* L) {
  const char* prompt = luaL_checkstring(L, 1);
  initialize();
  g_L = L;
  g_done = false;
  g_line = nullptr;
  static bool first = true;
  if (!first) rl_reset_screen_size();  // the window may have changed while a command ran
  first = false;
  set_reading(true);  // before the prompt shows: a Ctrl-C from then on cancels the line
  rl_callback_handler_install(prompt, on_line);
  bool cancelled = false;
  while (!g_done) {
    fd_set fds;
    FD_ZERO(&fds);
    int fd = fileno(rl_instream);
    int wake = reading_interrupt_fd();
    FD_SET(fd, &fds);
    if (wake >= 0) FD_SET(wake, &fds);
    int r = select((fd > wake ? fd : wake) + 1, &fds, nullptr, nullptr, nullptr);
    if (r < 0 && errno != EINTR) break;
    if (take_reading_interrupt()) {
      cancelled = true;
      break;
    }
    if (g_resized) {
      g_resized = 0;
      rl_resize_terminal();
    }
    if (r > 0 && FD_ISSET(fd, &fds)) rl_callback_read_char();
  }
  set_reading(false);
  if (cancelled) {
    // Python's readline module does the same cleanup when Ctrl-C arrives in callback mode.
    // "^C" goes at the end of the line, before the cleanup: leaving the terminal mode ends
    // bracketed paste with a carriage return.
    rl_point = rl_end;
    rl_redisplay();
    std::fputs("^C\n", rl_outstream);
    std::fflush(rl_outstream);
    rl_free_line_state();
    rl_callback_sigcleanup();
    rl_cleanup_after_signal();
    rl_callback_handler_remove();
    lua_pushboolean(L, 0);
    return 1;
  }
  if (!g_done) rl_callback_handler_remove();  // select failed: treat as end of input
  if (!g_line) {
    lua_pushnil(L);
    return 1;
  }
  lua_pushstring(L, g_line);
  std::free(g_line);
  g_line = nullptr;
  return 1;
}

// set_completer(fn): fn(word, line, start, stop) -> candidates | nil (file names).
int l_set_completer(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  if (g_completer != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, g_completer);
  lua_pushvalue(L, 1);
  g_completer = luaL_ref(L, LUA_REGISTRYINDEX);
  return 0;
}

// history_load(path, max): keeps at most max entries; a missing file is an empty history.
int l_history_load(lua_State* L) {
  const char* path = luaL_checkstring(L, 1);
  int max = int(luaL_checkinteger(L, 2));
  initialize();
  stifle_history(max);
  lua_pushboolean(L, read_history(path) == 0);
  return 1;
}

// history_add(line[, path, max]): adds an entry, appends it to the file and trims the file.
int l_history_add(lua_State* L) {
  const char* line = luaL_checkstring(L, 1);
  const char* path = luaL_optstring(L, 2, nullptr);
  int max = int(luaL_optinteger(L, 3, 1000));
  initialize();
  add_history(line);
  bool ok = true;
  if (path) {
    // append_history does not create the file: write the whole history the first time.
    if (access(path, F_OK) != 0 || append_history(1, path) != 0) ok = write_history(path) == 0;
    if (ok) history_truncate_file(path, max);
  }
  lua_pushboolean(L, ok);
  return 1;
}

// history_list(): the entries in memory, oldest first (for tests and `history`).
int l_history_list(lua_State* L) {
  lua_newtable(L);
  HIST_ENTRY** list = history_list();
  for (int i = 0; list && list[i]; ++i) {
    lua_pushstring(L, list[i]->line);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

}  // namespace

int open_readline(lua_State* L) {
  static const luaL_Reg fns[] = {{"readline", l_readline},         {"set_completer", l_set_completer},
                                 {"history_load", l_history_load}, {"history_add", l_history_add},
                                 {"history_list", l_history_list}, {nullptr, nullptr}};
  lua_newtable(L);
  luaL_register(L, nullptr, fns);
  lua_pushstring(L, rl_library_version ? rl_library_version : "");
  lua_setfield(L, -2, "version");
  return 1;
}

}  // namespace tocha_repl
