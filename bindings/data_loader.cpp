// The data loader's worker threads and their Lua states. See data_loader.h.
#include "data_loader.h"
#include <chrono>
#include <csignal>
#include <omp.h>
#include <pthread.h>
#include "core/error.h"
#include "core/interrupt.h"
#include "core/rng.h"
#include "bindings/embed_state.h"

extern "C" {
#include <lauxlib.h>
#include <lualib.h>
}

// Note [Loader shutdown]: destroying a loader (its Lua object collected, loader:close(), the
// process ending) closes the queue and joins the threads. A worker notices between two samples
// (lua/data/worker.lua polls tocha_loader_worker_stopping) and between tasks, so shutdown waits
// for at most one sample's transform; the worker then closes its Lua state, which releases
// every tensor it still held. Ctrl-C reaches the main thread, which polls the interrupt flag while
// it waits for a batch; workers ignore the flag (their C calls would otherwise consume the one
// request), so the main thread always gets the error and aborts the epoch.

namespace tocha {

namespace {

struct WorkerContext {
  Loader* loader = nullptr;
  int id = 0;
  std::vector<Tensor>* out = nullptr;
};
thread_local WorkerContext* t_worker = nullptr;

// An error object with __tostring keeps its message (as with workers = 0). (A stack overflow in a
// worker's dataset still reads "error in error handling": LuaJIT then has no stack to call this.)
int traceback_handler(lua_State* L) {
  if (!lua_checkstack(L, 4)) return 1;
  const char* msg = lua_tolstring(L, 1, nullptr);
  if (!msg && luaL_callmeta(L, 1, "__tostring") && lua_isstring(L, -1)) msg = lua_tostring(L, -1);
  luaL_traceback(L, L, msg ? msg : "(error object is not a string)", 1);
  return 1;
}

// Calls the function below nargs arguments on the stack with a traceback handler. Returns the
// error message with the traceback, or an empty string on success (nresults values then replace
// the function and its arguments).
std::string pcall(lua_State* L, int nargs, int nresults) {
  int fn = lua_gettop(L) - nargs;
  lua_pushcclosure(L, traceback_handler, 0);
  lua_insert(L, fn);
  if (lua_pcall(L, nargs, nresults, fn) != 0) {
    const char* m = lua_tolstring(L, -1, nullptr);
    std::string err = m ? m : "(error object is not a string)";
    lua_settop(L, fn - 1);
    return err;
  }
  lua_remove(L, fn);
  return std::string();
}

}  // namespace

Loader* current_loader() { return t_worker ? t_worker->loader : nullptr; }
int current_worker_id() { return t_worker ? t_worker->id : 0; }
void worker_put(const Tensor& t) {
  TOCHA_CHECK(t_worker && t_worker->out, "DataLoader", "not inside a data-loader worker task");
  t_worker->out->push_back(t);
}

Loader::Loader(LoaderConfig config) : config_(std::move(config)), queue_(config_.capacity) {
  TOCHA_CHECK(config_.workers >= 1, "DataLoader", "expected at least one worker, got ", config_.workers);
  // Workers start with Ctrl-C and friends blocked (threads inherit the mask), so the signal goes
  // to the main thread, whose handler raises the interrupt flag.
  sigset_t mask, old;
  sigemptyset(&mask);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGQUIT);
  pthread_sigmask(SIG_BLOCK, &mask, &old);
  try {
    for (int i = 1; i <= config_.workers; ++i) threads_.emplace_back([this, i] { run(i); });
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    stopping_.store(true);
    queue_.close();
    for (std::thread& t : threads_) t.join();
    throw;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

Loader::~Loader() {
  stopping_.store(true);
  queue_.close();
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
}

// Note [Loader timeout]: PyTorch's DataLoader(timeout = s) raises when a batch takes longer than s
// seconds to come from the workers (a worker stuck on I/O or a deadlocked dataset would otherwise
// hang the training loop). The task stays queued: the caller resets the epoch.
void Loader::next(double timeout_s) {
  const auto start = std::chrono::steady_clock::now();
  while (!queue_.wait_next(&current_, 20)) {
    if (interrupt_pending()) interrupt_check();
    if (timeout_s > 0) {
      double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      TOCHA_CHECK(waited < timeout_s, "DataLoader", "timed out after ", timeout_s,
                  " s waiting for a batch from the workers (the timeout option)");
    }
  }
  if (!current_.ok) throw Error(current_.payload);
}

void Loader::run(int worker_id) {
  WorkerContext ctx;
  ctx.loader = this;
  ctx.id = worker_id;
  t_worker = &ctx;
  interrupt_ignore_on_this_thread(true);
  Generator generator{uint64_t(worker_id)};  // Note [Worker generators], core/rng.h
  set_thread_default_generator(&generator);
  omp_set_num_threads(1);  // the workers are the parallelism; no OpenMP team per worker

  lua_State* L = embed::new_state();  // the same allocator as every Tocha state (bindings/lua_alloc.cpp)
  if (L) luaL_openlibs(L);
  if (!L) {
    queue_.fail("[DataLoader] worker " + std::to_string(worker_id) + " could not create a Lua state");
    return;
  }
  auto fail_start = [&](const std::string& msg) {
    queue_.fail("[DataLoader] worker " + std::to_string(worker_id) + " could not start: " + msg);
  };
  lua_getfield(L, LUA_GLOBALSINDEX, "package");
  lua_pushstring(L, config_.path.c_str());
  lua_setfield(L, -2, "path");
  lua_pushstring(L, config_.cpath.c_str());
  lua_setfield(L, -2, "cpath");
  lua_settop(L, 0);

  // process = require('data.worker').start(spec, worker_id)
  lua_getfield(L, LUA_GLOBALSINDEX, "require");
  lua_pushstring(L, "data.worker");
  std::string err = pcall(L, 1, 1);
  if (err.empty() && lua_type(L, 1) != LUA_TTABLE) err = "require 'data.worker' did not return a table";
  if (err.empty()) {
    lua_getfield(L, 1, "start");
    lua_pushlstring(L, config_.spec.data(), config_.spec.size());
    lua_pushinteger(L, worker_id);
    err = pcall(L, 2, 1);
  }
  if (!err.empty() || lua_type(L, -1) != LUA_TFUNCTION) {
    fail_start(err.empty() ? "data.worker.start returned no function" : err);
  } else {
    int process = lua_gettop(L);
    int64_t id;
    std::string task;
    while (!stopping() && queue_.claim(&id, &task)) {
      TaskResult result;
      ctx.out = &result.tensors;
      lua_pushvalue(L, process);
      lua_pushlstring(L, task.data(), task.size());
      err = pcall(L, 1, 1);
      if (err.empty()) {
        size_t n = 0;
        const char* s = lua_tolstring(L, -1, &n);
        result.payload.assign(s ? s : "", n);
      } else {
        result.ok = false;
        result.tensors.clear();
        result.payload = "[DataLoader] worker " + std::to_string(worker_id) + ": " + err;
      }
      lua_settop(L, process);
      ctx.out = nullptr;
      queue_.complete(id, std::move(result));
    }
  }
  embed::close_state(L);
  set_thread_default_generator(nullptr);
  t_worker = nullptr;
}

}  // namespace tocha
