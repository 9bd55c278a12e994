// CUDA kernels of one recurrent layer over a whole sequence (rnnLayer, rnnLayerBackward,
// rnnLayerWeightGrads; core/ops/rnn_kernels.h) for f32 and f64, the CPU kernels' algorithm
// step for step (kernels/cpu/rnn.cpp): one cuBLAS GEMM for the input projections of all time
// steps, one per step for the recurrence, the fused pointwise cell of a step as one kernel (one
// thread per (batch row, hidden unit), the formulas of kernels/cpu/rnn_cells.h), and
// backpropagation through time with one GEMM per step, then one GEMM each for the input and
// weight gradients. Layouts: Note [RNN workspace].
#include <cublas_v2.h>
#include <mutex>
#include <vector>
#include "core/device_runtime.h"
#include "core/kernel_registry.h"
#include "core/ops/rnn_kernels.h"
#include "core/storage.h"
#include "kernels/cuda/blas_handle.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {
namespace {


// Row-major C (m x n, ldc) = beta*C + alpha * op(A) op(B), as the CPU's gemm: computed as the
// column-major C^T = op(B)^T op(A)^T (Note [Row-major through cuBLAS] in blas.cpp).
template <class T>
void gemm(const char* op, cublasHandle_t h, bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha,
          const T* a, int64_t lda, const T* b, int64_t ldb, double beta, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  constexpr bool kDouble = std::is_same<T, double>::value;
  using S = std::conditional_t<kDouble, double, float>;
  const S al = S(alpha), be = S(beta);
  const cudaDataType_t dt = kDouble ? CUDA_R_64F : CUDA_R_32F;
  const cublasComputeType_t compute = kDouble ? CUBLAS_COMPUTE_64F
                                      : cuda_allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                          : CUBLAS_COMPUTE_32F;
  TOCHA_CUBLAS_CHECK(op, cublasGemmEx(h, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, int(n),
                                      int(m), int(k), &al, b, dt, int(ldb), a, dt, int(lda), &be, c, dt, int(ldc),
                                      compute, CUBLAS_GEMM_DEFAULT));
}

#define ELEMENTS(e, total) \
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < (total); e += int64_t(gridDim.x) * blockDim.x)

template <class T> __device__ __forceinline__ T sigm(T x) { return T(1) / (T(1) + exp(-x)); }

// Each of `rows` rows (n wide, stride ld) of c = a + b (either may be null).
template <class T> __global__ void __launch_bounds__(kThreads) fill_rows_kernel(T* c, int64_t rows, int64_t n, int64_t ld,
                                                                               const T* a, const T* b) {
  ELEMENTS(e, rows * n) {
    const int64_t r = e / n, j = e % n;
    c[r * ld + j] = (a ? a[j] : T(0)) + (b ? b[j] : T(0));
  }
}

// ---- forward cells (one step, B rows of H units) --------------------------------------------------

// g: the step's workspace rows (W wide): gate pre-activations in, activations and c_t out.
template <class T>
__global__ void __launch_bounds__(kThreads) lstm_forward_kernel(T* g, int64_t W, const T* c_prev, int64_t cp_ld,
                                                                T* h, int64_t B, int64_t H) {
  ELEMENTS(e, B * H) {
    const int64_t b = e / H, j = e % H;
    T* gr = g + b * W;
    const T i = sigm(gr[j]), f = sigm(gr[H + j]), n = tanh(gr[2 * H + j]), o = sigm(gr[3 * H + j]);
    const T cn = f * c_prev[b * cp_ld + j] + i * n;
    gr[j] = i;
    gr[H + j] = f;
    gr[2 * H + j] = n;
    gr[3 * H + j] = o;
    gr[4 * H + j] = cn;
    h[b * H + j] = o * tanh(cn);
  }
}

// ws rows [r z n hn] (input projections in); hg: recurrent projections (B x 3H, b_hh included).
template <class T>
__global__ void __launch_bounds__(kThreads) gru_forward_kernel(T* ws, int64_t W, const T* hg, const T* h_prev, T* h,
                                                               int64_t B, int64_t H) {
  ELEMENTS(e, B * H) {
    const int64_t b = e / H, j = e % H;
    T* w = ws + b * W;
    const T* hr = hg + b * 3 * H;
    const T r = sigm(w[j] + hr[j]), z = sigm(w[H + j] + hr[H + j]);
    const T n = tanh(w[2 * H + j] + r * hr[2 * H + j]);
    w[j] = r;
    w[H + j] = z;
    w[2 * H + j] = n;
    w[3 * H + j] = hr[2 * H + j];
    h[b * H + j] = (T(1) - z) * n + z * h_prev[b * H + j];
  }
}

template <class T> __global__ void __launch_bounds__(kThreads) rnn_forward_kernel(T* y, int64_t n, bool relu) {
  ELEMENTS(e, n) y[e] = relu ? (y[e] > T(0) ? y[e] : T(0)) : tanh(y[e]);
}

// ---- backward cells ----------------------------------------------------------------------------------

template <class T>
__global__ void __launch_bounds__(kThreads) lstm_backward_kernel(const T* ws, int64_t W, const T* c_prev, int64_t cp_ld,
                                                                 const T* dh, const T* dy, T* dc, T* dg, int64_t DG,
                                                                 int64_t B, int64_t H) {
  ELEMENTS(e, B * H) {
    const int64_t b = e / H, j = e % H;
    const T* g = ws + b * W;
    const T i = g[j], f = g[H + j], n = g[2 * H + j], o = g[3 * H + j];
    const T tc = tanh(g[4 * H + j]);
    T dht = dh[b * H + j];
    if (dy) dht += dy[b * H + j];
    const T dct = dc[b * H + j] + dht * o * (T(1) - tc * tc);
    T* d = dg + b * DG;
    d[j] = dct * n * i * (T(1) - i);
    d[H + j] = dct * c_prev[b * cp_ld + j] * f * (T(1) - f);
    d[2 * H + j] = dct * i * (T(1) - n * n);
    d[3 * H + j] = dht * tc * o * (T(1) - o);
    dc[b * H + j] = dct * f;
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) gru_backward_kernel(const T* ws, int64_t W, const T* h_prev, T* dh,
                                                                const T* dy, T* dg, int64_t DG, int64_t B, int64_t H) {
  ELEMENTS(e, B * H) {
    const int64_t b = e / H, j = e % H;
    const T* w = ws + b * W;
    const T r = w[j], z = w[H + j], n = w[2 * H + j], hn = w[3 * H + j];
    T dht = dh[b * H + j];
    if (dy) dht += dy[b * H + j];
    const T dnp = dht * (T(1) - z) * (T(1) - n * n);
    const T dzp = dht * (h_prev[b * H + j] - n) * z * (T(1) - z);
    const T drp = dnp * hn * r * (T(1) - r);
    T* d = dg + b * DG;
    d[j] = drp;
    d[H + j] = dzp;
    d[2 * H + j] = dnp;
    d[3 * H + j] = drp;
    d[4 * H + j] = dzp;
    d[5 * H + j] = dnp * r;
    dh[b * H + j] = dht * z;
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) rnn_backward_kernel(bool relu, const T* y, const T* dh, const T* dy, T* dg,
                                                                int64_t n) {
  ELEMENTS(e, n) {
    T d = dh[e];
    if (dy) d += dy[e];
    dg[e] = relu ? (y[e] > T(0) ? d : T(0)) : d * (T(1) - y[e] * y[e]);
  }
}

// g = beta * g + alpha * (column sums of rows x n of dg, stride ld), summed in order in T.
template <class T>
__global__ void __launch_bounds__(kThreads) column_sums_kernel(const T* dg, int64_t rows, int64_t n, int64_t ld,
                                                               double alpha, double beta, T* g) {
  ELEMENTS(j, n) {
    T acc = T(0);
    for (int64_t r = 0; r < rows; ++r) acc += dg[r * ld + j];
    g[j] = T((beta == 0 ? 0 : beta * double(g[j])) + alpha * double(acc));
  }
}

template <class T> __global__ void __launch_bounds__(kThreads) scale_kernel(T* g, int64_t n, double beta) {
  ELEMENTS(e, n) g[e] = beta == 0 ? T(0) : T(beta * double(g[e]));
}

// ---- the layer -------------------------------------------------------------------------------------

template <class T> void rnn_forward(const RnnForwardArgs& a) {
  const char* op = "rnnLayer";
  const RnnMode mode = a.s.mode;
  const int64_t S = a.s.T, B = a.s.B, I = a.s.I, H = a.s.H, GH = rnn_gates(mode) * H;
  const int64_t W = rnn_workspace_width(mode, H);
  if (S == 0 || B == 0) return;
  const int device = device_of(a.y);
  LaunchScope scope(device);
  cudaStream_t st = scope.stream;
  cublasHandle_t h = cublas_handle(device);
  const T *x = static_cast<const T*>(a.x), *h0 = static_cast<const T*>(a.h0), *c0 = static_cast<const T*>(a.c0);
  const T *w_ih = static_cast<const T*>(a.w_ih), *w_hh = static_cast<const T*>(a.w_hh);
  const T *b_ih = static_cast<const T*>(a.b_ih), *b_hh = static_cast<const T*>(a.b_hh);
  T *y = static_cast<T*>(a.y), *ws = static_cast<T*>(a.ws);

  // Input projections of every step into the gate slots; GRU keeps b_hh for the recurrent part.
  T* proj = mode == RnnMode::lstm || mode == RnnMode::gru ? ws : y;
  const int64_t ld = W ? W : H;
  const T* b2 = mode == RnnMode::gru ? nullptr : b_hh;
  const bool biased = b_ih || b2;
  if (biased) {
    fill_rows_kernel<T><<<grid_for(S * B * GH), kThreads, 0, st>>>(proj, S * B, GH, ld, b_ih, b2);
    check_launch(op);
  }
  gemm<T>(op, h, false, true, S * B, GH, I, 1, x, I, w_ih, I, biased ? 1 : 0, proj, ld);

  Ref<Storage> hg_buf;
  T* hg = nullptr;
  if (mode == RnnMode::gru) {
    hg_buf = Storage::allocate(size_t(B * GH) * sizeof(T), Device{DeviceType::cuda, device});
    hg = static_cast<T*>(hg_buf->data());
  }
  for (int64_t t = 0; t < S; ++t) {
    const T* hp = t == 0 ? h0 : y + (t - 1) * B * H;
    const bool recur = t > 0 || !a.h0_zero;
    T* yt = y + t * B * H;
    if (mode == RnnMode::lstm) {
      T* g = ws + t * B * W;
      if (recur) gemm<T>(op, h, false, true, B, GH, H, 1, hp, H, w_hh, H, 1, g, W);
      const T* cp = t == 0 ? c0 : ws + (t - 1) * B * W + 4 * H;
      lstm_forward_kernel<T><<<grid_for(B * H), kThreads, 0, st>>>(g, W, cp, t == 0 ? H : W, yt, B, H);
      check_launch(op);
    } else if (mode == RnnMode::gru) {
      if (b_hh) {
        fill_rows_kernel<T><<<grid_for(B * GH), kThreads, 0, st>>>(hg, B, GH, GH, b_hh, nullptr);
        check_launch(op);
      }
      if (recur) gemm<T>(op, h, false, true, B, GH, H, 1, hp, H, w_hh, H, b_hh ? 1 : 0, hg, GH);
      else if (!b_hh) TOCHA_CUDA_CHECK(op, cudaMemsetAsync(hg, 0, size_t(B * GH) * sizeof(T), st));
      gru_forward_kernel<T><<<grid_for(B * H), kThreads, 0, st>>>(ws + t * B * W, W, hg, hp, yt, B, H);
      check_launch(op);
    } else {
      if (recur) gemm<T>(op, h, false, true, B, H, H, 1, hp, H, w_hh, H, 1, yt, H);
      rnn_forward_kernel<T><<<grid_for(B * H), kThreads, 0, st>>>(yt, B * H, mode == RnnMode::relu);
      check_launch(op);
    }
  }
  TOCHA_CUDA_CHECK(op, cudaMemcpyAsync(a.h_n, y + (S - 1) * B * H, size_t(B * H) * sizeof(T),
                                       cudaMemcpyDeviceToDevice, st));
  if (mode == RnnMode::lstm) {
    TOCHA_CUDA_CHECK(op, cudaMemcpy2DAsync(a.c_n, size_t(H) * sizeof(T), ws + (S - 1) * B * W + 4 * H,
                                           size_t(W) * sizeof(T), size_t(H) * sizeof(T), size_t(B),
                                           cudaMemcpyDeviceToDevice, st));
  }
}

template <class T> void rnn_backward(const RnnBackwardArgs& a) {
  const char* op = "rnnLayerBackward";
  const RnnMode mode = a.s.mode;
  const int64_t S = a.s.T, B = a.s.B, I = a.s.I, H = a.s.H, GH = rnn_gates(mode) * H;
  const int64_t W = rnn_workspace_width(mode, H), DG = rnn_dgates_width(mode, H);
  const int device = device_of(a.dh0);
  LaunchScope scope(device);
  cudaStream_t st = scope.stream;
  cublasHandle_t h = cublas_handle(device);
  const T* w_hh = static_cast<const T*>(a.w_hh);
  const T *ws = static_cast<const T*>(a.ws), *y = static_cast<const T*>(a.y);
  const T* dy = static_cast<const T*>(a.dy);
  // dh0 and dc0 are the running gradients of h_t and c_t, seeded with those of h_n and c_n.
  T *dh = static_cast<T*>(a.dh0), *dc = static_cast<T*>(a.dc0);
  const size_t state = size_t(B * H) * sizeof(T);
  if (a.dh_n) TOCHA_CUDA_CHECK(op, cudaMemcpyAsync(dh, a.dh_n, state, cudaMemcpyDeviceToDevice, st));
  else TOCHA_CUDA_CHECK(op, cudaMemsetAsync(dh, 0, state, st));
  if (mode == RnnMode::lstm) {
    if (a.dc_n) TOCHA_CUDA_CHECK(op, cudaMemcpyAsync(dc, a.dc_n, state, cudaMemcpyDeviceToDevice, st));
    else TOCHA_CUDA_CHECK(op, cudaMemsetAsync(dc, 0, state, st));
  }
  if (S == 0 || B == 0) return;
  const int64_t off = mode == RnnMode::gru ? 3 * H : 0;
  const double beta = mode == RnnMode::gru ? 1 : 0;
  T* dg = static_cast<T*>(a.dg);
  for (int64_t t = S - 1; t >= 0; --t) {
    const T* dyt = dy ? dy + t * B * H : nullptr;
    T* dgt = dg + t * B * DG;
    if (mode == RnnMode::lstm) {
      const T* cp = t == 0 ? static_cast<const T*>(a.c0) : ws + (t - 1) * B * W + 4 * H;
      lstm_backward_kernel<T><<<grid_for(B * H), kThreads, 0, st>>>(ws + t * B * W, W, cp, t == 0 ? H : W, dh, dyt, dc,
                                                                     dgt, DG, B, H);
    } else if (mode == RnnMode::gru) {
      const T* hp = t == 0 ? static_cast<const T*>(a.h0) : y + (t - 1) * B * H;
      gru_backward_kernel<T><<<grid_for(B * H), kThreads, 0, st>>>(ws + t * B * W, W, hp, dh, dyt, dgt, DG, B, H);
    } else {
      rnn_backward_kernel<T><<<grid_for(B * H), kThreads, 0, st>>>(mode == RnnMode::relu, y + t * B * H, dh, dyt, dgt,
                                                                    B * H);
    }
    check_launch(op);
    if (t > 0 || !a.h0_zero) gemm<T>(op, h, false, false, B, H, GH, 1, dgt + off, DG, w_hh, H, beta, dh, H);
  }
  if (a.dx) {
    gemm<T>(op, h, false, false, S * B, I, GH, 1, dg, DG, static_cast<const T*>(a.w_ih), I, 0, static_cast<T*>(a.dx),
            I);
  }
}

template <class T> void rnn_weight_grads(const RnnWeightGradArgs& a) {
  const char* op = "rnnLayerWeightGrads";
  const RnnMode mode = a.s.mode;
  const int64_t S = a.s.T, B = a.s.B, I = a.s.I, H = a.s.H, GH = rnn_gates(mode) * H;
  const int64_t DG = rnn_dgates_width(mode, H);
  const void* any = a.gw_ih ? a.gw_ih : a.gw_hh ? a.gw_hh : a.gb_ih ? a.gb_ih : a.gb_hh;
  if (!any) return;
  const int device = device_of(any);
  LaunchScope scope(device);
  cudaStream_t st = scope.stream;
  cublasHandle_t h = cublas_handle(device);
  const T* dgx = static_cast<const T*>(a.dg);
  const T* dgh = dgx + (mode == RnnMode::gru ? 3 * H : 0);
  if (a.gw_ih) {
    gemm<T>(op, h, true, false, GH, I, S * B, a.alpha, dgx, DG, static_cast<const T*>(a.x), I, a.beta,
            static_cast<T*>(a.gw_ih), I);
  }
  if (a.gw_hh) {
    T* gw = static_cast<T*>(a.gw_hh);
    double beta = a.beta;
    if (S > 1) {
      gemm<T>(op, h, true, false, GH, H, (S - 1) * B, a.alpha, dgh + B * DG, DG, static_cast<const T*>(a.y), H, beta,
              gw, H);
      beta = 1;
    }
    if (!a.h0_zero) {
      gemm<T>(op, h, true, false, GH, H, B, a.alpha, dgh, DG, static_cast<const T*>(a.h0), H, beta, gw, H);
    } else if (S == 1) {
      scale_kernel<T><<<grid_for(GH * H), kThreads, 0, st>>>(gw, GH * H, beta);
      check_launch(op);
    }
  }
  if (a.gb_ih) {
    column_sums_kernel<T><<<grid_for(GH), kThreads, 0, st>>>(dgx, S * B, GH, DG, a.alpha, a.beta,
                                                             static_cast<T*>(a.gb_ih));
    check_launch(op);
  }
  if (a.gb_hh) {
    column_sums_kernel<T><<<grid_for(GH), kThreads, 0, st>>>(dgh, S * B, GH, DG, a.alpha, a.beta,
                                                             static_cast<T*>(a.gb_hh));
    check_launch(op);
  }
}

TOCHA_REGISTER_KERNEL(rnnLayer, cuda, DType::f32, &rnn_forward<float>);
TOCHA_REGISTER_KERNEL(rnnLayer, cuda, DType::f64, &rnn_forward<double>);
TOCHA_REGISTER_KERNEL(rnnLayerBackward, cuda, DType::f32, &rnn_backward<float>);
TOCHA_REGISTER_KERNEL(rnnLayerBackward, cuda, DType::f64, &rnn_backward<double>);
TOCHA_REGISTER_KERNEL(rnnLayerWeightGrads, cuda, DType::f32, &rnn_weight_grads<float>);
TOCHA_REGISTER_KERNEL(rnnLayerWeightGrads, cuda, DType::f64, &rnn_weight_grads<double>);

}  // namespace
}  // namespace cuda
}  // namespace tocha
