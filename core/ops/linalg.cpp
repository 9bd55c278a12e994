// BLAS op front-ends: checks with messages naming the op and what it received, the result shape,
// BLAS-readable operands (views pass through with a transpose flag; other layouts are copied) and
// the kernel call. See linalg.h and linalg_util.h.
#include "core/ops/linalg.h"
#include "core/autocast.h"
#include "core/autograd/record.h"
#include "core/kernel_registry.h"
#include "core/ops/linalg_util.h"
#include "core/ops/views.h"

namespace tocha {

using namespace linalg;

namespace {

// The addend must broadcast to the product's shape: "[addmm] M is 3x3 but mat1 @ mat2 is 2x5".
void check_addend(const char* op, const char* name, const Tensor& M, const DimVec& shape, const char* product) {
  DimVec b;
  TOCHA_CHECK(broadcast_shapes(M.sizes(), shape, &b) && b == shape, op, name, " is ", shape_str(M.sizes()),
              " but ", product, " is ", shape_str(shape));
}

// A 1D view (or copy) of t's elements in row-major order, with a stride BLAS accepts.
Tensor flat_vector(const Tensor& t) {
  if (t.dim() == 1) return blas_vector(t);
  return view_as_shape(contiguous(t), DimVec{t.numel()});
}

// ---- matrix-matrix: mm, addmm, bmm, baddbmm, addbmm ------------------------------------------

Tensor gemm_compute(OpId id, const Tensor* out, double beta, const Tensor* M, double alpha, const Tensor& a,
                    const Tensor& b) {
  const char* op = op_name(id);
  const bool batched = id == OpId::bmm || id == OpId::baddbmm || id == OpId::addbmm;
  const bool sum = id == OpId::addbmm;
  const char* na = id == OpId::mm ? "a" : batched ? "batch1" : "mat1";
  const char* nb = id == OpId::mm ? "b" : batched ? "batch2" : "mat2";
  check_dim(op, na, a, batched ? 3 : 2);
  check_dim(op, nb, b, batched ? 3 : 2);
  check_same_type(op, na, a, nb, b);
  const int r = batched ? 1 : 0;  // first matrix dim
  bool fits = a.size(r + 1) == b.size(r) && (!batched || a.size(0) == b.size(0));
  TOCHA_CHECK(fits, op, na, " is ", shape_str(a.sizes()), " but ", nb, " is ", shape_str(b.sizes()));
  int64_t batch = batched ? a.size(0) : 1, n = a.size(r), k = a.size(r + 1), p = b.size(r + 1);
  DimVec shape = batched && !sum ? DimVec{batch, n, p} : DimVec{n, p};
  if (M) {
    check_same_type(op, na, a, "M", *M);
    check_addend(op, "M", *M, shape, batched ? "the batch product" : "the product");
  }
  check_multipliers(op, a.dtype(), beta, alpha);
  for (int64_t v : {n, k, p}) check_blas_size(op, v);
  auto kernel = kernel_for<GemmKernel>(id, a.device().type, a.dtype());
  Tensor A = blas_matrix(a), B = blas_matrix(b);
  return run_product(op, out, shape, a.dtype(), a.device(), M, beta, {&a, &b}, [&](const Tensor& c, double bt) {
    if (c.numel() == 0) return;
    GemmArgs g;
    g.batch = batch;
    g.m = n;
    g.n = p;
    g.k = k;
    g.a = A.raw_data();
    g.a_bs = batched ? A.stride(0) : 0;
    g.a_rs = A.stride(r);
    g.a_cs = A.stride(r + 1);
    g.b = B.raw_data();
    g.b_bs = batched ? B.stride(0) : 0;
    g.b_rs = B.stride(r);
    g.b_cs = B.stride(r + 1);
    g.c = c.raw_data();
    g.c_bs = batched && !sum ? c.stride(0) : 0;
    g.c_rs = c.stride(c.dim() - 2);
    g.c_cs = c.stride(c.dim() - 1);
    g.alpha = alpha;
    g.beta = bt;
    kernel(g);
  });
}

// ---- matrix-vector: mv, addmv ------------------------------------------------------------------

Tensor gemv_compute(OpId id, const Tensor* out, double beta, const Tensor* v1, double alpha, const Tensor& mat,
                    const Tensor& vec) {
  const char* op = op_name(id);
  const char* nv = v1 ? "vec2" : "vec";
  check_dim(op, "mat", mat, 2);
  check_dim(op, nv, vec, 1);
  check_same_type(op, "mat", mat, nv, vec);
  TOCHA_CHECK(mat.size(1) == vec.size(0), op, "mat is ", shape_str(mat.sizes()), " but ", nv, " has ",
              vec.size(0), " elements");
  int64_t n = mat.size(0), m = mat.size(1);
  DimVec shape{n};
  if (v1) {
    check_same_type(op, "mat", mat, "vec1", *v1);
    check_addend(op, "vec1", *v1, shape, "mat @ vec2");
  }
  check_multipliers(op, mat.dtype(), beta, alpha);
  check_blas_size(op, n);
  check_blas_size(op, m);
  auto kernel = kernel_for<GemvKernel>(id, mat.device().type, mat.dtype());
  Tensor A = blas_matrix(mat), x = blas_vector(vec);
  auto launch = [&](const Tensor& y, double bt) {
    GemvArgs g{n, m, A.raw_data(), A.stride(0), A.stride(1), x.raw_data(), blas_inc(m, x.stride(0)),
               y.raw_data(), blas_inc(n, y.stride(0)), alpha, bt};
    kernel(g);
  };
  return run_product(op, out, shape, mat.dtype(), mat.device(), v1, beta, {&mat, &vec}, launch);
}

// ---- outer product: ger, addr ------------------------------------------------------------------

Tensor ger_compute(OpId id, const Tensor* out, double beta, const Tensor* M, double alpha, const Tensor& vec1,
                   const Tensor& vec2) {
  const char* op = op_name(id);
  check_dim(op, "vec1", vec1, 1);
  check_dim(op, "vec2", vec2, 1);
  check_same_type(op, "vec1", vec1, "vec2", vec2);
  int64_t n = vec1.size(0), m = vec2.size(0);
  DimVec shape{n, m};
  if (M) {
    check_same_type(op, "vec1", vec1, "M", *M);
    check_addend(op, "M", *M, shape, "vec1 x vec2");
  }
  check_multipliers(op, vec1.dtype(), beta, alpha);
  check_blas_size(op, n);
  check_blas_size(op, m);
  auto kernel = kernel_for<GerKernel>(id, vec1.device().type, vec1.dtype());
  Tensor x = blas_vector(vec1), y = blas_vector(vec2);
  auto launch = [&](const Tensor& c, double bt) {
    GerArgs g{n, m, x.raw_data(), blas_inc(n, x.stride(0)), y.raw_data(), blas_inc(m, y.stride(0)),
              c.raw_data(), c.stride(0), c.stride(1), alpha, bt};
    kernel(g);
  };
  return run_product(op, out, shape, vec1.dtype(), vec1.device(), M, beta, {&vec1, &vec2}, launch);
}

// Note [Recording products]: every product records inputs (M, a, b) — or (a, b) without an
// addend — and saves a and b in slots 1 and 2 (slot 0 stays empty) for the formulas in
// core/autograd/formulas/linalg.cpp; d[0] is beta and d[1] alpha.
using Compute = Tensor (*)(OpId, const Tensor*, double, const Tensor*, double, const Tensor&, const Tensor&);
Tensor autocast_product(Compute compute, OpId id, const Tensor* out, double beta, const Tensor* M, double alpha,
                        const Tensor& a, const Tensor& b);
Tensor recorded_product(Compute compute, OpId id, const Tensor* out, double beta, const Tensor* M, double alpha,
                        const Tensor& a, const Tensor& b) {
  if (autocast::active() &&  // Note [Autocast]: the matmul family computes in low precision
      (compute == gemm_compute || !a.is_cpu()) &&  // the CPU list has no matrix-vector products
      (autocast::needs_lowp(a) || autocast::needs_lowp(b) || (M && autocast::needs_lowp(*M))))
    return autocast_product(compute, id, out, beta, M, alpha, a, b);
  std::vector<const Tensor*> inputs;
  if (M) inputs.push_back(M);
  inputs.push_back(&a);
  inputs.push_back(&b);
  autograd::Recording rec(id, out, inputs);
  const Tensor ka = rec.keep(a), kb = rec.keep(b);  // Note [Results written into inputs]
  Tensor r = compute(id, out, beta, M, alpha, a, b);
  if (auto n = rec.finish(inputs, {&r})) {
    n->save(Tensor());
    n->save(ka);
    n->save(kb);
    n->attrs.d[0] = beta;
    n->attrs.d[1] = alpha;
  }
  return r;
}
// The operands in the autocast dtype; a result buffer of another dtype receives a copy.
Tensor autocast_product(Compute compute, OpId id, const Tensor* out, double beta, const Tensor* M, double alpha,
                        const Tensor& a, const Tensor& b) {
  Tensor ca = autocast::to_lowp(a), cb = autocast::to_lowp(b), cM = M ? autocast::to_lowp(*M) : Tensor();
  const Tensor* pM = M ? &cM : nullptr;
  if (out && out->dtype() == ca.dtype() && (!M || cM.is_same(*M)))
    return recorded_product(compute, id, out, beta, pM, alpha, ca, cb);
  Tensor r = recorded_product(compute, id, nullptr, beta, pM, alpha, ca, cb);
  if (!out) return r;
  if (out->sizes() != r.sizes()) resize_(*out, r.sizes());
  copy_(*out, r);
  return *out;
}

Tensor gemm_impl(OpId id, const Tensor* out, double beta, const Tensor* M, double alpha, const Tensor& a,
                 const Tensor& b) {
  return recorded_product(gemm_compute, id, out, beta, M, alpha, a, b);
}
Tensor gemv_impl(OpId id, const Tensor* out, double beta, const Tensor* v1, double alpha, const Tensor& mat,
                 const Tensor& vec) {
  return recorded_product(gemv_compute, id, out, beta, v1, alpha, mat, vec);
}
Tensor ger_impl(OpId id, const Tensor* out, double beta, const Tensor* M, double alpha, const Tensor& vec1,
                const Tensor& vec2) {
  return recorded_product(ger_compute, id, out, beta, M, alpha, vec1, vec2);
}

}  // namespace

Tensor dot(const Tensor& x, const Tensor& y) {
  if (autocast::active() && !x.is_cpu() && (autocast::needs_lowp(x) || autocast::needs_lowp(y)))  // Note [Autocast]
    return dot(autocast::to_lowp(x), autocast::to_lowp(y));
  autograd::Recording rec(OpId::dot, nullptr, {&x, &y});
  check_same_type("dot", "x", x, "y", y);
  TOCHA_CHECK(x.numel() == y.numel(), "dot", "x has ", x.numel(), " elements but y has ", y.numel(),
              " (sizes ", shape_str(x.sizes()), " and ", shape_str(y.sizes()), ")");
  check_blas_size("dot", x.numel());
  auto kernel = kernel_for<DotKernel>(OpId::dot, x.device().type, x.dtype());
  Tensor a = flat_vector(x), b = flat_vector(y);
  Tensor r = empty(DimVec{}, x.dtype(), x.device());
  int64_t n = x.numel();
  kernel(n, a.raw_data(), blas_inc(n, a.stride(0)), b.raw_data(), blas_inc(n, b.stride(0)), r.raw_data());
  if (auto node = rec.finish({&x, &y}, {&r})) {
    node->save(Tensor());
    node->save(x);
    node->save(y);
  }
  return r;
}

Tensor mv(const Tensor& mat, const Tensor& vec) { return gemv_impl(OpId::mv, nullptr, 0, nullptr, 1, mat, vec); }
void mv_out(const Tensor& out, const Tensor& mat, const Tensor& vec) {
  gemv_impl(OpId::mv, &out, 0, nullptr, 1, mat, vec);
}
Tensor mm(const Tensor& a, const Tensor& b) { return gemm_impl(OpId::mm, nullptr, 0, nullptr, 1, a, b); }
void mm_out(const Tensor& out, const Tensor& a, const Tensor& b) { gemm_impl(OpId::mm, &out, 0, nullptr, 1, a, b); }
Tensor bmm(const Tensor& a, const Tensor& b) { return gemm_impl(OpId::bmm, nullptr, 0, nullptr, 1, a, b); }
void bmm_out(const Tensor& out, const Tensor& a, const Tensor& b) { gemm_impl(OpId::bmm, &out, 0, nullptr, 1, a, b); }
Tensor ger(const Tensor& v1, const Tensor& v2) { return ger_impl(OpId::ger, nullptr, 0, nullptr, 1, v1, v2); }
void ger_out(const Tensor& out, const Tensor& v1, const Tensor& v2) {
  ger_impl(OpId::ger, &out, 0, nullptr, 1, v1, v2);
}

Tensor addmm(double beta, const Tensor& M, double alpha, const Tensor& a, const Tensor& b) {
  return gemm_impl(OpId::addmm, nullptr, beta, &M, alpha, a, b);
}
void addmm_out(const Tensor& out, double beta, const Tensor& M, double alpha, const Tensor& a, const Tensor& b) {
  gemm_impl(OpId::addmm, &out, beta, &M, alpha, a, b);
}
Tensor addmv(double beta, const Tensor& v1, double alpha, const Tensor& mat, const Tensor& v2) {
  return gemv_impl(OpId::addmv, nullptr, beta, &v1, alpha, mat, v2);
}
void addmv_out(const Tensor& out, double beta, const Tensor& v1, double alpha, const Tensor& mat, const Tensor& v2) {
  gemv_impl(OpId::addmv, &out, beta, &v1, alpha, mat, v2);
}
Tensor addr(double beta, const Tensor& M, double alpha, const Tensor& v1, const Tensor& v2) {
  return ger_impl(OpId::addr, nullptr, beta, &M, alpha, v1, v2);
}
void addr_out(const Tensor& out, double beta, const Tensor& M, double alpha, const Tensor& v1, const Tensor& v2) {
  ger_impl(OpId::addr, &out, beta, &M, alpha, v1, v2);
}
Tensor addbmm(double beta, const Tensor& M, double alpha, const Tensor& b1, const Tensor& b2) {
  return gemm_impl(OpId::addbmm, nullptr, beta, &M, alpha, b1, b2);
}
void addbmm_out(const Tensor& out, double beta, const Tensor& M, double alpha, const Tensor& b1, const Tensor& b2) {
  gemm_impl(OpId::addbmm, &out, beta, &M, alpha, b1, b2);
}
Tensor baddbmm(double beta, const Tensor& M, double alpha, const Tensor& b1, const Tensor& b2) {
  return gemm_impl(OpId::baddbmm, nullptr, beta, &M, alpha, b1, b2);
}
void baddbmm_out(const Tensor& out, double beta, const Tensor& M, double alpha, const Tensor& b1, const Tensor& b2) {
  gemm_impl(OpId::baddbmm, &out, beta, &M, alpha, b1, b2);
}

}  // namespace tocha
