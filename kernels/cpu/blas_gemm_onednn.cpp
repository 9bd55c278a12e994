// bf16 and f16 products (mm, addmm, bmm, baddbmm) on oneDNN's matmul primitive, for
// kernels/cpu/blas_gemm.cpp.
//
// Note [oneDNN reduced-precision GEMM]: the portable path widens both operands into float
// buffers with scalar loops, runs sgemm and rounds the result (Note [Reduced-precision GEMM]);
// a bf16 1024^3 product took 14.8 ms at one thread where PyTorch's (oneDNN) took 4.4 ms on an
// AVX-512 Xeon with AVX512-BF16. oneDNN's matmul reads bf16/f16 directly (native dot products
// where the CPU has them), accumulates in f32 and rounds once when it stores, as the portable
// path does, so results agree with it to that rounding. It takes:
// - strided operands, each with a unit stride in one of its two dims (its JIT kernels'
//   layouts), and a batch that either operand may broadcast (stride 0);
// - alpha as an output scale and beta as a sum post-op (none at beta = 0, so C is then unread);
// - not addbmm's sum over the batch (one rounding for the whole sum), which stays portable.
// Primitives are cached per thread as the convolutions' are (the thread count is in the key). A
// primitive that oneDNN would only run on its reference kernels (f16 without AVX512-FP16, say)
// is remembered as refused, and the portable path computes those products. AVX-512 machines with
// oneDNN switched on only (onednn_gemm_allowed).
#include "kernels/cpu/blas_gemm_onednn.h"
#include "kernels/cpu/blas_gemm_call.h"

#ifdef TOCHA_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#include <omp.h>
#include <cstring>
#include <vector>
#include "kernels/cpu/onednn_cache.h"
#endif

namespace tocha {
namespace cpu {

#ifndef TOCHA_HAVE_ONEDNN
bool onednn_gemm_reduced(const GemmArgs&, DType) { return false; }
#else
namespace {
using dnnl::memory;
constexpr size_t kCacheEntries = 64;
// Below this many multiply-adds the widening path is as fast as a primitive's fixed cost.
constexpr int64_t kMinProduct = int64_t(1) << 15;

struct Entry {
  std::vector<int64_t> key;
  dnnl::matmul prim;
  bool usable = false;  // false: only a reference kernel took it
};
using Context = OnednnThreadCache<Entry>;

int64_t bits_of(double v) {
  int64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// A matrix (rows x cols, strides rs, cs) that oneDNN's JIT kernels take: a unit stride in one dim
// and, in the other, a stride that steps over a whole row or column (no overlap).
bool plain(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  return (cs == 1 && rs >= cols) || (rs == 1 && cs >= rows) || (rows == 1 && cs == 1) || (cols == 1 && rs == 1);
}

// The descriptor of one operand: batch x rows x cols with batch stride bs (0: broadcast, one batch).
memory::desc operand(memory::data_type dt, int64_t batch, int64_t rows, int64_t cols, int64_t bs, int64_t rs,
                     int64_t cs) {
  const bool shared = bs == 0;
  return memory::desc({shared ? 1 : batch, rows, cols}, dt, {shared ? rows * cols : bs, rs, cs});
}

std::vector<int64_t> key_of(const GemmArgs& g, DType dt) {
  return {int64_t(dt), omp_get_max_threads(), g.batch, g.m, g.n, g.k, g.a_bs, g.a_rs, g.a_cs, g.b_bs, g.b_rs,
          g.b_cs, g.c_bs, g.c_rs, g.c_cs, bits_of(g.alpha), bits_of(g.beta)};
}

Entry make_entry(const GemmArgs& g, DType dt, const dnnl::engine& e) {
  const auto t = dt == DType::bf16 ? memory::data_type::bf16 : memory::data_type::f16;
  const memory::desc a = operand(t, g.batch, g.m, g.k, g.a_bs, g.a_rs, g.a_cs);
  const memory::desc b = operand(t, g.batch, g.k, g.n, g.b_bs, g.b_rs, g.b_cs);
  const memory::desc c = operand(t, g.batch, g.m, g.n, g.c_bs, g.c_rs, g.c_cs);
  dnnl::primitive_attr attr;
  if (g.alpha != 1) attr.set_output_scales(0, {float(g.alpha)});
  if (g.beta != 0) {
    dnnl::post_ops ops;
    ops.append_sum(float(g.beta));
    attr.set_post_ops(ops);
  }
  Entry entry;
  entry.key = key_of(g, dt);
  try {
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), attr, e);
    entry.usable = std::strstr(pd.impl_info_str(), "ref") == nullptr;
    if (entry.usable) entry.prim = dnnl::matmul(pd);
  } catch (const dnnl::error&) {
    entry.usable = false;  // refused once, remembered: the portable path takes these products
  }
  return entry;
}

Entry& entry_for(Context& c, const GemmArgs& g, DType dt) {
  return c.find(key_of(g, dt), kCacheEntries, [&] { return make_entry(g, dt, c.engine); });
}

bool takes(const GemmArgs& g) {
  if (g.batch < 1 || g.m < 1 || g.n < 1 || g.k < 1 || g.batch * g.m * g.n * g.k < kMinProduct) return false;
  if (g.c_bs == 0 && g.batch > 1) return false;  // addbmm: the sum over the batch is rounded once
  if (omp_in_parallel() || !onednn_gemm_allowed()) return false;
  return plain(g.m, g.k, g.a_rs, g.a_cs) && plain(g.k, g.n, g.b_rs, g.b_cs) && plain(g.m, g.n, g.c_rs, g.c_cs) &&
         g.a_bs >= 0 && g.b_bs >= 0 && g.c_bs >= 0;
}
}  // namespace

bool onednn_gemm_reduced(const GemmArgs& g, DType dt) {
  if ((dt != DType::bf16 && dt != DType::f16) || !takes(g)) return false;
  try {
    Context& c = onednn_thread_cache<Entry>();
    Entry& e = entry_for(c, g, dt);
    if (!e.usable) return false;
    const auto t = dt == DType::bf16 ? memory::data_type::bf16 : memory::data_type::f16;
    memory a(operand(t, g.batch, g.m, g.k, g.a_bs, g.a_rs, g.a_cs), c.engine, const_cast<void*>(g.a));
    memory b(operand(t, g.batch, g.k, g.n, g.b_bs, g.b_rs, g.b_cs), c.engine, const_cast<void*>(g.b));
    memory r(operand(t, g.batch, g.m, g.n, g.c_bs, g.c_rs, g.c_cs), c.engine, g.c);
    e.prim.execute(c.stream, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, r}});
    c.stream.wait();
  } catch (const dnnl::error&) {
    return false;  // nothing was written: the portable path computes it
  }
  count_onednn_gemm();
  return true;
}
#endif

}  // namespace cpu
}  // namespace tocha
