// Random number generation: the MT19937 engine (Torch7's and PyTorch's CPU generator, same
// output as std::mt19937 for a 32-bit seed) and Generator, which adds the seed, the cached
// Box-Muller normal, a mutex and the state snapshot of torch.getRNGState/setRNGState.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace tocha {

// The Mersenne Twister MT19937 (Matsumoto & Nishimura, 1998). Not thread-safe; Generator guards it.
class MT19937 {
 public:
  static constexpr int kN = 624;
  static constexpr int kM = 397;

  explicit MT19937(uint32_t seed = 5489u) { seed_u32(seed); }
  // The reference init_genrand: equal to std::mt19937(seed).
  void seed_u32(uint32_t seed);
  // The reference init_by_array (for seeds wider than 32 bits).
  void seed_array(const uint32_t* key, int n);
  // The next tempered 32-bit output.
  uint32_t next_u32() {
    if (next_ >= kN) twist();
    return temper(state_[next_++]);
  }
  // Fills out[0..n) with the next n outputs (same values as n calls of next_u32, faster).
  void fill(uint32_t* out, int64_t n);

  // The 624 state words and the index of the next one to temper (kN: twist first).
  const uint32_t* state() const { return state_; }
  int position() const { return next_; }
  // Restores a state word array and position (0..kN; kN means "twist before the next draw").
  void restore(const uint32_t* words, int position);

 private:
  static uint32_t temper(uint32_t y) {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
  }
  void twist();

  uint32_t state_[kN];
  int next_ = kN;
};

// Note [Generator state]
// torch.getRNGState returns a ByteTensor holding a GeneratorState: a magic tag and version, the
// seed, the 624 MT words and position, the cached second Box-Muller normal, and an FNV-1a
// checksum of everything before it. setRNGState checks all of it, so a truncated or edited
// tensor is a clear error instead of a silently degenerate generator. Native byte order.
struct GeneratorState {
  char magic[8];  // "TOCHARNG"
  uint32_t version;
  uint32_t position;  // 0..624
  uint64_t initial_seed;
  uint32_t words[MT19937::kN];
  uint32_t has_normal;  // 0 or 1
  uint32_t reserved;    // 0
  double normal;        // cached standard normal (valid when has_normal)
  uint64_t checksum;
};

// A seeded MT19937 with Torch7's generator API. Every public method is thread-safe (one mutex
// per generator; data-loader workers share them). Code that needs several draws to be atomic
// takes lock() and uses the *_locked primitives.
class Generator {
 public:
  // Seeded from the OS entropy source (Torch7's THGenerator_new).
  Generator();
  explicit Generator(uint64_t seed);
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  // Seeds with n and clears the cached normal (Torch7's manualSeed).
  void manual_seed(uint64_t n);
  // Seeds from /dev/urandom (falling back on the clock) and returns the seed, < 2^53 so that it
  // survives a Lua number.
  uint64_t seed();
  // The last seed given to manual_seed or seed (or restored with a state).
  uint64_t initial_seed();

  // Thread-safe draws, one 32-bit word per uniform like Torch7 (Note [Random streams]).
  uint32_t next_u32();
  // Torch7's uniform on [0, 1): a word divided by 2^32.
  double next_uniform();
  // Standard normal by Box-Muller; the second value of each pair is cached (Torch7's order:
  // first r*cos(theta), then r*sin(theta)).
  double next_normal();
  // n raw 32-bit words, drawn atomically.
  void fill_u32(uint32_t* out, int64_t n);

  // Holds the generator for a sequence of *_locked draws that must be atomic.
  std::unique_lock<std::mutex> lock() { return std::unique_lock<std::mutex>(mutex_); }
  // Primitives for callers holding lock().
  uint32_t next_u32_locked() { return engine_.next_u32(); }
  void fill_u32_locked(uint32_t* out, int64_t n) { engine_.fill(out, n); }
  double next_normal_locked();
  // Takes the cached normal if there is one (tensor fills start with it, as in Torch7).
  bool take_normal_locked(double* z);
  void put_normal_locked(double z) { has_normal_ = true; normal_ = z; }

  // Snapshot and restore (Note [Generator state]); restore validates and throws on bad input.
  GeneratorState get_state();
  void set_state(const void* bytes, size_t nbytes, const char* op);
  // Copies the whole state of other into this generator.
  void copy_from(Generator& other);

  // Reference counting for the C ABI (torch.Generator objects, worker threads): adds a reference.
  void retain() { refs_.fetch_add(1, std::memory_order_relaxed); }
  // Returns true when this was the last reference.
  bool release_ref() { return refs_.fetch_sub(1, std::memory_order_acq_rel) == 1; }

 private:
  void manual_seed_locked(uint64_t n);

  std::mutex mutex_;
  MT19937 engine_;
  uint64_t initial_seed_ = 0;
  bool has_normal_ = false;
  double normal_ = 0;
  std::atomic<int> refs_{1};
};

// The generator used when none is given: the process-wide one (seeded from the OS at first use,
// as Torch7 seeds at start-up; torch.manualSeed makes runs reproducible), or the calling
// thread's own one when set_thread_default_generator gave it one.
Generator& default_generator();
// Note [Worker generators]: a data-loader worker thread draws from its own generator (seeded per
// batch), so random transforms do not depend on how threads interleave and never disturb the
// main thread's stream. nullptr restores the process-wide generator. The caller keeps g alive.
void set_thread_default_generator(Generator* g);

// A fresh seed from the OS entropy source (or the clock), < 2^53.
uint64_t entropy_seed();

}  // namespace tocha
