// Recurrent-layer front-ends: one layer of a plain RNN, LSTM or GRU over a whole sequence, with
// PyTorch's gate order and weight layout (weight_ih: G*H x I, weight_hh: G*H x H, biases G*H).
// nn.RNN/LSTM/GRU and the cells stack and drive them (lua/nn/RNNBase.lua, RNNCellBase.lua).
#pragma once
#include "core/ops/rnn_kernels.h"
#include "core/tensor.h"

namespace tocha {

struct RnnLayerResult {
  Tensor output;     // T x B x H: h_t for every step
  Tensor h_n, c_n;   // B x H final states (c_n: LSTM only)
  Tensor workspace;  // what the backward needs (Note [RNN workspace]); opaque to callers
};

// x is T x B x I; h0 and c0 (LSTM only) are B x H or undefined (zeros); biases may be undefined.
// Records an autograd node (op rnnLayer, inputs x h0 c0 w_ih w_hh b_ih b_hh; outputs output,
// h_n[, c_n]) when grad mode is on and an input requires grad.
RnnLayerResult rnn_layer(RnnMode mode, const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& w_ih,
                         const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh);

struct RnnLayerGrads {
  Tensor dx;      // T x B x I (undefined unless asked for)
  Tensor dh0;     // B x H
  Tensor dc0;     // B x H (LSTM)
  Tensor dgates;  // T x B x rnn_dgates_width: the input of rnn_layer_weight_grads
};

// The backward of rnn_layer (never recorded) from the gradients of output, h_n and c_n (each may
// be undefined: zero). h0/c0 are those given to the forward (undefined: zeros).
RnnLayerGrads rnn_layer_backward(RnnMode mode, const Tensor& x, const Tensor& h0, const Tensor& c0,
                                 const Tensor& w_ih, const Tensor& w_hh, const Tensor& output,
                                 const Tensor& workspace, const Tensor& dy, const Tensor& dh_n, const Tensor& dc_n,
                                 bool need_dx);

// g = beta * g + alpha * (gradient of its weight) for each defined g (gw_ih, gw_hh, gb_ih, gb_hh),
// from the dgates of rnn_layer_backward; beta 0 overwrites (Torch7's accGradParameters uses 1).
void rnn_layer_weight_grads(RnnMode mode, const Tensor& x, const Tensor& h0, const Tensor& output,
                            const Tensor& dgates, double alpha, double beta, const Tensor& gw_ih, const Tensor& gw_hh,
                            const Tensor& gb_ih, const Tensor& gb_hh);

// "LSTM", "GRU", "RNN_TANH", "RNN_RELU" (PyTorch's mode names), for messages.
const char* rnn_mode_name(RnnMode mode);

}  // namespace tocha
