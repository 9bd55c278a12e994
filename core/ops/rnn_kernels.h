// Kernel signatures of the recurrent-layer ops (rnnLayer, rnnLayerBackward, rnnLayerWeightGrads):
// the contract between core/ops/rnn.cpp and kernels/cpu/rnn*.cpp. Every tensor is contiguous,
// time-major (T x B x F) and of one float dtype; kernels never validate.
#pragma once
#include <cstdint>

namespace tocha {

// PyTorch's cell kinds, in its gate order: LSTM (i, f, g, o), GRU (r, z, n), plain RNN (one gate).
enum class RnnMode : int32_t { tanh = 0, relu = 1, lstm = 2, gru = 3 };
constexpr int kNumRnnModes = 4;

inline int64_t rnn_gates(RnnMode m) { return m == RnnMode::lstm ? 4 : m == RnnMode::gru ? 3 : 1; }
// Note [RNN workspace]: what the forward keeps per (t, b) for the backward, in units of H:
//   LSTM: i f g o (activated gates) and c_t                     -> 5H
//   GRU:  r z n (activated gates) and W_hn h_{t-1} + b_hn        -> 4H
//   RNN:  nothing (the derivative of tanh/relu is read off the output) -> 0
// The input projections of all time steps are computed into the gate slots by one GEMM before
// the time loop; each step adds its recurrent GEMM and runs the fused pointwise cell in place.
inline int64_t rnn_workspace_width(RnnMode m, int64_t H) {
  return m == RnnMode::lstm ? 5 * H : m == RnnMode::gru ? 4 * H : 0;
}
// Width of the gate gradients per (t, b): LSTM/RNN G*H (the same for the input and the recurrent
// weights); GRU 6H = [d(input part) 3H | d(recurrent part) 3H], since r gates only W_hn h.
inline int64_t rnn_dgates_width(RnnMode m, int64_t H) { return m == RnnMode::gru ? 6 * H : rnn_gates(m) * H; }

struct RnnShape {
  RnnMode mode;
  int64_t T, B, I, H;  // sequence length, batch, input features, hidden features
};

// y, ws, h_n, c_n (LSTM) are written; h0/c0 are always given (zeros when the caller had none;
// h0_zero lets the first recurrent GEMM be skipped). b_ih/b_hh may be null.
struct RnnForwardArgs {
  RnnShape s;
  const void *x, *h0, *c0, *w_ih, *w_hh, *b_ih, *b_hh;
  bool h0_zero;
  void *y, *ws, *h_n, *c_n;
};
using RnnForwardKernel = void (*)(const RnnForwardArgs&);

// From the gradients of y (T x B x H), h_n and c_n (each may be null: zero), computes the gate
// gradients dg (T x B x dgates_width), dh0, dc0 (LSTM) and, when dx is non-null, dx (T x B x I).
struct RnnBackwardArgs {
  RnnShape s;
  const void *x, *h0, *c0, *w_ih, *w_hh, *y, *ws;
  bool h0_zero;
  const void *dy, *dh_n, *dc_n;
  void *dx, *dh0, *dc0, *dg;
};
using RnnBackwardKernel = void (*)(const RnnBackwardArgs&);

// g = beta * g + alpha * (gradient of the weight) for each non-null g: gw_ih (G*H x I), gw_hh
// (G*H x H), gb_ih and gb_hh (G*H), from the gate gradients dg of rnnLayerBackward. beta == 0
// ignores old values.
struct RnnWeightGradArgs {
  RnnShape s;
  const void *x, *h0, *y, *dg;
  bool h0_zero;
  double alpha, beta;
  void *gw_ih, *gw_hh, *gb_ih, *gb_hh;
};
using RnnWeightGradKernel = void (*)(const RnnWeightGradArgs&);

}  // namespace tocha
