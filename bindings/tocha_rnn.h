/* tocha_rnn.h -- C ABI of the recurrent layers (core/ops/rnn.h): one RNN/LSTM/GRU layer over a
 * whole sequence with PyTorch's gate order and weight layout, its backward and its weight
 * gradients. Included by tocha.h; see its conventions. Sequences are time-major (T x B x F);
 * optional tensors are NULL. Results come through a caller-provided array of 4 slots, each set
 * to a new reference or NULL. */
#ifndef TOCHA_RNN_ABI_H
#define TOCHA_RNN_ABI_H

enum { TOCHA_RNN_TANH = 0, TOCHA_RNN_RELU = 1, TOCHA_RNN_LSTM = 2, TOCHA_RNN_GRU = 3 };

/* results: output (T x B x H), h_n, c_n (LSTM only) and the workspace the backward needs.
 * Records an autograd node when grad mode is on and an input requires grad. */
TOCHA_API int tocha_rnn_layer(int mode, const tocha_tensor *x, const tocha_tensor *h0, const tocha_tensor *c0,
                              const tocha_tensor *w_ih, const tocha_tensor *w_hh, const tocha_tensor *b_ih,
                              const tocha_tensor *b_hh, tocha_tensor **results) TOCHA_NOEXCEPT;
/* The backward of tocha_rnn_layer (not recorded), from the gradients of output, h_n, c_n (NULL:
 * zero). results: dx (when need_dx), dh0 (when h0 given), dc0 (when c0 given), dgates. */
TOCHA_API int tocha_rnn_layer_backward(int mode, const tocha_tensor *x, const tocha_tensor *h0,
                                       const tocha_tensor *c0, const tocha_tensor *w_ih, const tocha_tensor *w_hh,
                                       const tocha_tensor *output, const tocha_tensor *workspace,
                                       const tocha_tensor *dy, const tocha_tensor *dh_n, const tocha_tensor *dc_n,
                                       int need_dx, tocha_tensor **results) TOCHA_NOEXCEPT;
/* g = beta * g + alpha * (its weight gradient) for each non-NULL g, from dgates of the backward. */
TOCHA_API int tocha_rnn_layer_weight_grads(int mode, const tocha_tensor *x, const tocha_tensor *h0,
                                           const tocha_tensor *output, const tocha_tensor *dgates, double alpha,
                                           double beta, tocha_tensor *gw_ih, tocha_tensor *gw_hh,
                                           tocha_tensor *gb_ih, tocha_tensor *gb_hh) TOCHA_NOEXCEPT;

#endif
