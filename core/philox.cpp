// Device generator state: seeds and offsets per CUDA device. See philox.h.
#include "core/philox.h"
#include <map>
#include <memory>
#include "core/rng.h"

namespace tocha {

PhiloxGenerator::PhiloxGenerator() : seed_(entropy_seed()) {}

void PhiloxGenerator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> g(mutex_);
  seed_ = seed;
  offset_ = 0;
}

uint64_t PhiloxGenerator::initial_seed() {
  std::lock_guard<std::mutex> g(mutex_);
  return seed_;
}

void PhiloxGenerator::reserve(uint64_t blocks, uint64_t* seed, uint64_t* offset) {
  std::lock_guard<std::mutex> g(mutex_);
  *seed = seed_;
  *offset = offset_;
  offset_ += blocks;
}

uint64_t PhiloxGenerator::offset() {
  std::lock_guard<std::mutex> g(mutex_);
  return offset_;
}

void PhiloxGenerator::get_state(uint64_t* seed, uint64_t* offset) {
  std::lock_guard<std::mutex> g(mutex_);
  *seed = seed_;
  *offset = offset_;
}

void PhiloxGenerator::set_state(uint64_t seed, uint64_t offset) {
  std::lock_guard<std::mutex> g(mutex_);
  seed_ = seed;
  offset_ = offset;
}

namespace {
std::mutex g_mutex;
std::map<int, std::unique_ptr<PhiloxGenerator>>& generators() {
  static auto* m = new std::map<int, std::unique_ptr<PhiloxGenerator>>();
  return *m;
}
bool g_have_seed_all = false;
uint64_t g_seed_all = 0;
}  // namespace

PhiloxGenerator& cuda_generator(int index) {
  std::lock_guard<std::mutex> g(g_mutex);
  auto& slot = generators()[index];
  if (!slot) {
    slot = std::make_unique<PhiloxGenerator>();
    if (g_have_seed_all) slot->manual_seed(g_seed_all);
  }
  return *slot;
}

void cuda_manual_seed_all(uint64_t seed) {
  std::lock_guard<std::mutex> g(g_mutex);
  g_have_seed_all = true;
  g_seed_all = seed;
  for (auto& kv : generators()) kv.second->manual_seed(seed);
}

}  // namespace tocha
