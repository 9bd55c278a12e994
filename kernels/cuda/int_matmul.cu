// CUDA kernels of the matmul family (mm, addmm, bmm, baddbmm, addbmm, ger, addr, mv, addmv, dot)
// for the integer dtypes i64, i32 and u8, which cuBLAS has no GEMM for: one tiled GEMM kernel for
// the matrix products and the outer products, one row-reduction kernel for the matrix-vector
// products and dot. Semantics are those of the CPU loops (kernels/cpu/blas_gemm.cpp, blas_gemv.cpp).
//
// Note [Integer matmul on CUDA]:
// - Arithmetic. The CPU kernels accumulate in the element type and wrap modulo 2^bits (Note
//   [Integer wraparound]). Products and sums modulo 2^bits do not depend on the order of the
//   additions or on a wider accumulator, so these kernels compute in scalar::wrap_t<T> (unsigned,
//   at least int's width: defined wrapping, no signed overflow) and convert to T once when
//   storing: the results equal the CPU's bit for bit, whatever the tiling, split or batch order.
//   alpha and beta are converted on the host as the CPU's multiplier<T> does (through int64_t);
//   beta == 0 (the double the front-end passed) never reads C, as on the CPU.
// - GEMM (int_gemm_kernel): 256 threads compute a 64 x 64 tile of C, 4 x 4 elements each (rows
//   ty + 16i, columns tx + 16j, so a warp's stores are consecutive columns), over 16-deep slices
//   of k staged in shared memory. Operands keep the strides the front-end passes (transposed views
//   included); each tile load walks the operand's contiguous dimension with consecutive threads.
//   A column-major C is computed as C^T = B^T A^T so that stores stay coalesced. Blocks stride over
//   (result, tile) pairs: bmm/baddbmm results are batch items; addbmm (c_bs == 0) is one result
//   whose block sums every batch item's product before the one epilogue. ger/addr are the same
//   kernel with k = 1 (x an m x 1 matrix, y a 1 x n one).
// - Matrix-vector (int_gemv_kernel): each output row is the reduction of one row of A against x;
//   a block folds 32, 8 or 1 rows (a column-major A: 32 consecutive rows per step; long rows: the
//   whole block on one row), and rows too few to fill the GPU are split over blockIdx.y with the
//   partial sums merged by int_gemv_finish_kernel (exact: see Arithmetic). dot is the 1 x n case.
// Indices are 64-bit throughout; sizes are at most 2^31 - 1 per dimension (check_blas_size) but
// offsets and element counts may pass 2^31.
#include <algorithm>
#include <cstdint>
#include "core/kernel_registry.h"
#include "core/ops/linalg_kernels.h"
#include "core/storage.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"
#include "kernels/scalar_ops.h"

namespace tocha {
namespace cuda {
namespace {

using scalar::wrap_t;

constexpr int kTileM = 64, kTileN = 64, kTileK = 16;
constexpr int kGemmThreads = 256;  // 16 x 16, each thread 4 x 4 results
static_assert(kTileM * kTileK == 4 * kGemmThreads && kTileK * kTileN == 4 * kGemmThreads, "4 loads per thread");
// Blocks of a grid-stride launch: far more than any GPU holds at once.
constexpr int64_t kMaxGemmBlocks = int64_t(1) << 20;

// A multiplier as the CPU's multiplier<T> makes it (kernels/cpu/blas_util.h), in the wrapping type.
template <class T> wrap_t<T> int_multiplier(double v) { return wrap_t<T>(int64_t(v)); }


template <class U> struct IntGemm {
  GemmArgs g;
  U alpha, beta;
  bool beta_zero;
  bool a_k_contig;  // A's tile loads walk k (a_cs == 1) rather than m
  bool b_n_contig;  // B's tile loads walk n (b_cs == 1) rather than k
  int64_t tiles_n, tiles, total;  // tiles per result, (result, tile) pairs
};

template <class T> __global__ void __launch_bounds__(kGemmThreads) int_gemm_kernel(IntGemm<wrap_t<T>> p) {
  using U = wrap_t<T>;
  // +1: the k-walking loads store down a column; the padding spreads them over the banks.
  __shared__ U As[kTileK][kTileM + 1];
  __shared__ U Bs[kTileK][kTileN + 1];
  const GemmArgs& g = p.g;
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const bool sum = g.c_bs == 0;
  for (int64_t w = blockIdx.x; w < p.total; w += gridDim.x) {
    const int64_t r = w / p.tiles, t = w % p.tiles;
    const int64_t row0 = (t / p.tiles_n) * kTileM, col0 = (t % p.tiles_n) * kTileN;
    U acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[i][j] = 0;
    const int64_t first = sum ? 0 : r, last = sum ? g.batch : r + 1;
    for (int64_t bi = first; bi < last; ++bi) {
      const T* a = static_cast<const T*>(g.a) + bi * g.a_bs;
      const T* b = static_cast<const T*>(g.b) + bi * g.b_bs;
      for (int64_t k0 = 0; k0 < g.k; k0 += kTileK) {
#pragma unroll
        for (int l = 0; l < 4; ++l) {
          const int e = tid + l * kGemmThreads;
          const int kk = p.a_k_contig ? e % kTileK : e / kTileM;
          const int i = p.a_k_contig ? e / kTileK : e % kTileM;
          const int64_t gi = row0 + i, gk = k0 + kk;
          As[kk][i] = gi < g.m && gk < g.k ? U(a[gi * g.a_rs + gk * g.a_cs]) : U(0);
        }
#pragma unroll
        for (int l = 0; l < 4; ++l) {
          const int e = tid + l * kGemmThreads;
          const int kk = p.b_n_contig ? e / kTileN : e % kTileK;
          const int j = p.b_n_contig ? e % kTileN : e / kTileK;
          const int64_t gk = k0 + kk, gj = col0 + j;
          Bs[kk][j] = gk < g.k && gj < g.n ? U(b[gk * g.b_rs + gj * g.b_cs]) : U(0);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kTileK; ++kk) {
          U av[4], bv[4];
#pragma unroll
          for (int i = 0; i < 4; ++i) av[i] = As[kk][ty + 16 * i];
#pragma unroll
          for (int j = 0; j < 4; ++j) bv[j] = Bs[kk][tx + 16 * j];
#pragma unroll
          for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
        }
        __syncthreads();  // the tiles are rewritten by the next slice
      }
    }
    T* c = static_cast<T*>(g.c) + r * g.c_bs;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int64_t gi = row0 + ty + 16 * i;
      if (gi >= g.m) continue;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int64_t gj = col0 + tx + 16 * j;
        if (gj >= g.n) continue;
        T& v = c[gi * g.c_rs + gj * g.c_cs];
        const U prod = p.alpha * acc[i][j];
        v = T(p.beta_zero ? prod : U(p.beta * U(v) + prod));
      }
    }
  }
}

template <class T> void int_gemm_launch(const GemmArgs& in, const char* op) {
  if (in.m == 0 || in.n == 0) return;
  const int64_t results = in.c_bs == 0 ? 1 : in.batch;  // addbmm: one C, even for an empty batch
  if (results == 0) return;
  IntGemm<wrap_t<T>> p;
  p.g = in.c_rs == 1 && in.c_cs != 1 ? transposed(in) : in;  // keep C's stores along its contiguous dim
  p.alpha = int_multiplier<T>(in.alpha);
  p.beta = int_multiplier<T>(in.beta);
  p.beta_zero = in.beta == 0;
  p.a_k_contig = p.g.a_cs == 1 && p.g.k > 1;
  p.b_n_contig = p.g.b_cs == 1 && p.g.n > 1;
  p.tiles_n = (p.g.n + kTileN - 1) / kTileN;
  p.tiles = (p.g.m + kTileM - 1) / kTileM * p.tiles_n;
  p.total = p.tiles * results;
  LaunchScope scope(device_of(in.c));
  const unsigned grid = unsigned(std::min(p.total, kMaxGemmBlocks));
  int_gemm_kernel<T><<<grid, kGemmThreads, 0, scope.stream>>>(p);
  check_launch(op);
}

template <class T> void int_gemm_cuda(const GemmArgs& g) { int_gemm_launch<T>(g, "mm"); }

// A = beta*A + alpha * x y^T as a product with k = 1: x is m x 1, y is 1 x n.
template <class T> void int_ger_cuda(const GerArgs& v) {
  GemmArgs g;
  g.batch = 1;
  g.m = v.m;
  g.n = v.n;
  g.k = 1;
  g.a = v.x;
  g.a_bs = 0;
  g.a_rs = v.incx;
  g.a_cs = 0;  // one column: any stride; 0 makes the tile loads walk m
  g.b = v.y;
  g.b_bs = 0;
  g.b_rs = 0;
  g.b_cs = v.incy;
  g.c = v.a;
  g.c_bs = 0;
  g.c_rs = v.a_rs;
  g.c_cs = v.a_cs;
  g.alpha = v.alpha;
  g.beta = v.beta;
  int_gemm_launch<T>(g, "ger");
}

// ---- matrix-vector products and dot ----------------------------------------------------------

template <class U> struct IntGemv {
  int64_t m, n;
  const void* a;
  int64_t a_rs, a_cs;
  const void* x;
  int64_t incx;
  void* y;
  int64_t incy;
  U alpha, beta;
  bool beta_zero;
  bool col_major;  // consecutive threads take consecutive rows (a_rs == 1), else consecutive k
  int rows;        // rows per block step: 1, 8 or 32 (kThreads / rows threads per row)
  int64_t groups;  // ceil(m / rows)
  int64_t chunk;   // k-range per split (blockIdx.y)
  U* partial;      // m x gridDim.y partial sums when split, else null
};

template <class T, class U> __device__ __forceinline__ void gemv_store(const IntGemv<U>& p, int64_t row, U acc) {
  T& v = static_cast<T*>(p.y)[row * p.incy];
  const U prod = p.alpha * acc;
  v = T(p.beta_zero ? prod : U(p.beta * U(v) + prod));
}

template <class T> __global__ void __launch_bounds__(kThreads) int_gemv_kernel(IntGemv<wrap_t<T>> p) {
  using U = wrap_t<T>;
  __shared__ U sums[kThreads];
  const int tid = threadIdx.x, R = p.rows, S = kThreads / p.rows;
  const int r = p.col_major ? tid % R : tid / S;
  const int s = p.col_major ? tid / R : tid % S;
  const T* a = static_cast<const T*>(p.a);
  const T* x = static_cast<const T*>(p.x);
  const int64_t k0 = int64_t(blockIdx.y) * p.chunk, k1 = k0 + p.chunk < p.n ? k0 + p.chunk : p.n;
  for (int64_t grp = blockIdx.x; grp < p.groups; grp += gridDim.x) {
    const int64_t row = grp * R + r;
    U acc = 0;
    if (row < p.m) {
      const T* arow = a + row * p.a_rs;
      for (int64_t j = k0 + s; j < k1; j += S) acc += U(arow[j * p.a_cs]) * U(x[j * p.incx]);
    }
    sums[r * S + s] = acc;
    __syncthreads();
    for (int w = S / 2; w > 0; w /= 2) {
      if (s < w) sums[r * S + s] += sums[r * S + s + w];
      __syncthreads();
    }
    if (s == 0 && row < p.m) {
      if (p.partial) p.partial[row * gridDim.y + blockIdx.y] = sums[r * S];
      else gemv_store<T>(p, row, sums[r * S]);
    }
    __syncthreads();  // sums is rewritten by the next group
  }
}

// Adds each row's partial sums (in split order) and stores the row.
template <class T> __global__ void __launch_bounds__(kThreads) int_gemv_finish_kernel(IntGemv<wrap_t<T>> p,
                                                                                      int64_t splits) {
  using U = wrap_t<T>;
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t row = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; row < p.m; row += step) {
    U acc = 0;
    for (int64_t i = 0; i < splits; ++i) acc += p.partial[row * splits + i];
    gemv_store<T>(p, row, acc);
  }
}

// y = beta*y + alpha * A @ x for A m x n (n == 0: y = beta*y, zeros for beta == 0).
template <class T> void int_gemv_launch(const char* op, IntGemv<wrap_t<T>> p) {
  using U = wrap_t<T>;
  if (p.m == 0) return;
  const int device = device_of(p.y);
  LaunchScope scope(device);
  p.col_major = p.a_rs == 1 && p.a_cs != 1 && p.m > 1;
  p.rows = p.col_major ? 32 : p.n >= 2048 || p.m == 1 ? 1 : 8;
  const int S = kThreads / p.rows;
  p.groups = (p.m + p.rows - 1) / p.rows;
  // Split the rows' k-range when there are too few row groups to fill the GPU, keeping at least
  // 64 elements per thread and split.
  const int64_t want = int64_t(properties(device).multiProcessorCount) * 4;
  int64_t splits = 1;
  if (p.groups < want) {
    splits = std::min<int64_t>((want + p.groups - 1) / p.groups, p.n / (int64_t(S) * 64));
    splits = std::max<int64_t>(1, std::min<int64_t>(splits, 65535));
  }
  p.chunk = std::max<int64_t>(1, (p.n + splits - 1) / splits);
  splits = std::max<int64_t>(1, (p.n + p.chunk - 1) / p.chunk);
  Ref<Storage> scratch;
  p.partial = nullptr;
  if (splits > 1) {  // from the caching allocator, freed in stream order
    scratch = Storage::allocate(size_t(p.m * splits) * sizeof(U), Device{DeviceType::cuda, device});
    p.partial = static_cast<U*>(scratch->data());
  }
  const dim3 grid(unsigned(std::min(p.groups, kMaxGemmBlocks)), unsigned(splits));
  int_gemv_kernel<T><<<grid, kThreads, 0, scope.stream>>>(p);
  check_launch(op);
  if (splits > 1) {
    int_gemv_finish_kernel<T><<<grid_for(p.m), kThreads, 0, scope.stream>>>(p, splits);
    check_launch(op);
  }
}

template <class T> void int_gemv_cuda(const GemvArgs& g) {
  IntGemv<wrap_t<T>> p{};
  p.m = g.m;
  p.n = g.n;
  p.a = g.a;
  p.a_rs = g.a_rs;
  p.a_cs = g.a_cs;
  p.x = g.x;
  p.incx = g.incx;
  p.y = g.y;
  p.incy = g.incy;
  p.alpha = int_multiplier<T>(g.alpha);
  p.beta = int_multiplier<T>(g.beta);
  p.beta_zero = g.beta == 0;
  int_gemv_launch<T>("mv", p);
}

// dot is the 1 x n matrix-vector product; the result stays on the device (no synchronization).
template <class T> void int_dot_cuda(int64_t n, const void* x, int64_t incx, const void* y, int64_t incy, void* out) {
  IntGemv<wrap_t<T>> p{};
  p.m = 1;
  p.n = n;
  p.a = x;
  p.a_rs = 0;
  p.a_cs = incx;
  p.x = y;
  p.incx = incy;
  p.y = out;
  p.incy = 1;
  p.alpha = 1;
  p.beta = 0;
  p.beta_zero = true;
  int_gemv_launch<T>("dot", p);
}

#define REG_INT_MATMUL(T)                                                   \
  TOCHA_REGISTER_KERNEL(mm, cuda, DTypeOf<T>::value, &int_gemm_cuda<T>);      \
  TOCHA_REGISTER_KERNEL(addmm, cuda, DTypeOf<T>::value, &int_gemm_cuda<T>);   \
  TOCHA_REGISTER_KERNEL(bmm, cuda, DTypeOf<T>::value, &int_gemm_cuda<T>);     \
  TOCHA_REGISTER_KERNEL(baddbmm, cuda, DTypeOf<T>::value, &int_gemm_cuda<T>); \
  TOCHA_REGISTER_KERNEL(addbmm, cuda, DTypeOf<T>::value, &int_gemm_cuda<T>);  \
  TOCHA_REGISTER_KERNEL(ger, cuda, DTypeOf<T>::value, &int_ger_cuda<T>);      \
  TOCHA_REGISTER_KERNEL(addr, cuda, DTypeOf<T>::value, &int_ger_cuda<T>);     \
  TOCHA_REGISTER_KERNEL(mv, cuda, DTypeOf<T>::value, &int_gemv_cuda<T>);      \
  TOCHA_REGISTER_KERNEL(addmv, cuda, DTypeOf<T>::value, &int_gemv_cuda<T>);   \
  TOCHA_REGISTER_KERNEL(dot, cuda, DTypeOf<T>::value, &int_dot_cuda<T>);
TOCHA_FOR_INT_TYPES(REG_INT_MATMUL)

}  // namespace
}  // namespace cuda
}  // namespace tocha
