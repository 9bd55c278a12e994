// CUDA multinomial from the device's Philox generator, one block per row of weights: the row's
// checks (reported through the deferred device-error record), then with replacement a binary
// search of u * total in the row's prefix sums, without replacement the exponential race sorted
// in shared memory (Note [Device multinomial]).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <cub/block/block_scan.cuh>
#include "core/kernel_registry.h"
#include "core/op_id.h"
#include "core/ops/random_kernels.h"
#include "core/philox.h"
#include "core/storage.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/device_errors.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {
namespace {

// Note [Device multinomial]
// probs (rows x k, contiguous, on the device) is read by one block per row; nothing comes back
// to the host. The block first checks the row as the CPU front-end does (every weight finite and
// non-negative, a non-zero weight, and without replacement at least n of them); a bad row is
// reported through the deferred device-error record (Note [Deferred device errors], kind
// kBadWeight), raised naming multinomial at the next synchronization, and its samples are set
// to base. Sample j of row r uses Philox counter block offset + r * n + j (with replacement) and
// weight c uses block offset + r * k + c (without): Note [Philox streams].
// - With replacement: the block writes the row's inclusive prefix sums (in double, cub::BlockScan
//   over chunks) to a scratch buffer, and each sample takes the first class whose prefix sum
//   exceeds u * total, u a 53-bit uniform in [0, 1). The scan adds in a tree (a warp's
//   Kogge-Stone steps), so a zero weight's prefix sum is not always its predecessor's: with
//   weights {1, 0.75 ulp, 0.5 ulp, 0} the last sum comes out one ulp above the third, and the
//   search could stop on the zero weight. A search that ends on a zero weight (or past the end,
//   when rounding puts u * total at the total) takes the nearest positive weight before it (else
//   after it), so zero-weight classes are never drawn.
// - Without replacement: the exponential race (Efraimidis-Spirakis): class c with weight w > 0
//   gets an Exp(1) variate E = -log(1 - u), and the n smallest E / w are a sample without
//   replacement drawn with the weights' probabilities, sample by sample. The key is
//   log(w) - log(E), largest first: log(u) / w overflowed to -inf for weights below about
//   1e-307 (f64), and then every such class tied and the draw followed the class order. Zero
//   weights rank after every positive one. The block sorts (key, class) in shared memory
//   (bitonic, ties by class), so k
//   is limited to kSortMax classes; a wider row goes back to the host path (the CPU generator,
//   one copy of the weights). The values differ from the CPU's (its MT19937 stream and sum
//   tree), in distribution they agree.
constexpr int kSortMax = 2048;

template <class T> __device__ __forceinline__ double weight_at(const T* w, int64_t c) {
  if constexpr (std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value) return double(float(w[c]));
  else return double(w[c]);
}

__device__ __forceinline__ double uniform53(const Philox4& r) {
  return double((uint64_t(r.x[0]) << 21) ^ (r.x[1] >> 11)) * (1.0 / 9007199254740992.0);
}

// The class a with-replacement search ends on when that class (c, or k past the end) has no
// positive weight: the nearest positive one before it, else after it (Note [Device multinomial]).
template <class T> __device__ int64_t positive_class_near(const T* w, int64_t c, int64_t k) {
  for (int64_t b = c < k ? c : k - 1; b >= 0; --b)
    if (weight_at(w, b) > 0) return b;
  for (int64_t b = c + 1; b < k; ++b)
    if (weight_at(w, b) > 0) return b;
  return 0;  // not reached: the row was checked to have a positive weight
}

// Sort order of the race: larger key first, then smaller rank (rank = class for positive
// weights, kSortMax + class for zero weights, 4 * kSortMax for padding).
__device__ __forceinline__ bool before(const double* key, const int* rank, int a, int b) {
  return key[a] > key[b] || (key[a] == key[b] && rank[a] < rank[b]);
}

template <class T>
__global__ void __launch_bounds__(kThreads) multinomial_kernel(int64_t* out, const T* probs, double* cdf, int64_t rows,
                                                               int64_t k, int64_t n, bool replacement, int64_t base,
                                                               uint64_t seed, uint64_t offset, DeviceErrorRecord* err) {
  using Scan = cub::BlockScan<double, kThreads>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ double key[kSortMax];
  __shared__ int rank[kSortMax];
  __shared__ unsigned long long bad_col, nonzero;
  __shared__ int row_bad;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* w = probs + r * k;
    if (threadIdx.x == 0) {
      bad_col = ~0ull;
      nonzero = 0;
    }
    __syncthreads();
    double carry = 0;
    unsigned long long nz = 0;
    for (int64_t c0 = 0; c0 < k; c0 += kThreads) {
      const int64_t c = c0 + threadIdx.x;
      double v = c < k ? weight_at(w, c) : 0.0;
      if (!(isfinite(v) && v >= 0)) {
        atomicMin(&bad_col, (unsigned long long)c);
        v = 0;
      }
      nz += v > 0;
      if (replacement) {
        double incl, total;
        Scan(scan).InclusiveSum(v, incl, total);
        if (c < k) cdf[r * k + c] = carry + incl;
        carry += total;
        __syncthreads();  // scan storage reused by the next chunk
      } else if (c < k) {
        const Philox4 u = philox_block(seed, offset + uint64_t(r * k + c));
        // log(w) - log(E): finite for every positive finite w; +inf only for u == 0 (E == 0).
        key[c] = v > 0 ? log(v) - log(-log(1.0 - uniform53(u))) : -INFINITY;
        rank[c] = v > 0 ? int(c) : kSortMax + int(c);
      }
    }
    atomicAdd(&nonzero, nz);
    __syncthreads();
    if (threadIdx.x == 0) {
      row_bad = 1;
      if (bad_col != ~0ull) {
        const double v = weight_at(w, int64_t(bad_col));
        long long bits;
        memcpy(&bits, &v, sizeof bits);
        report_device_error(err, kBadWeight, int(OpId::multinomial), 0, bits, r, int64_t(bad_col), 0);
      } else if (nonzero == 0) {
        report_device_error(err, kBadWeight, int(OpId::multinomial), 1, 0, r, 0, 0);
      } else if (!replacement && int64_t(nonzero) < n) {
        report_device_error(err, kBadWeight, int(OpId::multinomial), 2, int64_t(nonzero), r, 0, n);
      } else {
        row_bad = 0;
      }
    }
    __syncthreads();
    int64_t* o = out + r * n;
    if (row_bad) {
      for (int64_t j = threadIdx.x; j < n; j += blockDim.x) o[j] = base;
    } else if (replacement) {
      const double* s = cdf + r * k;
      for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
        const double target = uniform53(philox_block(seed, offset + uint64_t(r * n + j))) * carry;
        int64_t lo = 0, hi = k;  // first c with s[c] > target
        while (lo < hi) {
          const int64_t mid = lo + (hi - lo) / 2;
          if (s[mid] > target) hi = mid;
          else lo = mid + 1;
        }
        if (lo == k || !(weight_at(w, lo) > 0)) lo = positive_class_near(w, lo, k);
        o[j] = lo + base;
      }
    } else {
      int p = 1;
      while (p < k) p <<= 1;
      for (int c = int(k) + threadIdx.x; c < p; c += blockDim.x) {
        key[c] = -INFINITY;
        rank[c] = 4 * kSortMax;
      }
      for (int size = 2; size <= p; size <<= 1) {
        for (int stride = size / 2; stride > 0; stride >>= 1) {
          __syncthreads();
          for (int i = threadIdx.x; i < p; i += blockDim.x) {
            const int j = i ^ stride;
            if (j <= i) continue;
            const bool first = before(key, rank, i, j);
            if ((i & size) == 0 ? !first : first) {
              const double tk = key[i];
              key[i] = key[j];
              key[j] = tk;
              const int tr = rank[i];
              rank[i] = rank[j];
              rank[j] = tr;
            }
          }
        }
      }
      __syncthreads();
      for (int64_t j = threadIdx.x; j < n; j += blockDim.x) o[j] = int64_t(rank[j] % kSortMax) + base;
    }
    __syncthreads();  // shared state is reset for the next row
  }
}

template <class T>
bool multinomial_cuda(int64_t* out, const void* probs, int64_t rows, int64_t k, int64_t n, bool replacement,
                      int64_t base, int device) {
  if (!replacement && k > kSortMax) return false;  // Note [Device multinomial]: the host path
  if (rows == 0) return true;
  uint64_t seed = 0, offset = 0;
  cuda_generator(device).reserve(uint64_t(rows) * uint64_t(replacement ? n : k), &seed, &offset);
  LaunchScope scope(device);
  Ref<Storage> cdf;
  if (replacement) cdf = Storage::allocate(size_t(rows) * size_t(k) * sizeof(double), Device{DeviceType::cuda, device});
  DeviceErrorRecord* err = device_error_record();
  const unsigned grid = unsigned(rows < 65535 * 16 ? rows : 65535 * 16);
  multinomial_kernel<T><<<grid, kThreads, 0, scope.stream>>>(out, static_cast<const T*>(probs),
                                                             cdf ? static_cast<double*>(cdf->data()) : nullptr, rows,
                                                             k, n, replacement, base, seed, offset, err);
  check_launch("multinomial");
  return true;
}

#define REG(T) TOCHA_REGISTER_KERNEL(multinomial, cuda, DTypeOf<T>::value, &multinomial_cuda<T>);
REG(float)
REG(double)
REG(Half)
REG(BFloat16)

}  // namespace
}  // namespace cuda
}  // namespace tocha
