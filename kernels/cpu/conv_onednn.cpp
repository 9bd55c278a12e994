// f32 convolutions on oneDNN's CPU primitives (Debian's libdnnl, the library PyTorch's CPU
// convolutions use): the forward convolution, its input gradient and its weight gradient, with
// their tensors reordered between our contiguous N x C x spatial layout and the blocked layouts
// oneDNN chooses.
//
// Note [oneDNN convolutions]: on an AVX-512 machine our im2col + OpenBLAS path ran the CNN's second
// layer (32 -> 64 channels, 3x3 on 14x14, batch 64) at 85-95 GFLOP/s where oneDNN's JIT kernels
// reach 165 (forward, reorders included) and take half the time of each backward pass. So f32
// convolutions with at least kMinChannels input channels per group go to oneDNN when the build
// found it; thinner filters (a first layer on grey images) stay on im2col, where reordering
// costs more than the convolution saves (measured: 1 -> 32 channels, 0.75 against 0.60 ms).
// - Primitives are made with format `any` and cached per thread (onednn_cache.h), keyed by (pass,
//   geometry, bias), at most kCacheEntries (making one takes a millisecond or more).
// - Blocked copies live in the per-thread scratch buffer (kernels/cpu/scratch.h), so a training
//   loop allocates nothing per call.
// - The weight gradient is written straight into the result when alpha = 1 and beta = 0 and
//   oneDNN keeps the plain layout; otherwise into scratch, then w = beta * w + alpha * dw. The
//   bias gradient, when asked for, is the primitive's diff_bias (Note [Fused bias gradient]).
// - Any oneDNN error (an unsupported geometry, out of memory) returns false: the caller's im2col
//   path computes the op instead, and every output it writes is complete.
// - oneDNN threads with the same OpenMP runtime as our kernels and OpenBLAS, so
//   torch.setnumthreads governs it too.
#include "kernels/cpu/conv_onednn.h"
#include <atomic>
#include "core/device_runtime.h"

#ifdef TOCHA_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#include <omp.h>
#include <cstring>
#include <unordered_map>
#include <vector>
#include "kernels/cpu/onednn_cache.h"
#include "kernels/cpu/scratch.h"
#endif

namespace tocha {
namespace cpu {
namespace {
std::atomic<bool> g_enabled{env_flag("TOCHA_MKLDNN", true)};
std::atomic<int64_t> g_ran{0}, g_failed{0}, g_winograd{0};
}  // namespace
OnednnStats onednn_stats() { return {g_ran.load(), g_failed.load(), g_winograd.load()}; }

#ifndef TOCHA_HAVE_ONEDNN
bool onednn_available() { return false; }
bool onednn_enabled() { return false; }
void set_onednn_enabled(bool on) { g_enabled.store(on, std::memory_order_relaxed); }
bool onednn_conv(const ConvArgs&) { return false; }
bool onednn_conv_transpose(const ConvArgs&) { return false; }
bool onednn_conv_weight(const ConvArgs&) { return false; }
#else
bool onednn_available() { return true; }
bool onednn_enabled() { return g_enabled.load(std::memory_order_relaxed); }
void set_onednn_enabled(bool on) { g_enabled.store(on, std::memory_order_relaxed); }

namespace {
using dnnl::memory;
using tag = memory::format_tag;
constexpr int64_t kMinChannels = 4;
constexpr size_t kCacheEntries = 64;

enum class Pass { forward, input_grad, weight_grad };

// The geometry as oneDNN's dims: 2-D when the depth dim is the padding of a 1-D or 2-D call.
struct Dims {
  bool three;
  memory::dims x, y, w, b, stride, dilate, pad;
  explicit Dims(const ConvGeometry& g) {
    // a depth padding matters even for a single plane: its windows may lie in the padding alone
    three = g.in_size[0] != 1 || g.kernel[0] != 1 || g.out_size[0] != 1 || g.pad[0] != 0;
    const int first = three ? 0 : 1;
    const int64_t G = g.groups, Og = g.out_channels / G, Cg = g.in_channels / G;
    x = {g.batch, g.in_channels};
    y = {g.batch, g.out_channels};
    w = G > 1 ? memory::dims{G, Og, Cg} : memory::dims{g.out_channels, Cg};
    b = {g.out_channels};
    for (int d = first; d < 3; ++d) {
      x.push_back(g.in_size[d]);
      y.push_back(g.out_size[d]);
      w.push_back(g.kernel[d]);
      stride.push_back(g.stride[d]);
      dilate.push_back(g.dilation[d] - 1);  // oneDNN counts the gaps
      pad.push_back(g.pad[d]);
    }
  }
  tag act() const { return three ? tag::ncdhw : tag::nchw; }
  tag wt(bool grouped) const {
    return grouped ? (three ? tag::goidhw : tag::goihw) : (three ? tag::oidhw : tag::oihw);
  }
};

// One tensor of a pass: its argument, our plain layout, the one the primitive chose, and the
// reorder between them when they differ (into the primitive for inputs, out of it for the output).
struct Operand {
  int arg = 0;
  memory::desc plain, chosen;
  dnnl::reorder reorder;
  bool reordered = false;
};

struct Entry {
  std::vector<int64_t> key;
  dnnl::primitive prim;
  Operand in[2], out;
  memory::desc bias;  // the forward's bias or the weight gradient's diff_bias (channel values), if any
  bool winograd = false;  // the implementation oneDNN chose (counted in onednn_stats)
};

using Context = OnednnThreadCache<Entry>;

// oneDNN fixes a primitive's thread split when it makes it: the thread count is part of the key.
std::vector<int64_t> key_of(Pass pass, const ConvGeometry& g, bool bias) {
  std::vector<int64_t> k = {int64_t(pass), bias, omp_get_max_threads(), g.batch, g.groups, g.in_channels,
                            g.out_channels};
  for (const int64_t* v : {g.in_size, g.out_size, g.kernel, g.stride, g.pad, g.dilation}) k.insert(k.end(), v, v + 3);
  return k;
}

void set_operand(Operand& o, int arg, const memory::desc& plain, const memory::desc& chosen, const dnnl::engine& e,
                 bool input) {
  o.arg = arg;
  o.plain = plain;
  o.chosen = chosen;
  o.reordered = plain != chosen;
  if (o.reordered)
    o.reorder = input ? dnnl::reorder(dnnl::reorder::primitive_desc(e, plain, e, chosen))
                      : dnnl::reorder(dnnl::reorder::primitive_desc(e, chosen, e, plain));
}

// Note [oneDNN Winograd]: oneDNN's `auto` algorithm runs a 3x3 stride-1 convolution as Winograd
// F(4x4, 3x3) (its jit_wino_4x3 kernels, AVX-512) where its heuristics expect that to be faster,
// else the direct kernels. At one thread on an AVX-512 Xeon (forward / both backward passes, ms):
// the CNN's 32 -> 64 on 14x14 at batch 64 3.00 / 6.18 -> 2.62 / 5.50; 128 -> 128 on 28x28 at batch
// 16 22.96 / 42.7 -> 10.5 / 24.5; 64 -> 64 on 8x8 1.76 / 3.81 -> 1.26 / 2.66. It also took 16 -> 16
// on 32x32, which got slower (1.44 / 2.67 -> 1.68 / 3.21: the transforms outweigh a 16 x 16
// product per tile), so filters with fewer than 32 x 32 channel pairs per group stay direct.
// Winograd rounds differently: relative errors against f64 of ~1.5e-6 instead of ~4e-7 (forward,
// input gradient), as with cuDNN's Winograd algorithms.
bool is_winograd(const dnnl::primitive_desc_base& pd) {
  return std::strstr(pd.impl_info_str(), "wino") != nullptr;
}

bool winograd_may_pay(const ConvGeometry& g) {
  const int64_t Cg = g.in_channels / g.groups, Og = g.out_channels / g.groups;
  return Cg * Og >= 32 * 32;
}

Entry make_entry(Pass pass, const ConvGeometry& g, bool bias, const dnnl::engine& e) {
  const Dims d(g);
  const auto f32 = memory::data_type::f32;
  const memory::desc x_any(d.x, f32, tag::any), y_any(d.y, f32, tag::any), w_any(d.w, f32, tag::any);
  const memory::desc x_plain(d.x, f32, d.act()), y_plain(d.y, f32, d.act()), w_plain(d.w, f32, d.wt(g.groups > 1));
  const memory::desc b_plain(d.b, f32, tag::x);
  const auto algo = winograd_may_pay(g) ? dnnl::algorithm::convolution_auto : dnnl::algorithm::convolution_direct;
  using fwd = dnnl::convolution_forward;
  const auto fwd_desc = bias ? fwd::desc(dnnl::prop_kind::forward_training, algo, x_any, w_any, b_plain, y_any,
                                         d.stride, d.dilate, d.pad, d.pad)
                             : fwd::desc(dnnl::prop_kind::forward_training, algo, x_any, w_any, y_any, d.stride,
                                         d.dilate, d.pad, d.pad);
  const fwd::primitive_desc fwd_pd(fwd_desc, e);
  Entry entry;
  entry.key = key_of(pass, g, bias);
  if (bias) entry.bias = b_plain;
  if (pass == Pass::forward) {
    entry.prim = fwd(fwd_pd);
    entry.winograd = is_winograd(fwd_pd);
    set_operand(entry.in[0], DNNL_ARG_SRC, x_plain, fwd_pd.src_desc(), e, true);
    set_operand(entry.in[1], DNNL_ARG_WEIGHTS, w_plain, fwd_pd.weights_desc(), e, true);
    set_operand(entry.out, DNNL_ARG_DST, y_plain, fwd_pd.dst_desc(), e, false);
  } else if (pass == Pass::input_grad) {
    using bwd = dnnl::convolution_backward_data;
    const bwd::primitive_desc pd(bwd::desc(algo, x_any, w_any, y_any, d.stride, d.dilate, d.pad, d.pad), e, fwd_pd);
    entry.prim = bwd(pd);
    entry.winograd = is_winograd(pd);
    set_operand(entry.in[0], DNNL_ARG_DIFF_DST, y_plain, pd.diff_dst_desc(), e, true);
    set_operand(entry.in[1], DNNL_ARG_WEIGHTS, w_plain, pd.weights_desc(), e, true);
    set_operand(entry.out, DNNL_ARG_DIFF_SRC, x_plain, pd.diff_src_desc(), e, false);
  } else {
    using bwd = dnnl::convolution_backward_weights;
    const auto desc = bias ? bwd::desc(algo, x_any, w_any, b_plain, y_any, d.stride, d.dilate, d.pad, d.pad)
                           : bwd::desc(algo, x_any, w_any, y_any, d.stride, d.dilate, d.pad, d.pad);
    const bwd::primitive_desc pd(desc, e, fwd_pd);
    entry.prim = bwd(pd);
    entry.winograd = is_winograd(pd);
    set_operand(entry.in[0], DNNL_ARG_SRC, x_plain, pd.src_desc(), e, true);
    set_operand(entry.in[1], DNNL_ARG_DIFF_DST, y_plain, pd.diff_dst_desc(), e, true);
    set_operand(entry.out, DNNL_ARG_DIFF_WEIGHTS, w_plain, pd.diff_weights_desc(), e, false);
  }
  return entry;
}

// The cached entry of (pass, geometry, bias), made on first use.
Entry& entry_for(Context& c, Pass pass, const ConvGeometry& g, bool bias) {
  return c.find(key_of(pass, g, bias), kCacheEntries, [&] { return make_entry(pass, g, bias, c.engine); });
}

size_t aligned(size_t bytes) { return (bytes + 63) / 64 * 64; }

// Padding on the right equal to the left's must give the geometry's output size: it does for floored
// forward sizes, not for a transposed convolution whose output padding reaches the stride (legal
// below the dilation), which oneDNN would refuse with an error on every call.
bool sizes_agree(const ConvGeometry& g) {
  for (int d = 0; d < 3; ++d) {
    const int64_t span = g.dilation[d] * (g.kernel[d] - 1) + 1;
    if ((g.in_size[d] + 2 * g.pad[d] - span) / g.stride[d] + 1 != g.out_size[d]) return false;
  }
  return true;
}

// Inside a parallel region oneDNN runs single-threaded, and a primitive made for more threads then
// computes only the first thread's share of a weight gradient: such calls stay on im2col.
bool takes(const ConvArgs& a) {
  const ConvGeometry& g = a.g;
  return onednn_enabled() && g.batch > 0 && g.groups > 0 && g.in_channels / g.groups >= kMinChannels &&
         g.out_channels > 0 && !omp_in_parallel() && sizes_agree(g);
}

// Runs `pass` on our contiguous buffers in0, in1 (inputs), out (output) and bias (may be null: the
// forward's bias, read, or the weight gradient's diff_bias, written), through blocked copies in
// scratch where the primitive chose another layout.
void run(Pass pass, const ConvArgs& a, const void* in0, const void* in1, void* out, const void* bias) {
  Context& c = onednn_thread_cache<Entry>();
  Entry& e = entry_for(c, pass, a.g, bias != nullptr);
  size_t need = 0;
  for (const Operand* o : {&e.in[0], &e.in[1], &e.out})
    if (o->reordered) need += aligned(o->chosen.get_size());
  ScratchHolder own;
  char* buf = scratch<char>(int64_t(need), &own);
  std::unordered_map<int, memory> args;
  const void* ins[2] = {in0, in1};
  for (int i = 0; i < 2; ++i) {
    const Operand& o = e.in[i];
    memory user(o.plain, c.engine, const_cast<void*>(ins[i]));
    if (!o.reordered) {
      args.insert({o.arg, user});
      continue;
    }
    memory blocked(o.chosen, c.engine, buf);
    buf += aligned(o.chosen.get_size());
    o.reorder.execute(c.stream, user, blocked);
    args.insert({o.arg, blocked});
  }
  memory user_out(e.out.plain, c.engine, out);
  memory result = user_out;
  if (e.out.reordered) result = memory(e.out.chosen, c.engine, buf);
  args.insert({e.out.arg, result});
  if (bias)
    args.insert({pass == Pass::weight_grad ? DNNL_ARG_DIFF_BIAS : DNNL_ARG_BIAS,
                 memory(e.bias, c.engine, const_cast<void*>(bias))});
  e.prim.execute(c.stream, args);
  if (e.winograd) g_winograd.fetch_add(1, std::memory_order_relaxed);
  if (e.out.reordered) e.out.reorder.execute(c.stream, result, user_out);
  c.stream.wait();
}

// Runs f, counting the pass; false (and counted) when oneDNN raised.
template <class F> bool attempt(const F& f) {
  try {
    f();
  } catch (const dnnl::error&) {
    g_failed.fetch_add(1, std::memory_order_relaxed);
    return false;
  } catch (const std::bad_alloc&) {
    g_failed.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  g_ran.fetch_add(1, std::memory_order_relaxed);
  return true;
}

}  // namespace

bool onednn_conv(const ConvArgs& a) {
  return takes(a) && attempt([&] { run(Pass::forward, a, a.x, a.w, a.out, a.b); });
}

bool onednn_conv_transpose(const ConvArgs& a) {
  if (!takes(a) || !attempt([&] { run(Pass::input_grad, a, a.y, a.w, a.out, nullptr); })) return false;
  if (a.b) {  // a transposed convolution's bias, one value per channel of x
    float* x = static_cast<float*>(a.out);
    const float* b = static_cast<const float*>(a.b);
    const ConvGeometry& g = a.g;
    const int64_t plane = g.in_size[0] * g.in_size[1] * g.in_size[2];
    for (int64_t n = 0; n < g.batch; ++n)
      for (int64_t ch = 0; ch < g.in_channels; ++ch) {
        float* row = x + (n * g.in_channels + ch) * plane;
        const float v = b[ch];
#pragma omp simd
        for (int64_t i = 0; i < plane; ++i) row[i] += v;
      }
  }
  return true;
}

bool onednn_conv_weight(const ConvArgs& a) {
  if (!takes(a)) return false;
  const ConvGeometry& g = a.g;
  float* w = static_cast<float*>(a.out);
  float* b = static_cast<float*>(a.bias_grad);  // Note [Fused bias gradient]: diff_bias
  if (a.alpha == 1 && a.beta == 0) {
    if (!attempt([&] { run(Pass::weight_grad, a, a.x, a.y, w, b); })) return false;
    a.bias_written = b != nullptr;
    return true;
  }
  const int64_t count = g.out_channels * (g.in_channels / g.groups) * g.kernel[0] * g.kernel[1] * g.kernel[2];
  const int64_t all = count + (b ? g.out_channels : 0);
  std::vector<float> dw;  // weights are small next to the activations; the bias gradient follows
  if (!attempt([&] {
        dw.resize(size_t(all));
        run(Pass::weight_grad, a, a.x, a.y, dw.data(), b ? dw.data() + count : nullptr);
      }))
    return false;
  const float alpha = float(a.alpha), beta = float(a.beta);
  for (int64_t i = 0; i < all; ++i) {
    float& r = i < count ? w[i] : b[i - count];
    r = (a.beta == 0 ? 0.0f : beta * r) + alpha * dw[size_t(i)];
  }
  a.bias_written = b != nullptr;
  return true;
}
#endif

}  // namespace cpu
}  // namespace tocha
