// The fused pointwise parts of the recurrent cells, one batch row (H hidden units) at a time:
// gate nonlinearities and state update forward, and the gate gradients backward. Compiled per
// SIMD level (Note [SIMD dispatch] in loops.h) with libmvec exp/tanh, so each row is one
// vectorized pass instead of a dozen elementwise ops. Layouts: Note [RNN workspace].
#pragma once
#include <cmath>
#include <cstdint>
#include "kernels/cpu/loops.h"
#include "kernels/cpu/simd_math.h"

namespace tocha {
namespace cpu {
namespace rnn {

// 1 / (1 + e^-x): e^-x overflows to inf for very negative x, which still gives 0.
template <class T> inline T sigm(T x) { return T(1) / (T(1) + std::exp(-x)); }

// ---- LSTM: gates (i, f, g, o) pre-activations less their bias (4H values: b_ih + b_hh) in,
// activations out; c, h written ---------------------------------------------------------------
template <class T>
TOCHA_SIMD_CLONES void lstm_forward_row(T* g, const T* bias, T* c, const T* c_prev, T* h, int64_t H) {
  T *gi = g, *gf = g + H, *gg = g + 2 * H, *go = g + 3 * H;
  const T *bi = bias, *bf = bias + H, *bg = bias + 2 * H, *bo = bias + 3 * H;
#pragma omp simd
  for (int64_t j = 0; j < H; ++j) {
    const T i = sigm(gi[j] + bi[j]), f = sigm(gf[j] + bf[j]), n = std::tanh(gg[j] + bg[j]), o = sigm(go[j] + bo[j]);
    const T cn = f * c_prev[j] + i * n;
    gi[j] = i;
    gf[j] = f;
    gg[j] = n;
    go[j] = o;
    c[j] = cn;
    h[j] = o * std::tanh(cn);
  }
}

// dh: gradient reaching h_t through the recurrence (read); dy: through the output (read when kDy);
// dc: gradient of c_t in, of c_{t-1} out. Writes the pre-activation gradients dg (i, f, g, o).
template <class T, bool kDy>
TOCHA_SIMD_CLONES void lstm_backward_row(const T* g, const T* c, const T* c_prev, const T* dh, const T* dy, T* dc,
                                         T* dg, int64_t H) {
  const T *gi = g, *gf = g + H, *gg = g + 2 * H, *go = g + 3 * H;
  T *di = dg, *df = dg + H, *dn = dg + 2 * H, *dout = dg + 3 * H;
#pragma omp simd
  for (int64_t j = 0; j < H; ++j) {
    const T i = gi[j], f = gf[j], n = gg[j], o = go[j];
    const T tc = std::tanh(c[j]);
    T dht = dh[j];
    if constexpr (kDy) dht += dy[j];
    const T dct = dc[j] + dht * o * (T(1) - tc * tc);
    di[j] = dct * n * i * (T(1) - i);
    df[j] = dct * c_prev[j] * f * (T(1) - f);
    dn[j] = dct * i * (T(1) - n * n);
    dout[j] = dht * tc * o * (T(1) - o);
    dc[j] = dct * f;
  }
}

// ---- GRU: xg = input projections (r, z, n) less b_ih (3H values), replaced by the activations;
// hg = recurrent projections incl. b_hh. ws row = [r z n hn]; h written. ----------------------
template <class T>
TOCHA_SIMD_CLONES void gru_forward_row(T* ws, const T* b_ih, const T* hg, const T* h_prev, T* h, int64_t H) {
  T *wr = ws, *wz = ws + H, *wn = ws + 2 * H, *whn = ws + 3 * H;
  const T *br = b_ih, *bz = b_ih + H, *bn = b_ih + 2 * H;
  const T *hr = hg, *hz = hg + H, *hn = hg + 2 * H;
#pragma omp simd
  for (int64_t j = 0; j < H; ++j) {
    const T r = sigm(wr[j] + br[j] + hr[j]), z = sigm(wz[j] + bz[j] + hz[j]);
    const T n = std::tanh(wn[j] + bn[j] + r * hn[j]);
    wr[j] = r;
    wz[j] = z;
    wn[j] = n;
    whn[j] = hn[j];
    h[j] = (T(1) - z) * n + z * h_prev[j];
  }
}

// dh: gradient of h_t through the recurrence in, the direct part of dh_{t-1} (z * dh_t) out; the
// recurrent GEMM adds the rest. dg row = [dr dz dn (input part) | dr dz r*dn (recurrent part)].
template <class T, bool kDy>
TOCHA_SIMD_CLONES void gru_backward_row(const T* ws, const T* h_prev, T* dh, const T* dy, T* dg, int64_t H) {
  const T *wr = ws, *wz = ws + H, *wn = ws + 2 * H, *whn = ws + 3 * H;
  T *dxr = dg, *dxz = dg + H, *dxn = dg + 2 * H, *dhr = dg + 3 * H, *dhz = dg + 4 * H, *dhn = dg + 5 * H;
#pragma omp simd
  for (int64_t j = 0; j < H; ++j) {
    const T r = wr[j], z = wz[j], n = wn[j];
    T dht = dh[j];
    if constexpr (kDy) dht += dy[j];
    const T dnp = dht * (T(1) - z) * (T(1) - n * n);
    const T dzp = dht * (h_prev[j] - n) * z * (T(1) - z);
    const T drp = dnp * whn[j] * r * (T(1) - r);
    dxr[j] = drp;
    dxz[j] = dzp;
    dxn[j] = dnp;
    dhr[j] = drp;
    dhz[j] = dzp;
    dhn[j] = dnp * r;
    dh[j] = dht * z;
  }
}

// ---- plain RNN: pre-activations less their bias (b_ih + b_hh) in y, replaced by the activations --
template <class T> TOCHA_SIMD_CLONES void tanh_forward_row(T* y, const T* bias, int64_t n) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) y[j] = std::tanh(y[j] + bias[j]);
}
template <class T> TOCHA_SIMD_CLONES void relu_forward_row(T* y, const T* bias, int64_t n) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) {
    const T v = y[j] + bias[j];
    y[j] = v > T(0) ? v : T(0);
  }
}
// dg = (dh + dy) * f'(pre), with f' read off the output y: 1 - y^2 (tanh), y > 0 (relu).
template <class T, bool kDy>
TOCHA_SIMD_CLONES void rnn_backward_row(bool relu, const T* y, const T* dh, const T* dy, T* dg, int64_t n) {
  if (relu) {
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) {
      T d = dh[j];
      if constexpr (kDy) d += dy[j];
      dg[j] = y[j] > T(0) ? d : T(0);
    }
  } else {
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) {
      T d = dh[j];
      if constexpr (kDy) d += dy[j];
      dg[j] = d * (T(1) - y[j] * y[j]);
    }
  }
}

}  // namespace rnn
}  // namespace cpu
}  // namespace tocha
