// CPU kernels of one recurrent layer over a whole sequence (rnnLayer, rnnLayerBackward,
// rnnLayerWeightGrads): one GEMM for the input projections of all time steps, one GEMM per step
// for the recurrence, the fused pointwise cells of rnn_cells.h, and backpropagation through time
// with one GEMM per step, then one GEMM each for the input gradient and the weight gradients.
#include <algorithm>
#include <cstring>
#include <vector>
#include "core/kernel_registry.h"
#include "core/ops/rnn_kernels.h"
#include "kernels/cpu/blas_gemm_call.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/rnn_cells.h"

namespace tocha {
namespace cpu {
namespace {


// Sets each of `rows` rows (n wide, stride ld) of c to a + b (either may be null).
template <class T> void fill_rows(T* c, int64_t rows, int64_t n, int64_t ld, const T* a, const T* b) {
  std::vector<T> v(size_t(n), T(0));
  for (int64_t j = 0; j < n; ++j) v[size_t(j)] = (a ? a[j] : T(0)) + (b ? b[j] : T(0));
  for (int64_t r = 0; r < rows; ++r) std::memcpy(c + r * ld, v.data(), size_t(n) * sizeof(T));
}

// Runs f(b) for every batch row of a step, over the pool when the step is big enough to pay for it.
template <class F> void for_rows(int64_t B, int64_t H, const F& f) {
  parallel_for(B, std::max<int64_t>(1, 4096 / std::max<int64_t>(H, 1)), [&](int64_t lo, int64_t hi) {
    for (int64_t b = lo; b < hi; ++b) f(b);
  });
}

template <class T> void rnn_forward(const RnnForwardArgs& a) {
  const RnnMode mode = a.s.mode;
  const int64_t S = a.s.T, B = a.s.B, I = a.s.I, H = a.s.H, GH = rnn_gates(mode) * H;
  const int64_t W = rnn_workspace_width(mode, H);
  const T *x = static_cast<const T*>(a.x), *h0 = static_cast<const T*>(a.h0), *c0 = static_cast<const T*>(a.c0);
  const T *w_ih = static_cast<const T*>(a.w_ih), *w_hh = static_cast<const T*>(a.w_hh);
  const T *b_ih = static_cast<const T*>(a.b_ih), *b_hh = static_cast<const T*>(a.b_hh);
  T *y = static_cast<T*>(a.y), *ws = static_cast<T*>(a.ws);

  // Input projections of every step into the gate slots (LSTM/GRU: the workspace; RNN: y). GRU
  // keeps b_hh out: r multiplies the recurrent projection of n, bias included.
  // The cells add the biases of the input projections themselves (row_bias: b_ih + b_hh; a GRU's
  // b_ih alone): filling S*B rows with them for the GEMM to add onto cost an LSTM 4-5% of its
  // forward pass (the fill, and the GEMM's read of it).
  T* proj = mode == RnnMode::lstm || mode == RnnMode::gru ? ws : y;
  const int64_t ld = W ? W : H;
  const T* b2 = mode == RnnMode::gru ? nullptr : b_hh;
  std::vector<T> row_bias(size_t(GH), T(0));
  for (int64_t j = 0; j < GH; ++j) row_bias[size_t(j)] = (b_ih ? b_ih[j] : T(0)) + (b2 ? b2[j] : T(0));
  gemm_row_major(false, true, S * B, GH, I, 1, x, I, w_ih, I, 0, proj, ld);

  std::vector<T> hg(mode == RnnMode::gru ? size_t(B * GH) : 0);
  for (int64_t t = 0; t < S; ++t) {
    const T* hp = t == 0 ? h0 : y + (t - 1) * B * H;
    const bool recur = t > 0 || !a.h0_zero;  // the first step's GEMM adds nothing for zero h0
    T* yt = y + t * B * H;
    if (mode == RnnMode::lstm) {
      T* g = ws + t * B * W;
      if (recur) gemm_row_major(false, true, B, GH, H, 1, hp, H, w_hh, H, 1, g, W);
      for_rows(B, H, [&](int64_t b) {
        const T* cp = t == 0 ? c0 + b * H : ws + ((t - 1) * B + b) * W + 4 * H;
        rnn::lstm_forward_row(g + b * W, row_bias.data(), g + b * W + 4 * H, cp, yt + b * H, H);
      });
    } else if (mode == RnnMode::gru) {
      if (b_hh) fill_rows(hg.data(), B, GH, GH, b_hh, static_cast<const T*>(nullptr));
      if (recur) gemm_row_major(false, true, B, GH, H, 1, hp, H, w_hh, H, b_hh ? 1 : 0, hg.data(), GH);
      else if (!b_hh) std::fill(hg.begin(), hg.end(), T(0));
      for_rows(B, H, [&](int64_t b) {
        rnn::gru_forward_row(ws + (t * B + b) * W, row_bias.data(), hg.data() + b * GH, hp + b * H, yt + b * H, H);
      });
    } else {
      if (recur) gemm_row_major(false, true, B, H, H, 1, hp, H, w_hh, H, 1, yt, H);
      const bool relu = mode == RnnMode::relu;
      for_rows(B, H, [&](int64_t b) {
        if (relu) rnn::relu_forward_row(yt + b * H, row_bias.data(), H);
        else rnn::tanh_forward_row(yt + b * H, row_bias.data(), H);
      });
    }
  }
  std::memcpy(a.h_n, y + (S - 1) * B * H, size_t(B * H) * sizeof(T));
  if (mode == RnnMode::lstm) {
    T* cn = static_cast<T*>(a.c_n);
    for (int64_t b = 0; b < B; ++b)
      std::memcpy(cn + b * H, ws + ((S - 1) * B + b) * W + 4 * H, size_t(H) * sizeof(T));
  }
}

template <class T, bool kDy> void backward_step(const RnnBackwardArgs& a, int64_t t, T* dh, T* dc) {
  const RnnMode mode = a.s.mode;
  const int64_t B = a.s.B, H = a.s.H, W = rnn_workspace_width(mode, H), DG = rnn_dgates_width(mode, H);
  const T *ws = static_cast<const T*>(a.ws), *y = static_cast<const T*>(a.y);
  const T* dy = kDy ? static_cast<const T*>(a.dy) + t * B * H : nullptr;
  T* dg = static_cast<T*>(a.dg) + t * B * DG;
  if (mode == RnnMode::lstm) {
    const T* c0 = static_cast<const T*>(a.c0);
    for_rows(B, H, [&](int64_t b) {
      const T* g = ws + (t * B + b) * W;
      const T* cp = t == 0 ? c0 + b * H : ws + ((t - 1) * B + b) * W + 4 * H;
      rnn::lstm_backward_row<T, kDy>(g, g + 4 * H, cp, dh + b * H, kDy ? dy + b * H : dy, dc + b * H, dg + b * DG, H);
    });
  } else if (mode == RnnMode::gru) {
    const T* hp = t == 0 ? static_cast<const T*>(a.h0) : y + (t - 1) * B * H;
    for_rows(B, H, [&](int64_t b) {
      rnn::gru_backward_row<T, kDy>(ws + (t * B + b) * W, hp + b * H, dh + b * H, kDy ? dy + b * H : dy, dg + b * DG, H);
    });
  } else {
    const bool relu = mode == RnnMode::relu;
    const T* yt = y + t * B * H;
    for_rows(B, H, [&](int64_t b) {
      rnn::rnn_backward_row<T, kDy>(relu, yt + b * H, dh + b * H, kDy ? dy + b * H : dy, dg + b * DG, H);
    });
  }
}

template <class T> void rnn_backward(const RnnBackwardArgs& a) {
  const RnnMode mode = a.s.mode;
  const int64_t S = a.s.T, B = a.s.B, I = a.s.I, H = a.s.H, GH = rnn_gates(mode) * H;
  const int64_t DG = rnn_dgates_width(mode, H);
  const T* w_hh = static_cast<const T*>(a.w_hh);
  // dh0 and dc0 are the running gradients of h_t and c_t, seeded with those of h_n and c_n.
  T *dh = static_cast<T*>(a.dh0), *dc = static_cast<T*>(a.dc0);
  if (a.dh_n) std::memcpy(dh, a.dh_n, size_t(B * H) * sizeof(T));
  else std::fill(dh, dh + B * H, T(0));
  if (mode == RnnMode::lstm) {
    if (a.dc_n) std::memcpy(dc, a.dc_n, size_t(B * H) * sizeof(T));
    else std::fill(dc, dc + B * H, T(0));
  }
  // GRU's recurrent gates sit after its input ones; its row keeps the direct part z * dh (beta 1).
  const int64_t off = mode == RnnMode::gru ? 3 * H : 0;
  const double beta = mode == RnnMode::gru ? 1 : 0;
  T* dg = static_cast<T*>(a.dg);
  for (int64_t t = S - 1; t >= 0; --t) {
    if (a.dy) backward_step<T, true>(a, t, dh, dc);
    else backward_step<T, false>(a, t, dh, dc);
    if (t > 0 || !a.h0_zero) gemm_row_major(false, false, B, H, GH, 1, dg + t * B * DG + off, DG, w_hh, H, beta, dh, H);
  }
  if (a.dx) {
    gemm_row_major(false, false, S * B, I, GH, 1, dg, DG, static_cast<const T*>(a.w_ih), I, 0, static_cast<T*>(a.dx), I);
  }
}

// g = beta * g + alpha * (sum over rows of dg's columns), for the biases.
template <class T> void column_sums(const T* dg, int64_t rows, int64_t n, int64_t ld, double alpha, double beta, T* g) {
  std::vector<T> acc(size_t(n), T(0));
  T* ap = acc.data();
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = dg + r * ld;
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) ap[j] += row[j];
  }
  for (int64_t j = 0; j < n; ++j) g[j] = T((beta == 0 ? 0 : beta * double(g[j])) + alpha * double(ap[j]));
}

template <class T> void rnn_weight_grads(const RnnWeightGradArgs& a) {
  const RnnMode mode = a.s.mode;
  const int64_t S = a.s.T, B = a.s.B, I = a.s.I, H = a.s.H, GH = rnn_gates(mode) * H;
  const int64_t DG = rnn_dgates_width(mode, H);
  const T* dgx = static_cast<const T*>(a.dg);
  const T* dgh = dgx + (mode == RnnMode::gru ? 3 * H : 0);
  if (a.gw_ih) {
    gemm_row_major(true, false, GH, I, S * B, a.alpha, dgx, DG, static_cast<const T*>(a.x), I, a.beta, static_cast<T*>(a.gw_ih),
         I);
  }
  if (a.gw_hh) {
    // Step t pairs its gates with h_{t-1}: y[0..T-2] for t >= 1 (one GEMM), h0 for t = 0.
    T* gw = static_cast<T*>(a.gw_hh);
    double beta = a.beta;
    if (S > 1) {
      gemm_row_major(true, false, GH, H, (S - 1) * B, a.alpha, dgh + B * DG, DG, static_cast<const T*>(a.y), H, beta, gw, H);
      beta = 1;
    }
    if (!a.h0_zero) {
      gemm_row_major(true, false, GH, H, B, a.alpha, dgh, DG, static_cast<const T*>(a.h0), H, beta, gw, H);
    } else if (S == 1) {
      for (int64_t j = 0; j < GH * H; ++j) gw[j] = beta == 0 ? T(0) : T(beta * double(gw[j]));
    }
  }
  if (a.gb_ih) column_sums(dgx, S * B, GH, DG, a.alpha, a.beta, static_cast<T*>(a.gb_ih));
  if (a.gb_hh) column_sums(dgh, S * B, GH, DG, a.alpha, a.beta, static_cast<T*>(a.gb_hh));
}

TOCHA_REGISTER_KERNEL(rnnLayer, cpu, DType::f32, &rnn_forward<float>);
TOCHA_REGISTER_KERNEL(rnnLayer, cpu, DType::f64, &rnn_forward<double>);
TOCHA_REGISTER_KERNEL(rnnLayerBackward, cpu, DType::f32, &rnn_backward<float>);
TOCHA_REGISTER_KERNEL(rnnLayerBackward, cpu, DType::f64, &rnn_backward<double>);
TOCHA_REGISTER_KERNEL(rnnLayerWeightGrads, cpu, DType::f32, &rnn_weight_grads<float>);
TOCHA_REGISTER_KERNEL(rnnLayerWeightGrads, cpu, DType::f64, &rnn_weight_grads<double>);

}  // namespace
}  // namespace cpu
}  // namespace tocha
