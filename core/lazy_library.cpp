// LazyLibrary: dlopen on first use (Note [Lazy CUDA libraries], core/lazy_library.h).
#include "core/lazy_library.h"
#include <dlfcn.h>
#include "core/error.h"

namespace tocha {

void* LazyLibrary::open() {
  void* h = handle_.load(std::memory_order_acquire);
  if (h) return h;
  std::lock_guard<std::mutex> g(mutex_);
  h = handle_.load(std::memory_order_relaxed);
  if (h) return h;
  // RTLD_LOCAL: its symbols stay out of the global scope; never closed, as handles made from it
  // live until exit.
  h = dlopen(soname_, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = dlerror();
    throw Error(str_cat("[", title_, "] cannot load ", soname_, ": ", why ? why : "unknown loader error",
                        " (is the library installed and on LD_LIBRARY_PATH?)"));
  }
  handle_.store(h, std::memory_order_release);
  return h;
}

void* LazyLibrary::symbol(const char* name) {
  void* h = open();
  dlerror();
  void* s = dlsym(h, name);
  if (!s) {
    const char* why = dlerror();
    throw Error(str_cat("[", title_, "] ", soname_, " has no ", name, ": ", why ? why : "null symbol",
                        " (a version older than the one Tocha was built with?)"));
  }
  return s;
}

}  // namespace tocha
