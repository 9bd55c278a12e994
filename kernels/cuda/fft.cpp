// The CUDA FFT kernel (core/ops/fft.h): cuFFT plans over contiguous batches (opened on first use,
// kernels/cuda/cufft_lazy.cpp), cached per device and shape, run on Tocha's stream with their work
// area from the caching allocator.
#define CUFFTAPI  // hidden, as defined in cufft_lazy.cpp
#include <cufft.h>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include "core/error.h"
#include "core/kernel_registry.h"
#include "core/ops/fft.h"
#include "core/storage.h"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {
namespace {

// Note [cuFFT plans]
// A plan is made once per (device, dtype, kind, sign, sizes, batch) with cufftMakePlanMany64 on
// the default contiguous layout (Note [FFT layout for the kernels], core/ops/fft.cpp) and auto
// allocation off: each call takes a work area of the plan's size from the caching allocator, so
// cuFFT holds no memory of its own between calls and the area is freed in stream order like any
// tensor. cufftSetStream binds the plan to the device's one stream (Note [One stream per device])
// at each call. A plan is not safe to run from two threads at once (its work area is per plan),
// so a call holds the plan's own mutex from setting its work area to queuing the transform. C2R
// overwrites its input: the front-end hands it a copy.

const char* result_name(cufftResult r) {
  switch (r) {
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "unknown cufftResult";
  }
}

void check(cufftResult r, const char* what) {
  if (r == CUFFT_SUCCESS) return;
  if (r == CUFFT_ALLOC_FAILED) throw OutOfMemory(str_cat("[fft] cuFFT could not allocate memory (", what, ")"));
  fail("fft", "cuFFT error: ", result_name(r), " (status ", int(r), " from ", what, ")");
}

// The first cuFFT call opens the library: say what to install when that fails.
template <class F> cufftResult first_call(F&& f, const char* what) {
  try {
    return f();
  } catch (const OutOfMemory&) {
    throw;
  } catch (const Error& e) {
    fail("fft", "torch.fft on CUDA needs cuFFT (", what, "): ", e.what(),
         ". It ships with the CUDA toolkit (NVIDIA's apt package libcufft-12-<minor>, or cuda-libraries-12-<minor>)");
  }
}

struct Plan {
  cufftHandle handle = 0;
  bool created = false;  // cufftDestroy only then: it could not even load a missing library
  size_t work_bytes = 0;
  std::mutex mutex;
  ~Plan() {
    if (created) cufftDestroy(handle);
  }
};

using PlanKey = std::tuple<int, int, int, int, int64_t, int64_t, int64_t, int64_t, int>;
constexpr size_t kMaxCachedPlans = 64;

cufftType type_of(FftKind k, bool dbl) {
  if (k == FftKind::c2c) return dbl ? CUFFT_Z2Z : CUFFT_C2C;
  if (k == FftKind::r2c) return dbl ? CUFFT_D2Z : CUFFT_R2C;
  return dbl ? CUFFT_Z2D : CUFFT_C2R;
}

std::shared_ptr<Plan> plan_for(const FftArgs& a, bool dbl, int device) {
  static std::mutex m;
  static auto& cache = *new std::map<PlanKey, std::shared_ptr<Plan>>;  // never destroyed: exit order
  PlanKey key{device, dbl ? 1 : 0, int(a.kind), a.rank, a.n[0], a.rank > 1 ? a.n[1] : 0, a.rank > 2 ? a.n[2] : 0,
              a.batch, a.forward ? 1 : 0};
  std::lock_guard<std::mutex> g(m);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  DeviceGuard dg(device);
  auto p = std::make_shared<Plan>();
  check(first_call([&] { return cufftCreate(&p->handle); }, "cufftCreate"), "cufftCreate");
  p->created = true;
  check(cufftSetAutoAllocation(p->handle, 0), "cufftSetAutoAllocation");
  long long n[3] = {a.n[0], a.n[1], a.n[2]};
  check(cufftMakePlanMany64(p->handle, a.rank, n, nullptr, 1, 0, nullptr, 1, 0, type_of(a.kind, dbl), a.batch,
                            &p->work_bytes),
        "cufftMakePlanMany64");
  if (cache.size() >= kMaxCachedPlans) cache.clear();  // running calls keep their own references
  cache.emplace(key, p);
  return p;
}

template <class T> void fft_cuda(const FftArgs& a, void* in, void* out) {
  constexpr bool dbl = sizeof(T) == 8;
  const int device = device_of(in);
  LaunchScope scope(device);
  std::shared_ptr<Plan> p = plan_for(a, dbl, device);
  std::lock_guard<std::mutex> g(p->mutex);
  Ref<Storage> work;
  if (p->work_bytes > 0) {
    work = Storage::allocate(p->work_bytes, Device{DeviceType::cuda, device});
    check(cufftSetWorkArea(p->handle, work->data()), "cufftSetWorkArea");
  }
  check(cufftSetStream(p->handle, scope.stream), "cufftSetStream");
  const int dir = a.forward ? CUFFT_FORWARD : CUFFT_INVERSE;
  if constexpr (dbl) {
    auto* ci = static_cast<cufftDoubleComplex*>(in);
    auto* co = static_cast<cufftDoubleComplex*>(out);
    if (a.kind == FftKind::c2c) check(cufftExecZ2Z(p->handle, ci, co, dir), "cufftExecZ2Z");
    else if (a.kind == FftKind::r2c) check(cufftExecD2Z(p->handle, static_cast<double*>(in), co), "cufftExecD2Z");
    else check(cufftExecZ2D(p->handle, ci, static_cast<double*>(out)), "cufftExecZ2D");
  } else {
    auto* ci = static_cast<cufftComplex*>(in);
    auto* co = static_cast<cufftComplex*>(out);
    if (a.kind == FftKind::c2c) check(cufftExecC2C(p->handle, ci, co, dir), "cufftExecC2C");
    else if (a.kind == FftKind::r2c) check(cufftExecR2C(p->handle, static_cast<float*>(in), co), "cufftExecR2C");
    else check(cufftExecC2R(p->handle, ci, static_cast<float*>(out)), "cufftExecC2R");
  }
  // `work` goes back to the caching allocator now: the allocator reuses it only for work queued
  // after this transform on the same stream (Note [One stream per device]).
}

TOCHA_REGISTER_KERNEL(fftC2c, cuda, DType::f32, static_cast<FftKernel>(&fft_cuda<float>));
TOCHA_REGISTER_KERNEL(fftC2c, cuda, DType::f64, static_cast<FftKernel>(&fft_cuda<double>));

}  // namespace
}  // namespace cuda
}  // namespace tocha
