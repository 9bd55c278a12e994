// Autocast state (core/autocast.h): thread-local, per device type, and the casts the front-ends
// apply (checked through the CPU device type, the same path CUDA tensors take).
#include <catch2/catch.hpp>
#include <thread>
#include "core/autocast.h"
#include "core/ops/linalg.h"
#include "core/ops/tensor_ops.h"

using namespace tocha;

namespace {
// Sets the state for a scope and restores the previous one.
struct Scoped {
  autocast::State prev;
  explicit Scoped(uint32_t mask, DType cpu_dtype = DType::bf16) {
    autocast::State s;
    s.mask = mask;
    s.dtype[int(DeviceType::cpu)] = cpu_dtype;
    prev = autocast::exchange(s);
  }
  ~Scoped() { autocast::exchange(prev); }
};
constexpr uint32_t kCpu = 1u << int(DeviceType::cpu), kCuda = 1u << int(DeviceType::cuda);
}  // namespace

TEST_CASE("autocast state is thread-local", "[autocast]") {
  REQUIRE_FALSE(autocast::active());
  Scoped on(kCpu);
  REQUIRE(autocast::active());
  bool other = true;
  std::thread([&] { other = autocast::active(); }).join();
  REQUIRE_FALSE(other);
}

TEST_CASE("autocast casts only eligible tensors of enabled device types", "[autocast]") {
  Tensor a = ones({2, 3}, DType::f32), b = ones({3, 4}, DType::f32);
  {
    Scoped cuda_only(kCuda);
    REQUIRE(mm(a, b).dtype() == DType::f32);  // CPU tensors untouched by autocast('cuda')
    REQUIRE_FALSE(autocast::eligible(a));
  }
  {
    Scoped cpu(kCpu, DType::f16);
    REQUIRE(mm(a, b).dtype() == DType::f16);
    REQUIRE(autocast::to_f32(ones({2}, DType::bf16)).dtype() == DType::f32);
    REQUIRE(autocast::to_lowp(ones({2}, DType::f64)).dtype() == DType::f64);
    REQUIRE(autocast::to_lowp(ones({2}, DType::i64)).dtype() == DType::i64);
    Tensor out = empty({0}, DType::f32);
    mm_out(out, a, b);
    REQUIRE(out.dtype() == DType::f32);
    REQUIRE(item_at(out, 0) == 3.0);
  }
  REQUIRE(mm(a, b).dtype() == DType::f32);
}
