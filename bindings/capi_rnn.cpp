// C ABI of the recurrent layers (bindings/tocha_rnn.h).
#include "capi.h"
#include "core/ops/rnn.h"

using namespace tocha;
using namespace tocha::capi;

namespace {

Tensor opt(const tocha_tensor* t, const char* op) { return t ? Tensor(arg(t, op).get()) : Tensor(); }

RnnMode arg_mode(int mode, const char* op) {
  TOCHA_CHECK(mode >= 0 && mode < kNumRnnModes, op, "mode must be 0 (tanh), 1 (relu), 2 (LSTM) or 3 (GRU), got ", mode);
  return RnnMode(mode);
}

// Hands each defined tensor's reference to results[k] (after the whole call succeeded).
void give(tocha_tensor** results, Tensor* ts, int n) {
  for (int k = 0; k < n; ++k) results[k] = ts[k].defined() ? ts[k].release() : nullptr;
}

}  // namespace

int tocha_rnn_layer(int mode, const tocha_tensor* x, const tocha_tensor* h0, const tocha_tensor* c0,
                    const tocha_tensor* w_ih, const tocha_tensor* w_hh, const tocha_tensor* b_ih,
                    const tocha_tensor* b_hh, tocha_tensor** results) noexcept {
  const char* op = "rnnLayer";
  return guard_int([&] {
    TOCHA_CHECK(results, op, "results pointer is NULL");
    RnnLayerResult r = rnn_layer(arg_mode(mode, op), arg(x, op), opt(h0, op), opt(c0, op), arg(w_ih, op),
                                 arg(w_hh, op), opt(b_ih, op), opt(b_hh, op));
    Tensor ts[4] = {r.output, r.h_n, r.c_n, r.workspace};
    give(results, ts, 4);
  });
}

int tocha_rnn_layer_backward(int mode, const tocha_tensor* x, const tocha_tensor* h0, const tocha_tensor* c0,
                             const tocha_tensor* w_ih, const tocha_tensor* w_hh, const tocha_tensor* output,
                             const tocha_tensor* workspace, const tocha_tensor* dy, const tocha_tensor* dh_n,
                             const tocha_tensor* dc_n, int need_dx, tocha_tensor** results) noexcept {
  const char* op = "rnnLayerBackward";
  return guard_int([&] {
    TOCHA_CHECK(results, op, "results pointer is NULL");
    RnnLayerGrads r = rnn_layer_backward(arg_mode(mode, op), arg(x, op), opt(h0, op), opt(c0, op), arg(w_ih, op),
                                         arg(w_hh, op), arg(output, op), arg(workspace, op), opt(dy, op),
                                         opt(dh_n, op), opt(dc_n, op), need_dx != 0);
    Tensor ts[4] = {r.dx, r.dh0, r.dc0, r.dgates};
    give(results, ts, 4);
  });
}

int tocha_rnn_layer_weight_grads(int mode, const tocha_tensor* x, const tocha_tensor* h0, const tocha_tensor* output,
                                 const tocha_tensor* dgates, double alpha, double beta, tocha_tensor* gw_ih,
                                 tocha_tensor* gw_hh, tocha_tensor* gb_ih, tocha_tensor* gb_hh) noexcept {
  const char* op = "rnnLayerWeightGrads";
  return guard_int([&] {
    rnn_layer_weight_grads(arg_mode(mode, op), arg(x, op), opt(h0, op), arg(output, op), arg(dgates, op), alpha,
                           beta, opt(gw_ih, op), opt(gw_hh, op), opt(gb_ih, op), opt(gb_hh, op));
  });
}
