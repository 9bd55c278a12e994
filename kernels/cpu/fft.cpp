// The CPU FFT kernel (core/ops/fft.h): FFTW (opened with dlopen on the first transform, Note
// [FFTW opened on first use]) runs batches of contiguous rows from cached guru64 plans, split over
// the OpenMP pool; 2-d and 3-d transforms are passes of rows (Note [FFT passes one dim at a time]).
#if __has_include(<fftw3.h>)
#include <fftw3.h>
#define TOCHA_HAVE_FFTW3_H 1
#endif
#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <new>
#include <mutex>
#include <tuple>
#include "core/error.h"
#include "core/kernel_registry.h"
#include "core/lazy_library.h"
#include "core/ops/fft.h"
#include "kernels/cpu/parallel.h"

namespace tocha {
namespace cpu {
namespace {

#ifdef TOCHA_HAVE_FFTW3_H
// Note [FFTW opened on first use]
// libtocha does not link FFTW: like cuBLAS and cuSOLVER (Note [Lazy CUDA libraries],
// core/lazy_library.h), libfftw3f.so.3 (f32) and libfftw3.so.3 (f64) are opened with dlopen by the
// first CPU transform, so start-up never pays for them. FFTW is GPL-2+: keeping it off libtocha's
// link line also keeps a host that embeds Tocha and never calls torch.fft free of it (one that
// does call it loads FFTW into its process, and GPL terms then apply to that use). Only the header
// is needed at build time (Debian's libfftw3-dev); a missing library is an error at the first
// transform naming the package to install. Function types come from fftw3.h (decltype), so a
// mismatch with the library's API is a compile error.
//
// Planning: FFTW's planner is not thread-safe, so planning and plan destruction hold one mutex;
// executing a plan is. Plans are made with FFTW_ESTIMATE (no trial runs that would overwrite the
// arrays) and run with the new-array functions (fftw_execute_dft...), so one cached plan serves
// every pair of buffers of its shape and alignment. The layout is always contiguous (Note [FFT
// layout for the kernels], core/ops/fft.cpp), so the key is (kind, sign, sizes, batch, aligned).
// Alignment: FFTW's SIMD codelets need SIMD-aligned arrays, and FFTW_UNALIGNED (plans that serve
// any address) turns them off: 2x slower on 4096-point rows. Tocha's allocations are aligned, so
// the plan for arrays FFTW calls aligned (fftw_alignment_of 0, every chunk's too) is a SIMD one;
// an offset view gets an FFTW_UNALIGNED plan. A new-array execute requires exactly that.

#define TOCHA_FFTW_API(P, T, SONAME, PACKAGE, PRECISION)                                            \
  struct Api_##T {                                                                                  \
    using complex = P##_complex;                                                                    \
    using plan = P##_plan;                                                                          \
    using iodim = P##_iodim64;                                                                      \
    decltype(&P##_plan_guru64_dft) plan_dft = nullptr;                                              \
    decltype(&P##_plan_guru64_dft_r2c) plan_r2c = nullptr;                                          \
    decltype(&P##_plan_guru64_dft_c2r) plan_c2r = nullptr;                                          \
    decltype(&P##_execute_dft) exec_dft = nullptr;                                                  \
    decltype(&P##_execute_dft_r2c) exec_r2c = nullptr;                                              \
    decltype(&P##_execute_dft_c2r) exec_c2r = nullptr;                                              \
    decltype(&P##_destroy_plan) destroy = nullptr;                                                  \
    decltype(&P##_alignment_of) alignment_of = nullptr;                                             \
    static constexpr const char* package = PACKAGE;                                                 \
    static constexpr const char* precision = PRECISION;                                             \
    template <class F> static void load(LazyLibrary& lib, F*& f, const char* name) {                \
      f = reinterpret_cast<F*>(lib.symbol(name));                                                   \
    }                                                                                               \
    explicit Api_##T(LazyLibrary& lib) {                                                            \
      load(lib, plan_dft, #P "_plan_guru64_dft");                                                   \
      load(lib, plan_r2c, #P "_plan_guru64_dft_r2c");                                               \
      load(lib, plan_c2r, #P "_plan_guru64_dft_c2r");                                               \
      load(lib, exec_dft, #P "_execute_dft");                                                       \
      load(lib, exec_r2c, #P "_execute_dft_r2c");                                                   \
      load(lib, exec_c2r, #P "_execute_dft_c2r");                                                   \
      load(lib, destroy, #P "_destroy_plan");                                                       \
      load(lib, alignment_of, #P "_alignment_of");                                                  \
    }                                                                                               \
  };
TOCHA_FFTW_API(fftwf, float, "libfftw3f.so.3", "libfftw3-single3", "single")
TOCHA_FFTW_API(fftw, double, "libfftw3.so.3", "libfftw3-double3", "double")
#undef TOCHA_FFTW_API

LazyLibrary fftwf_library("libfftw3f.so.3", "FFTW");
LazyLibrary fftw_library("libfftw3.so.3", "FFTW");

template <class T> struct ApiOf;
template <> struct ApiOf<float> { using type = Api_float; static LazyLibrary& lib() { return fftwf_library; } };
template <> struct ApiOf<double> { using type = Api_double; static LazyLibrary& lib() { return fftw_library; } };

// The symbols of T's library, resolved once (a failed load is retried by the next call).
template <class T> const typename ApiOf<T>::type& api() {
  using A = typename ApiOf<T>::type;
  static const A a = [] {
    try {
      return A(ApiOf<T>::lib());
    } catch (const Error& e) {
      throw Error(str_cat("[fft] torch.fft on the CPU needs FFTW (", A::precision, " precision): ", e.what(),
                          ". Install it with: apt-get install ", A::package));
    }
  }();
  return a;
}

// Never destroyed (nor the caches): plans must not outlive the mutex at exit.
std::recursive_mutex& planner_mutex() {
  static auto* m = new std::recursive_mutex;
  return *m;
}

// A plan destroyed under the planner's mutex when the cache and the last executing call drop it.
template <class T> struct PlanHolder {
  typename ApiOf<T>::type::plan plan;
  ~PlanHolder() {
    std::lock_guard<std::recursive_mutex> g(planner_mutex());
    api<T>().destroy(plan);
  }
};

using PlanKey = std::tuple<int, int, int, int64_t, int64_t, int64_t, int64_t, bool>;
constexpr size_t kMaxCachedPlans = 256;

struct Geometry {
  int64_t in_dist, out_dist;  // elements (complex or real) between consecutive transforms
  int64_t in_stride[3], out_stride[3];
};

Geometry geometry(const FftArgs& a) {
  int64_t n_in[3], n_out[3];
  for (int i = 0; i < a.rank; ++i) n_in[i] = n_out[i] = a.n[i];
  const int last = a.rank - 1;
  if (a.kind == FftKind::r2c) n_out[last] = a.n[last] / 2 + 1;
  if (a.kind == FftKind::c2r) n_in[last] = a.n[last] / 2 + 1;
  Geometry g;
  int64_t si = 1, so = 1;
  for (int i = last; i >= 0; --i) {
    g.in_stride[i] = si;
    g.out_stride[i] = so;
    si *= n_in[i];
    so *= n_out[i];
  }
  g.in_dist = si;
  g.out_dist = so;
  return g;
}

template <class T>
std::shared_ptr<PlanHolder<T>> plan_for(const FftArgs& a, int64_t howmany, bool aligned, void* in, void* out) {
  using A = typename ApiOf<T>::type;
  const A& f = api<T>();
  static auto& cache = *new std::map<PlanKey, std::shared_ptr<PlanHolder<T>>>;
  PlanKey key{int(a.kind), a.forward ? 1 : 0, a.rank, a.n[0], a.rank > 1 ? a.n[1] : 0, a.rank > 2 ? a.n[2] : 0,
              howmany, aligned};
  std::lock_guard<std::recursive_mutex> g(planner_mutex());
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  Geometry geo = geometry(a);
  typename A::iodim dims[3], batch{howmany, geo.in_dist, geo.out_dist};
  for (int i = 0; i < a.rank; ++i) dims[i] = {a.n[i], geo.in_stride[i], geo.out_stride[i]};
  const unsigned flags = FFTW_ESTIMATE | (aligned ? 0u : unsigned(FFTW_UNALIGNED));
  using C = typename A::complex;
  typename A::plan p = nullptr;
  if (a.kind == FftKind::c2c)
    p = f.plan_dft(a.rank, dims, 1, &batch, static_cast<C*>(in), static_cast<C*>(out),
                   a.forward ? FFTW_FORWARD : FFTW_BACKWARD, flags);
  else if (a.kind == FftKind::r2c)
    p = f.plan_r2c(a.rank, dims, 1, &batch, static_cast<T*>(in), static_cast<C*>(out), flags);
  else
    p = f.plan_c2r(a.rank, dims, 1, &batch, static_cast<C*>(in), static_cast<T*>(out), flags | FFTW_DESTROY_INPUT);
  TOCHA_CHECK(p, "fft", "FFTW could not plan a transform of rank ", a.rank, " over ", howmany, " signals");
  auto holder = std::make_shared<PlanHolder<T>>();
  holder->plan = p;
  if (cache.size() >= kMaxCachedPlans) cache.clear();  // running calls keep their own references
  cache.emplace(key, holder);
  return holder;
}

template <class T> void run(const FftArgs& a, const PlanHolder<T>& h, void* in, void* out) {
  using A = typename ApiOf<T>::type;
  using C = typename A::complex;
  const A& f = api<T>();
  if (a.kind == FftKind::c2c) f.exec_dft(h.plan, static_cast<C*>(in), static_cast<C*>(out));
  else if (a.kind == FftKind::r2c) f.exec_r2c(h.plan, static_cast<T*>(in), static_cast<C*>(out));
  else f.exec_c2r(h.plan, static_cast<C*>(in), static_cast<T*>(out));
}

// Bytes per transform element of the input and output arrays.
template <class T> void element_sizes(FftKind k, size_t* in, size_t* out) {
  *in = k == FftKind::r2c ? sizeof(T) : 2 * sizeof(T);
  *out = k == FftKind::c2r ? sizeof(T) : 2 * sizeof(T);
}

// Whether FFTW calls both arrays SIMD-aligned (see the Note).
template <class T> bool aligned_pair(char* in, char* out) {
  const auto& f = api<T>();
  return f.alignment_of(reinterpret_cast<T*>(in)) == 0 && f.alignment_of(reinterpret_cast<T*>(out)) == 0;
}

// a.batch transforms of rank a.rank, the batch split over the threads.
template <class T> void batched(const FftArgs& a, void* in, void* out) {
  Geometry geo = geometry(a);
  size_t in_size, out_size;
  element_sizes<T>(a.kind, &in_size, &out_size);
  char* ip = static_cast<char*>(in);
  char* op = static_cast<char*>(out);
  // Split the batch into one chunk per thread when there is enough work (a plan per chunk size:
  // the full chunks and the last one).
  const int64_t work = a.batch * (geo.in_dist > geo.out_dist ? geo.in_dist : geo.out_dist);
  int threads = (work >= 65536 && !omp_in_parallel()) ? omp_get_max_threads() : 1;
  if (threads > a.batch) threads = int(a.batch);
  if (threads <= 1) {
    auto p = plan_for<T>(a, a.batch, aligned_pair<T>(ip, op), in, out);
    run<T>(a, *p, in, out);
    return;
  }
  const int64_t chunk = (a.batch + threads - 1) / threads;
  const int64_t chunks = (a.batch + chunk - 1) / chunk, last = a.batch - (chunks - 1) * chunk;
  const size_t in_step = size_t(chunk * geo.in_dist) * in_size, out_step = size_t(chunk * geo.out_dist) * out_size;
  // every chunk starts aligned when the first does and the steps keep it (checked on the second)
  const bool aligned = aligned_pair<T>(ip, op) && aligned_pair<T>(ip + in_step, op + out_step);
  auto full = plan_for<T>(a, chunk, aligned, in, out);
  auto tail = last == chunk ? full : plan_for<T>(a, last, aligned, in, out);
#pragma omp parallel for num_threads(int(chunks)) schedule(static, 1)
  for (int64_t c = 0; c < chunks; ++c)
    run<T>(a, c == chunks - 1 ? *tail : *full, ip + size_t(c) * in_step, op + size_t(c) * out_step);
}

// Note [FFT passes one dim at a time]: FFTW_ESTIMATE's plans for 2-d and 3-d transforms are slow
// (a 512 x 512 c2c: 3.6 ms against 0.3 ms for its 512 contiguous rows; FFTW_MEASURE finds a fast
// one but plans for 0.2 s per shape), because the pass along a leading dim reads columns. So
// rank >= 2 runs as rank-1 passes: the last dim as contiguous rows, each other dim on blocks of
// columns copied to a contiguous scratch, transformed as rows and copied back (pocketfft's way).
// r2c does its real rows first and the complex passes on the half spectrum; c2r the complex
// passes first (in place on its own copy of the input) and its real rows last, the order that
// the gradient formulas (Note [FFT gradients]) assume when the input is not Hermitian.

// The transform along the middle dim of `outer` row-major (n x inner) complex matrices at data,
// in place.
template <class T> void column_pass(bool forward, int64_t n, int64_t outer, int64_t inner, T* data) {
  constexpr int64_t kBlock = 256 / int64_t(2 * sizeof(T));  // columns per block: 256 bytes of a row
  const int64_t blocks = (inner + kBlock - 1) / kBlock, tasks = outer * blocks;
  int threads = (outer * inner * n >= 65536 && !omp_in_parallel()) ? omp_get_max_threads() : 1;
  if (threads > tasks) threads = int(tasks);
  const size_t per_thread = size_t(2 * kBlock * n) * 2;  // two scratch blocks of reals
  std::unique_ptr<T, decltype(&std::free)> scratch(
      static_cast<T*>(std::aligned_alloc(64, (per_thread * size_t(threads) * sizeof(T) + 63) / 64 * 64)), &std::free);
  if (!scratch) throw std::bad_alloc();
  FftArgs row;
  row.kind = FftKind::c2c;
  row.forward = forward;
  row.n[0] = n;
  T* s0 = scratch.get();
  auto full = plan_for<T>(row, kBlock, true, s0, s0 + per_thread / 2);
  const int64_t rest = inner % kBlock;
  auto tail = rest == 0 ? full : plan_for<T>(row, rest, true, s0, s0 + per_thread / 2);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t t = 0; t < tasks; ++t) {
    T* a = scratch.get() + size_t(omp_get_thread_num()) * per_thread;
    T* b = a + per_thread / 2;
    T* m = data + 2 * (t / blocks) * n * inner;
    const int64_t j0 = (t % blocks) * kBlock, w = std::min(kBlock, inner - j0);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t c = 0; c < w; ++c) {
        a[2 * (c * n + i)] = m[2 * (i * inner + j0 + c)];
        a[2 * (c * n + i) + 1] = m[2 * (i * inner + j0 + c) + 1];
      }
    run<T>(row, w == kBlock ? *full : *tail, a, b);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t c = 0; c < w; ++c) {
        m[2 * (i * inner + j0 + c)] = b[2 * (c * n + i)];
        m[2 * (i * inner + j0 + c) + 1] = b[2 * (c * n + i) + 1];
      }
  }
}

template <class T> void fft_kernel(const FftArgs& a, void* in, void* out) {
  if (a.rank == 1) return batched<T>(a, in, out);
  const int last = a.rank - 1;
  int64_t inner[3];  // complex entries after each dim, with the half last dim for r2c/c2r
  inner[last] = 1;
  for (int d = last - 1; d >= 0; --d)
    inner[d] = inner[d + 1] * (d + 1 == last && a.kind != FftKind::c2c ? a.n[last] / 2 + 1 : a.n[d + 1]);
  int64_t outer[3] = {a.batch, 1, 1};
  for (int d = 1; d <= last; ++d) outer[d] = outer[d - 1] * a.n[d - 1];
  FftArgs rows = a;
  rows.rank = 1;
  rows.n[0] = a.n[last];
  rows.batch = outer[last];
  if (a.kind == FftKind::c2r) {
    for (int d = 0; d < last; ++d) column_pass<T>(false, a.n[d], outer[d], inner[d], static_cast<T*>(in));
    return batched<T>(rows, in, out);
  }
  batched<T>(rows, in, out);
  for (int d = last - 1; d >= 0; --d)
    column_pass<T>(a.kind == FftKind::r2c || a.forward, a.n[d], outer[d], inner[d], static_cast<T*>(out));
}

#else
// Built where fftw3.h was missing: the transforms say how to get them.
template <class T> void fft_kernel(const FftArgs&, void*, void*) {
  fail("fft", "this Tocha was built without FFTW's header (fftw3.h): install libfftw3-dev and rebuild");
}
#endif

TOCHA_REGISTER_KERNEL(fftC2c, cpu, DType::f32, static_cast<FftKernel>(&fft_kernel<float>));
TOCHA_REGISTER_KERNEL(fftC2c, cpu, DType::f64, static_cast<FftKernel>(&fft_kernel<double>));

}  // namespace
}  // namespace cpu
}  // namespace tocha
