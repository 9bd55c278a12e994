// C ABI of the shape, indexing and window functions (bindings/tocha_shape.h): argument unwrapping
// around the front-ends of core/ops/shape_extra.h, index_extra.h, scatter_reduce.h and window.h.
#include <vector>
#include "capi.h"
#include "core/ops/index_extra.h"
#include "core/ops/scatter_reduce.h"
#include "core/ops/shape_extra.h"
#include "core/ops/window.h"

using namespace tocha;
using namespace tocha::capi;

namespace {

std::vector<Tensor> arg_tensors(int n, const tocha_tensor** tensors, const char* op) {
  TOCHA_CHECK(n >= 0 && n <= 1 << 20, op, "invalid number of tensors ", n);
  TOCHA_CHECK(tensors || n == 0, op, "tensor list is NULL");
  std::vector<Tensor> r;
  for (int i = 0; i < n; ++i) r.push_back(arg(tensors[i], op).get());
  return r;
}

// Hands the tensors of v to out[0..n_out), which must be as many.
void hand_out(std::vector<Tensor>& v, int64_t n_out, tocha_tensor** out, const char* op) {
  TOCHA_CHECK(out || v.empty(), op, "result list is NULL");
  TOCHA_CHECK(int64_t(v.size()) == n_out, op, "expected room for ", v.size(), " results, got ", n_out);
  for (size_t i = 0; i < v.size(); ++i) out[i] = v[i].release();
}

}  // namespace

tocha_tensor* tocha_unflatten(const tocha_tensor* x, int dim, int n, const int64_t* sizes) noexcept {
  return guard_tensor([&] { return unflatten(arg(x, "unflatten"), dim, arg_dims(n, sizes, "unflatten")); });
}

int tocha_unbind(const tocha_tensor* x, int dim, int64_t n_out, tocha_tensor** out) noexcept {
  return guard_int([&] {
    std::vector<Tensor> r = unbind(arg(x, "unbind"), dim);
    hand_out(r, n_out, out, "unbind");
  });
}

tocha_tensor* tocha_diagonal(const tocha_tensor* x, int64_t offset, int dim1, int dim2) noexcept {
  return guard_tensor([&] { return diagonal(arg(x, "diagonal"), offset, dim1, dim2); });
}

tocha_tensor* tocha_broadcast_to(const tocha_tensor* x, int n, const int64_t* sizes) noexcept {
  return guard_tensor([&] { return broadcast_to(arg(x, "broadcastTo"), arg_dims(n, sizes, "broadcastTo")); });
}

int tocha_broadcast_tensors(int n, const tocha_tensor** tensors, tocha_tensor** out) noexcept {
  return guard_int([&] {
    std::vector<Tensor> r = broadcast_tensors(arg_tensors(n, tensors, "broadcastTensors"));
    hand_out(r, n, out, "broadcastTensors");
  });
}

int tocha_broadcast_shapes(int n, const int* ndims, const int64_t* sizes, int* out_ndim, int64_t* out) noexcept {
  return guard_int([&] {
    const char* op = "broadcastShapes";
    TOCHA_CHECK(n >= 0 && (ndims || n == 0) && out_ndim && out, op, "invalid arguments");
    std::vector<DimVec> shapes;
    int64_t at = 0;
    for (int i = 0; i < n; ++i) {
      DimVec s = arg_dims(ndims[i], sizes ? sizes + at : nullptr, op);
      for (int k = 0; k < s.size(); ++k)
        TOCHA_CHECK(s[k] >= 0, op, "shape ", i + 1, " has a negative size ", s[k]);
      shapes.push_back(s);
      at += ndims[i];
    }
    DimVec r = broadcast_shape_list(shapes, op);
    *out_ndim = r.size();
    for (int k = 0; k < r.size(); ++k) out[k] = r[k];
  });
}

tocha_tensor* tocha_atleast(const tocha_tensor* x, int n) noexcept {
  return guard_tensor([&] {
    TOCHA_CHECK(n >= 1 && n <= 3, "atleast", "expected 1, 2 or 3 dims, got ", n);
    return atleast_nd(arg(x, "atleast"), n);
  });
}

tocha_tensor* tocha_stack_kind(int n, const tocha_tensor** tensors, int kind) noexcept {
  return guard_tensor([&] {
    TOCHA_CHECK(kind == 'h' || kind == 'v' || kind == 'r' || kind == 'd' || kind == 'c', "stack", "invalid stack kind ",
                kind);
    return stack_kind(arg_tensors(n, tensors, stack_kind_name(char(kind))), char(kind));
  });
}

int tocha_tensor_split(const tocha_tensor* x, int64_t sections, int nidx, const int64_t* idx, int dim, int64_t n_out,
                       tocha_tensor** out) noexcept {
  return guard_int([&] {
    const char* op = "tensorSplit";
    std::vector<Tensor> r;
    if (sections > 0) {
      r = tensor_split_sections(arg(x, op), sections, dim);
    } else {
      TOCHA_CHECK(nidx >= 0 && (idx || nidx == 0), op, "invalid indices");
      r = tensor_split_indices(arg(x, op), DimVec(idx, nidx), dim);
    }
    hand_out(r, n_out, out, op);
  });
}

tocha_tensor* tocha_rot90(const tocha_tensor* x, int64_t k, int dim0, int dim1) noexcept {
  return guard_tensor([&] { return rot90(arg(x, "rot90"), k, DimVec{dim0, dim1}); });
}

tocha_tensor* tocha_repeat_interleave(const tocha_tensor* x, const tocha_tensor* repeats, int64_t n_repeats,
                                      int has_dim, int dim) noexcept {
  return guard_tensor([&] {
    const char* op = "repeatInterleave";
    if (repeats) return repeat_interleave(arg(x, op), arg(repeats, op), has_dim != 0, dim);
    return repeat_interleave(arg(x, op), n_repeats, has_dim != 0, dim);
  });
}

tocha_tensor* tocha_repeat_interleave_index(const tocha_tensor* repeats, int64_t base) noexcept {
  return guard_tensor([&] { return repeat_interleave_index(arg(repeats, "repeatInterleave"), base); });
}

tocha_tensor* tocha_take(const tocha_tensor* x, const tocha_tensor* index, int64_t base) noexcept {
  return guard_tensor([&] { return take(arg(x, "take"), arg(index, "take"), base); });
}

tocha_tensor* tocha_take_along_dim(const tocha_tensor* x, const tocha_tensor* index, int has_dim, int dim,
                                   int64_t base) noexcept {
  return guard_tensor([&] {
    return take_along_dim(arg(x, "takeAlongDim"), arg(index, "takeAlongDim"), has_dim != 0, dim, base);
  });
}

tocha_tensor* tocha_put(const tocha_tensor* x, const tocha_tensor* index, const tocha_tensor* source, int accumulate,
                        int64_t base) noexcept {
  return guard_tensor([&] { return put(arg(x, "put"), arg(index, "put"), arg(source, "put"), accumulate != 0, base); });
}

tocha_tensor* tocha_index_put(const tocha_tensor* x, int n, const tocha_tensor** indices, const tocha_tensor* values,
                              int accumulate, int64_t base) noexcept {
  return guard_tensor([&] {
    const char* op = "indexPut";
    TOCHA_CHECK(n >= 1 && n <= kMaxDims, op, "expected 1 to ", kMaxDims, " index tensors, got ", n);
    return index_put(arg(x, op), arg_tensors(n, indices, op), arg(values, op), accumulate != 0, base);
  });
}

tocha_tensor* tocha_masked_scatter(const tocha_tensor* x, const tocha_tensor* mask, const tocha_tensor* source) noexcept {
  return guard_tensor([&] {
    return masked_scatter(arg(x, "maskedScatter"), arg(mask, "maskedScatter"), arg(source, "maskedScatter"));
  });
}

tocha_tensor* tocha_isin(const tocha_tensor* elements, const tocha_tensor* test_elements, int invert) noexcept {
  return guard_tensor([&] { return isin(arg(elements, "isin"), arg(test_elements, "isin"), invert != 0); });
}

tocha_tensor* tocha_scatter_reduce(const tocha_tensor* self, int dim, const tocha_tensor* index,
                                   const tocha_tensor* src, const char* reduce, int include_self,
                                   int64_t base) noexcept {
  return guard_tensor([&] {
    const char* op = "scatterReduce";
    return scatter_reduce(arg(self, op), dim, arg(index, op), arg(src, op), scatter_reduce_kind(op, reduce),
                          include_self != 0, base);
  });
}

tocha_tensor* tocha_window(int kind, int64_t n, int periodic, double alpha, double beta, int dtype, int device_type,
                           int device_index) noexcept {
  return guard_tensor([&] {
    TOCHA_CHECK(kind >= 0 && kind <= 4, "window", "invalid window kind ", kind);
    return window(WindowKind(kind), n, periodic != 0, alpha, beta, arg_dtype(dtype, "window"),
                  arg_device(device_type, device_index, "window"));
  });
}
