// LazyLibrary (core/lazy_library.h, Note [Lazy CUDA libraries]): a library opens on the first
// symbol asked of it, a found symbol is the library's own function, and a missing library or
// symbol is an error that names both and can be retried.
#include <catch2/catch.hpp>
#include <zlib.h>
#include <string>
#include "core/error.h"
#include "core/lazy_library.h"

using tocha::LazyLibrary;

TEST_CASE("lazy library: opens on the first symbol and finds the library's function", "[lazy_library]") {
  LazyLibrary z("libz.so.1", "zlib");
  CHECK_FALSE(z.loaded());
  void* fn = z.symbol("zlibVersion");
  CHECK(z.loaded());
  // libtocha links zlib, so the loader hands back the same object and the same function.
  CHECK(fn == reinterpret_cast<void*>(&zlibVersion));
  CHECK(std::string(reinterpret_cast<const char* (*)()>(fn)()) == zlibVersion());
}

TEST_CASE("lazy library: a missing library or symbol is an error naming it", "[lazy_library]") {
  LazyLibrary none("libtocha_no_such_library.so.7", "NoSuchLib");
  for (int attempt = 0; attempt < 2; ++attempt) {  // the failure is not cached
    try {
      none.symbol("anything");
      FAIL("expected an error");
    } catch (const tocha::Error& e) {
      std::string msg = e.what();
      CHECK(msg.find("[NoSuchLib] cannot load libtocha_no_such_library.so.7") != std::string::npos);
      CHECK(msg.find("LD_LIBRARY_PATH") != std::string::npos);
    }
    CHECK_FALSE(none.loaded());
  }
  LazyLibrary z("libz.so.1", "zlib");
  try {
    z.symbol("tocha_not_in_zlib");
    FAIL("expected an error");
  } catch (const tocha::Error& e) {
    CHECK(std::string(e.what()).find("[zlib] libz.so.1 has no tocha_not_in_zlib") != std::string::npos);
  }
  CHECK(z.symbol("zlibVersion") != nullptr);
}
