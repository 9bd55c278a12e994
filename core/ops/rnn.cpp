// Recurrent-layer front-ends: checks naming the op and what it received, contiguous operands,
// zeros for missing initial states, the kernel call and the autograd node. See rnn.h.
#include "core/ops/rnn.h"
#include "core/type_name.h"
#include "core/autograd/grad_mode.h"
#include "core/autograd/record.h"
#include "core/kernel_registry.h"
#include "core/ops/linalg_util.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"

namespace tocha {

const char* rnn_mode_name(RnnMode mode) {
  switch (mode) {
    case RnnMode::tanh: return "RNN_TANH";
    case RnnMode::relu: return "RNN_RELU";
    case RnnMode::lstm: return "LSTM";
    case RnnMode::gru: return "GRU";
  }
  return "?";
}

namespace {

void check_size(const char* op, const char* name, const Tensor& t, const DimVec& want, const char* what) {
  TOCHA_CHECK(t.sizes() == want, op, name, " is ", shape_str(t.sizes()), " but expected ", shape_str(want), what);
}

// Validated, contiguous operands of one layer; missing initial states are zeros.
struct Layer {
  RnnShape s;
  Tensor x, h0, c0, w_ih, w_hh, b_ih, b_hh;
  bool h0_zero = false;
};

Layer check_layer(const char* op, RnnMode mode, const Tensor& x, const Tensor& h0, const Tensor& c0,
                  const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  TOCHA_CHECK(int(mode) >= 0 && int(mode) < kNumRnnModes, op, "mode must be 0 (tanh), 1 (relu), 2 (LSTM) or 3 (GRU), "
              "got ", int(mode));
  TOCHA_CHECK(x.dim() == 3, op, "input must be 3D (seqLen x batch x features), got size ", shape_str(x.sizes()));
  TOCHA_CHECK(is_floating(x.dtype()), op, "input is a ", tensor_type_name(x),
              "; expected a floating-point tensor");
  TOCHA_CHECK(x.size(0) > 0 && x.size(1) > 0, op, "input is ", shape_str(x.sizes()),
              ": the sequence length and the batch size must be positive");
  TOCHA_CHECK(w_hh.dim() == 2, op, "weight_hh must be 2D, got size ", shape_str(w_hh.sizes()));
  const int64_t G = rnn_gates(mode), H = w_hh.size(1), T = x.size(0), B = x.size(1), I = x.size(2);
  TOCHA_CHECK(H > 0 && w_hh.size(0) == G * H, op, "weight_hh is ", shape_str(w_hh.sizes()), " but a ",
              rnn_mode_name(mode), " layer needs ", G, "*hidden rows (", G * H, "x", H, ")");
  check_size(op, "weight_ih", w_ih, {G * H, I}, " ((gates*hidden) x input features)");
  if (b_ih.defined()) check_size(op, "bias_ih", b_ih, {G * H}, "");
  if (b_hh.defined()) check_size(op, "bias_hh", b_hh, {G * H}, "");
  if (h0.defined()) check_size(op, "h0", h0, {B, H}, " (batch x hidden)");
  if (c0.defined()) {
    TOCHA_CHECK(mode == RnnMode::lstm, op, "c0 is only used by LSTM layers, not ", rnn_mode_name(mode));
    check_size(op, "c0", c0, {B, H}, " (batch x hidden)");
  }
  for (int64_t v : {T * B, G * H, I}) linalg::check_blas_size(op, v);
  const char* names[] = {"weight_ih", "weight_hh", "bias_ih", "bias_hh", "h0", "c0"};
  const Tensor* others[] = {&w_ih, &w_hh, &b_ih, &b_hh, &h0, &c0};
  for (int k = 0; k < 6; ++k)
    if (others[k]->defined()) linalg::check_same_type(op, "input", x, names[k], *others[k]);
  Layer L;
  L.s = RnnShape{mode, T, B, I, H};
  L.x = contiguous(x);
  L.w_ih = contiguous(w_ih);
  L.w_hh = contiguous(w_hh);
  if (b_ih.defined()) L.b_ih = contiguous(b_ih);
  if (b_hh.defined()) L.b_hh = contiguous(b_hh);
  L.h0_zero = !h0.defined();
  L.h0 = h0.defined() ? contiguous(h0) : zeros({B, H}, x.dtype(), x.device());
  if (mode == RnnMode::lstm) L.c0 = c0.defined() ? contiguous(c0) : zeros({B, H}, x.dtype(), x.device());
  return L;
}

const void* ptr(const Tensor& t) { return t.defined() ? t.raw_data() : nullptr; }
void* mut_ptr(const Tensor& t) { return t.defined() && t.numel() > 0 ? t.raw_data() : nullptr; }

// A gradient argument: checked against the size of what it is the gradient of, made contiguous.
Tensor grad_arg(const char* op, const char* name, const Tensor& g, const DimVec& want, const Tensor& like) {
  if (!g.defined()) return g;
  check_size(op, name, g, want, "");
  linalg::check_same_type(op, "input", like, name, g);
  return contiguous(g);
}

}  // namespace

RnnLayerResult rnn_layer(RnnMode mode, const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& w_ih,
                         const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  autograd::Recording rec(OpId::rnnLayer, nullptr, {&x, &h0, &c0, &w_ih, &w_hh, &b_ih, &b_hh});
  Layer L = check_layer("rnnLayer", mode, x, h0, c0, w_ih, w_hh, b_ih, b_hh);
  auto kernel = kernel_for<RnnForwardKernel>(OpId::rnnLayer, x.device().type, x.dtype());
  const RnnShape& s = L.s;
  RnnLayerResult r;
  r.output = empty({s.T, s.B, s.H}, x.dtype(), x.device());
  r.workspace = empty({s.T, s.B, rnn_workspace_width(mode, s.H)}, x.dtype(), x.device());
  r.h_n = empty({s.B, s.H}, x.dtype(), x.device());
  if (mode == RnnMode::lstm) r.c_n = empty({s.B, s.H}, x.dtype(), x.device());
  RnnForwardArgs a{s,           L.x.raw_data(), L.h0.raw_data(), ptr(L.c0),  L.w_ih.raw_data(),
                   L.w_hh.raw_data(), ptr(L.b_ih), ptr(L.b_hh), L.h0_zero, r.output.raw_data(),
                   mut_ptr(r.workspace), r.h_n.raw_data(), mut_ptr(r.c_n)};
  kernel(a);
  std::vector<const Tensor*> outs{&r.output, &r.h_n};
  if (r.c_n.defined()) outs.push_back(&r.c_n);
  if (auto n = rec.finish({&x, &h0, &c0, &w_ih, &w_hh, &b_ih, &b_hh}, outs)) {
    // Note [Saved by rnnLayer]: slots x h0 c0 w_ih w_hh output workspace, as the kernel used them
    // (contiguous; zeros for missing states); attrs.i[0] is the mode, i[1] whether h0 was missing.
    n->save(L.x);
    n->save(L.h0);
    n->save(L.c0);
    n->save(L.w_ih);
    n->save(L.w_hh);
    n->save(r.output, true, 0);
    n->save(r.workspace);
    n->attrs.i[0] = int64_t(mode);
    n->attrs.i[1] = L.h0_zero ? 1 : 0;
  }
  return r;
}

RnnLayerGrads rnn_layer_backward(RnnMode mode, const Tensor& x, const Tensor& h0, const Tensor& c0,
                                 const Tensor& w_ih, const Tensor& w_hh, const Tensor& output,
                                 const Tensor& workspace, const Tensor& dy, const Tensor& dh_n, const Tensor& dc_n,
                                 bool need_dx) {
  const char* op = "rnnLayerBackward";
  autograd::GradModeGuard off(false);
  Layer L = check_layer(op, mode, x, h0, c0, w_ih, w_hh, Tensor(), Tensor());
  const RnnShape& s = L.s;
  check_size(op, "output", output, {s.T, s.B, s.H}, " (the output of the forward)");
  check_size(op, "workspace", workspace, {s.T, s.B, rnn_workspace_width(mode, s.H)}, " (the workspace of the forward)");
  linalg::check_same_type(op, "input", x, "output", output);
  linalg::check_same_type(op, "input", x, "workspace", workspace);
  TOCHA_CHECK(mode == RnnMode::lstm || !dc_n.defined(), op, "dc_n is only used by LSTM layers");
  Tensor y = contiguous(output), ws = contiguous(workspace);
  Tensor gy = grad_arg(op, "dy", dy, {s.T, s.B, s.H}, x);
  Tensor gh = grad_arg(op, "dh_n", dh_n, {s.B, s.H}, x);
  Tensor gc = grad_arg(op, "dc_n", dc_n, {s.B, s.H}, x);
  auto kernel = kernel_for<RnnBackwardKernel>(OpId::rnnLayerBackward, x.device().type, x.dtype());
  RnnLayerGrads r;
  if (need_dx) r.dx = empty({s.T, s.B, s.I}, x.dtype(), x.device());
  r.dh0 = empty({s.B, s.H}, x.dtype(), x.device());
  if (mode == RnnMode::lstm) r.dc0 = empty({s.B, s.H}, x.dtype(), x.device());
  r.dgates = empty({s.T, s.B, rnn_dgates_width(mode, s.H)}, x.dtype(), x.device());
  RnnBackwardArgs a{s,         L.x.raw_data(), L.h0.raw_data(), ptr(L.c0), L.w_ih.raw_data(), L.w_hh.raw_data(),
                    y.raw_data(), ptr(ws),     L.h0_zero,       ptr(gy),   ptr(gh),           ptr(gc),
                    mut_ptr(r.dx), r.dh0.raw_data(), mut_ptr(r.dc0), r.dgates.raw_data()};
  kernel(a);
  // Without a given state there is nothing to differentiate (and the kernel skips its last GEMM).
  if (!h0.defined()) r.dh0 = Tensor();
  if (!c0.defined()) r.dc0 = Tensor();
  return r;
}

void rnn_layer_weight_grads(RnnMode mode, const Tensor& x, const Tensor& h0, const Tensor& output,
                            const Tensor& dgates, double alpha, double beta, const Tensor& gw_ih, const Tensor& gw_hh,
                            const Tensor& gb_ih, const Tensor& gb_hh) {
  const char* op = "rnnLayerWeightGrads";
  autograd::GradModeGuard off(false);
  TOCHA_CHECK(int(mode) >= 0 && int(mode) < kNumRnnModes, op, "invalid mode ", int(mode));
  TOCHA_CHECK(x.dim() == 3 && x.size(0) > 0 && x.size(1) > 0 && is_floating(x.dtype()), op,
              "input must be a non-empty 3D floating-point tensor, got a ", tensor_type_name(x), " of size ",
              shape_str(x.sizes()));
  TOCHA_CHECK(output.dim() == 3 && output.size(2) > 0, op, "output must be 3D, got size ", shape_str(output.sizes()));
  const int64_t T = x.size(0), B = x.size(1), I = x.size(2), H = output.size(2), GH = rnn_gates(mode) * H;
  for (int64_t v : {T * B, GH, I}) linalg::check_blas_size(op, v);
  check_size(op, "output", output, {T, B, H}, " (the output of the forward)");
  check_size(op, "dgates", dgates, {T, B, rnn_dgates_width(mode, H)}, " (from rnnLayerBackward)");
  if (h0.defined()) check_size(op, "h0", h0, {B, H}, " (batch x hidden)");
  const char* names[] = {"output", "dgates", "h0", "gradWeight_ih", "gradWeight_hh", "gradBias_ih", "gradBias_hh"};
  const Tensor* all[] = {&output, &dgates, &h0, &gw_ih, &gw_hh, &gb_ih, &gb_hh};
  for (int k = 0; k < 7; ++k)
    if (all[k]->defined()) linalg::check_same_type(op, "input", x, names[k], *all[k]);
  const DimVec want[] = {{GH, I}, {GH, H}, {GH}, {GH}};
  Tensor targets[4];
  for (int k = 0; k < 4; ++k) {
    const Tensor& g = *all[3 + k];
    if (!g.defined()) continue;
    check_size(op, names[3 + k], g, want[k], "");
    targets[k] = contiguous(g);  // g itself when contiguous; else a copy written back below
  }
  auto kernel = kernel_for<RnnWeightGradKernel>(OpId::rnnLayerWeightGrads, x.device().type, x.dtype());
  Tensor xc = contiguous(x), yc = contiguous(output), dg = contiguous(dgates);
  Tensor hc = h0.defined() ? contiguous(h0) : Tensor();
  RnnWeightGradArgs a{RnnShape{mode, T, B, I, H}, xc.raw_data(), ptr(hc), yc.raw_data(), dg.raw_data(),
                      !h0.defined(), alpha, beta, mut_ptr(targets[0]), mut_ptr(targets[1]), mut_ptr(targets[2]),
                      mut_ptr(targets[3])};
  kernel(a);
  for (int k = 0; k < 4; ++k) {
    const Tensor& g = *all[3 + k];
    if (!g.defined()) continue;
    if (targets[k].is_same(g)) g.bump_version();
    else copy_(g, targets[k]);
  }
}

}  // namespace tocha
