// PointerMap (core/pointer_map.h), the caching allocator's live-block map: random inserts,
// replacements and removals against std::unordered_map, with keys chosen to collide (many share
// a home slot) so that probe runs wrap around the table and removals shift entries back.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <unordered_map>
#include "core/pointer_map.h"

using tocha::PointerMap;

namespace {
const void* key(uintptr_t k) { return reinterpret_cast<const void*>(k); }
}  // namespace

TEST_CASE("pointer map: empty map", "[pointer_map]") {
  PointerMap<int> m;
  CHECK(m.find(key(512)) == nullptr);
  CHECK(m.take(key(512)) == nullptr);
  CHECK(m.size() == 0);
}

TEST_CASE("pointer map: matches unordered_map under random use", "[pointer_map]") {
  std::mt19937_64 rng(7);
  int values[64];
  for (auto key_space : {uintptr_t(40), uintptr_t(5000)}) {
    PointerMap<int> m;
    std::unordered_map<const void*, int*> ref;
    for (int step = 0; step < 200000; ++step) {
      const void* k = key((rng() % key_space + 1) * 512);
      int* v = &values[rng() % 64];
      switch (rng() % 3) {
        case 0:
          m.set(k, v);
          ref[k] = v;
          break;
        case 1: {
          auto it = ref.find(k);
          int* expected = it == ref.end() ? nullptr : it->second;
          if (it != ref.end()) ref.erase(it);
          REQUIRE(m.take(k) == expected);
          break;
        }
        default: {
          auto it = ref.find(k);
          REQUIRE(m.find(k) == (it == ref.end() ? nullptr : it->second));
        }
      }
      REQUIRE(m.size() == ref.size());
    }
    size_t seen = 0;
    m.for_each([&](const void* k, int* v) {
      ++seen;
      REQUIRE(ref.at(k) == v);
    });
    CHECK(seen == ref.size());
  }
}

TEST_CASE("pointer map: survives growth and emptying", "[pointer_map]") {
  PointerMap<int> m;
  int v = 0;
  for (uintptr_t i = 1; i <= 10000; ++i) m.set(key(i * 4096), &v);
  CHECK(m.size() == 10000);
  for (uintptr_t i = 1; i <= 10000; ++i) REQUIRE(m.take(key(i * 4096)) == &v);
  CHECK(m.size() == 0);
  CHECK(m.find(key(4096)) == nullptr);
}
