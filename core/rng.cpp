// MT19937 and Generator: seeding, draws, and the validated state snapshot. See rng.h.
#include "core/rng.h"
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include "core/error.h"

namespace tocha {

// ---- MT19937 (reference algorithm: init_genrand, init_by_array, genrand_int32) --------------

void MT19937::seed_u32(uint32_t seed) {
  state_[0] = seed;
  for (int i = 1; i < kN; ++i)
    state_[i] = 1812433253u * (state_[i - 1] ^ (state_[i - 1] >> 30)) + uint32_t(i);
  next_ = kN;
}

void MT19937::seed_array(const uint32_t* key, int n) {
  seed_u32(19650218u);
  int i = 1, j = 0;
  for (int k = kN > n ? kN : n; k; --k) {
    state_[i] = (state_[i] ^ ((state_[i - 1] ^ (state_[i - 1] >> 30)) * 1664525u)) + key[j] + uint32_t(j);
    ++i, ++j;
    if (i >= kN) { state_[0] = state_[kN - 1]; i = 1; }
    if (j >= n) j = 0;
  }
  for (int k = kN - 1; k; --k) {
    state_[i] = (state_[i] ^ ((state_[i - 1] ^ (state_[i - 1] >> 30)) * 1566083941u)) - uint32_t(i);
    ++i;
    if (i >= kN) { state_[0] = state_[kN - 1]; i = 1; }
  }
  state_[0] = 0x80000000u;  // the reference's guarantee of a non-zero state
  next_ = kN;
}

void MT19937::twist() {
  constexpr uint32_t kMatrixA = 0x9908b0dfu, kUpper = 0x80000000u, kLower = 0x7fffffffu;
  auto mix = [](uint32_t u, uint32_t v) {
    uint32_t y = (u & kUpper) | (v & kLower);
    return (y >> 1) ^ ((v & 1u) ? kMatrixA : 0u);
  };
  // Both loops read ahead of what they write (or 227 words behind), so they vectorize.
#pragma omp simd
  for (int k = 0; k < kN - kM; ++k) state_[k] = state_[k + kM] ^ mix(state_[k], state_[k + 1]);
#pragma omp simd
  for (int k = kN - kM; k < kN - 1; ++k) state_[k] = state_[k + kM - kN] ^ mix(state_[k], state_[k + 1]);
  state_[kN - 1] = state_[kM - 1] ^ mix(state_[kN - 1], state_[0]);
  next_ = 0;
}

void MT19937::fill(uint32_t* out, int64_t n) {
  while (n > 0) {
    if (next_ >= kN) twist();
    int64_t k = kN - next_;
    if (k > n) k = n;
    const uint32_t* s = state_ + next_;
    // out never aliases the state, so the tempering vectorizes.
#pragma omp simd
    for (int64_t i = 0; i < k; ++i) out[i] = temper(s[i]);
    out += k;
    n -= k;
    next_ += int(k);
  }
}

void MT19937::restore(const uint32_t* words, int position) {
  std::memcpy(state_, words, sizeof(state_));
  next_ = position;
}

// ---- seeds --------------------------------------------------------------------------------

uint64_t entropy_seed() {
  uint64_t s = 0;
  std::ifstream f("/dev/urandom", std::ios::binary);
  if (!f.read(reinterpret_cast<char*>(&s), sizeof(s))) {
    // No urandom (sandboxes): the clock, mixed so that nearby times give unrelated seeds.
    s = uint64_t(std::chrono::high_resolution_clock::now().time_since_epoch().count());
    s ^= s >> 33;
    s *= 0xff51afd7ed558ccdull;
    s ^= s >> 33;
  }
  return s & ((uint64_t(1) << 53) - 1);  // exact in a Lua number
}

Generator::Generator() { manual_seed_locked(entropy_seed()); }
Generator::Generator(uint64_t seed) { manual_seed_locked(seed); }

// Seeds below 2^32 use init_genrand (the stream of std::mt19937, Torch7 and PyTorch for that
// seed); wider seeds use init_by_array so that their high bits matter too.
void Generator::manual_seed_locked(uint64_t n) {
  if (n <= 0xffffffffull) {
    engine_.seed_u32(uint32_t(n));
  } else {
    uint32_t key[2] = {uint32_t(n), uint32_t(n >> 32)};
    engine_.seed_array(key, 2);
  }
  initial_seed_ = n;
  has_normal_ = false;
  normal_ = 0;
}

void Generator::manual_seed(uint64_t n) {
  std::lock_guard<std::mutex> g(mutex_);
  manual_seed_locked(n);
}

uint64_t Generator::seed() {
  uint64_t s = entropy_seed();
  manual_seed(s);
  return s;
}

uint64_t Generator::initial_seed() {
  std::lock_guard<std::mutex> g(mutex_);
  return initial_seed_;
}

// ---- draws ---------------------------------------------------------------------------------

uint32_t Generator::next_u32() {
  std::lock_guard<std::mutex> g(mutex_);
  return engine_.next_u32();
}

double Generator::next_uniform() { return double(next_u32()) * (1.0 / 4294967296.0); }

double Generator::next_normal_locked() {
  double z;
  if (take_normal_locked(&z)) return z;
  double x = double(engine_.next_u32()) * (1.0 / 4294967296.0);
  double y = double(engine_.next_u32()) * (1.0 / 4294967296.0);
  double rho = std::sqrt(-2.0 * std::log(1.0 - y));
  put_normal_locked(rho * std::sin(2.0 * M_PI * x));
  return rho * std::cos(2.0 * M_PI * x);
}

double Generator::next_normal() {
  std::lock_guard<std::mutex> g(mutex_);
  return next_normal_locked();
}

bool Generator::take_normal_locked(double* z) {
  if (!has_normal_) return false;
  has_normal_ = false;
  *z = normal_;
  return true;
}

void Generator::fill_u32(uint32_t* out, int64_t n) {
  std::lock_guard<std::mutex> g(mutex_);
  engine_.fill(out, n);
}

// ---- state ---------------------------------------------------------------------------------

static_assert(sizeof(GeneratorState) == offsetof(GeneratorState, checksum) + sizeof(uint64_t) &&
                  offsetof(GeneratorState, normal) % alignof(double) == 0,
              "GeneratorState must have no padding: its bytes are the snapshot (Note [Generator state])");

namespace {
constexpr char kMagic[8] = {'T', 'O', 'C', 'H', 'A', 'R', 'N', 'G'};
constexpr uint32_t kStateVersion = 1;

uint64_t fnv1a(const void* p, size_t n) {
  const unsigned char* b = static_cast<const unsigned char*>(p);
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}
uint64_t state_checksum(const GeneratorState& s) { return fnv1a(&s, offsetof(GeneratorState, checksum)); }
}  // namespace

GeneratorState Generator::get_state() {
  GeneratorState s;
  std::memset(&s, 0, sizeof(s));  // padding bytes too, so the checksum is deterministic
  std::lock_guard<std::mutex> g(mutex_);
  std::memcpy(s.magic, kMagic, sizeof(kMagic));
  s.version = kStateVersion;
  s.position = uint32_t(engine_.position());
  s.initial_seed = initial_seed_;
  std::memcpy(s.words, engine_.state(), sizeof(s.words));
  s.has_normal = has_normal_ ? 1 : 0;
  s.normal = has_normal_ ? normal_ : 0.0;
  s.checksum = state_checksum(s);
  return s;
}

void Generator::set_state(const void* bytes, size_t nbytes, const char* op) {
  TOCHA_CHECK(nbytes == sizeof(GeneratorState), op, "RNG state must have ", sizeof(GeneratorState),
              " bytes (a tensor from getRNGState), got ", nbytes);
  GeneratorState s;
  std::memcpy(&s, bytes, sizeof(s));
  TOCHA_CHECK(std::memcmp(s.magic, kMagic, sizeof(kMagic)) == 0, op,
              "invalid RNG state: not a Tocha generator state (bad magic bytes)");
  TOCHA_CHECK(s.version == kStateVersion, op, "invalid RNG state: unsupported version ", s.version);
  TOCHA_CHECK(s.checksum == state_checksum(s), op, "invalid RNG state: checksum mismatch (the state is corrupt)");
  TOCHA_CHECK(s.position <= uint32_t(MT19937::kN), op, "invalid RNG state: position ", s.position,
              " is past ", MT19937::kN);
  TOCHA_CHECK(s.has_normal <= 1 && s.reserved == 0, op, "invalid RNG state: bad flags");
  TOCHA_CHECK(!s.has_normal || std::isfinite(s.normal), op, "invalid RNG state: cached normal is not finite");
  bool nonzero = false;
  for (uint32_t w : s.words) nonzero = nonzero || w != 0;
  TOCHA_CHECK(nonzero, op, "invalid RNG state: all Mersenne Twister words are zero");
  std::lock_guard<std::mutex> g(mutex_);
  engine_.restore(s.words, int(s.position));
  initial_seed_ = s.initial_seed;
  has_normal_ = s.has_normal != 0;
  normal_ = s.normal;
}

void Generator::copy_from(Generator& other) {
  if (&other == this) return;
  GeneratorState s = other.get_state();
  set_state(&s, sizeof(s), "Generator");
}

namespace {
thread_local Generator* t_thread_default = nullptr;
}

void set_thread_default_generator(Generator* g) { t_thread_default = g; }

Generator& default_generator() {
  if (t_thread_default) return *t_thread_default;
  static Generator* g = new Generator();  // never destroyed: worker threads may outlive main
  return *g;
}

}  // namespace tocha
