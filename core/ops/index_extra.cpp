// take, take_along_dim, put, index_put, masked_scatter and isin (see index_extra.h): checks that
// name the op, then recorded index ops on flattened views, so autograd and CUDA come with them.
#include "core/ops/index_extra.h"
#include "core/type_name.h"
#include "core/error.h"
#include "core/ops/index.h"
#include "core/ops/index_geometry.h"
#include "core/ops/index_mask.h"
#include "core/ops/index_scatter.h"
#include "core/ops/pointwise.h"
#include "core/ops/reduce.h"
#include "core/ops/search.h"
#include "core/ops/shape_extra.h"
#include "core/ops/sort.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"
#include "core/shape.h"

namespace tocha {

// Note [Negative indices]
// take, put and indexPut accept indices from the end as PyTorch does: with base b (1 in Lua),
// -1 is the last element, so i < 0 maps to i + size and i >= 0 to i - b; 0 in Lua is out of
// range. The bounds check runs on the index's device through reductions, and a CPU copy of the
// offending index names the first bad value (check_index_values) in the error.
Tensor normalize_index(const char* op, const Tensor& index, int64_t size, int64_t base, int dim) {
  TOCHA_CHECK(index.dtype() == DType::i64 || index.dtype() == DType::i32, op,
              "expected indices as a LongTensor, got a ", tensor_type_name(index));
  Tensor idx = to_dtype(index, DType::i64);
  if (idx.numel() == 0) return contiguous(idx);
  Tensor neg = to_dtype(binary(OpId::lt, idx, Scalar(0.0)), DType::i64);
  Tensor z = binary(OpId::add, binary(OpId::csub, idx, Scalar(double(base))),
                    binary(OpId::mul, neg, Scalar(double(size + base))));
  const bool bad = any_true(binary(OpId::lt, z, Scalar(0.0))) || any_true(binary(OpId::ge, z, Scalar(double(size))));
  if (bad) {
    // The original value, in the user's base, for the message; negative ones outside [-size, -1].
    Tensor cpu = contiguous(to_device(idx, Device{}));
    const int64_t* p = cpu.data<int64_t>();
    for (int64_t i = 0; i < cpu.numel(); ++i) {
      const int64_t v = p[i];
      const bool ok = v < 0 ? v >= -size : v - base >= 0 && v - base < size;
      TOCHA_CHECK(ok, op, "index ", v, " is out of range for dimension ", dim + 1, " of size ", size,
                  " (at position ", i + 1, " of the index)");
    }
  }
  return contiguous(z);
}

void check_index_range(const char* op, const Tensor& index, int64_t base, int64_t size, int dim) {
  if (index.is_cpu() || index.numel() == 0) return check_index_values(op, index, base, size, dim);
  const bool bad = any_true(binary(OpId::lt, index, Scalar(double(base)))) ||
                   any_true(binary(OpId::ge, index, Scalar(double(base + size))));
  if (bad) check_index_values(op, contiguous(to_device(index, Device{})), base, size, dim);
}

Tensor take(const Tensor& x, const Tensor& index, int64_t base) {
  const char* op = "take";
  check_same_device(op, x, index);
  Tensor idx = normalize_index(op, index, x.numel(), base, 0);
  Tensor flat = reshape(x, DimVec{x.numel()});
  return reshape(index_select(flat, 0, reshape(idx, DimVec{idx.numel()}), 0), index.sizes());
}

Tensor take_along_dim(const Tensor& x, const Tensor& index, bool has_dim, int64_t dim, int64_t base) {
  const char* op = "takeAlongDim";
  check_same_device(op, x, index);
  TOCHA_CHECK(index.dtype() == DType::i64 || index.dtype() == DType::i32, op,
              "expected indices as a LongTensor, got a ", tensor_type_name(index));
  if (!has_dim) return take(reshape(x, DimVec{x.numel()}), reshape(index, DimVec{index.numel()}), base);
  TOCHA_CHECK(x.dim() == index.dim(), op, "x has ", x.dim(), " dimensions (size ", shape_str(x.sizes()),
              ") but the indices have ", index.dim(), " (size ", shape_str(index.sizes()), "); expected as many");
  Tensor xv = as_vector_if_scalar(x), iv = as_vector_if_scalar(index);
  const int d = wrap_dim(dim, xv.dim(), op);
  DimVec xs = xv.sizes(), is = iv.sizes();
  xs[d] = is[d] = 1;
  DimVec b;
  TOCHA_CHECK(broadcast_shapes(xs, is, &b), op, "x of size ", shape_str(x.sizes()), " and indices of size ",
              shape_str(index.sizes()), " do not broadcast outside dimension ", d + 1);
  DimVec xb = b, ib = b;
  xb[d] = xv.size(d);
  ib[d] = iv.size(d);
  Tensor idx = index_as_long(op, iv, kMaxDims);
  check_index_range(op, idx, base, xv.size(d), d);  // errors naming takeAlongDim, not gather (CUDA too)
  Tensor r = gather(expand(xv, xb), d, expand(idx, ib), base);
  return x.dim() == 0 ? reshape(r, DimVec{}) : r;
}

Tensor put(const Tensor& x, const Tensor& index, const Tensor& source, bool accumulate, int64_t base) {
  const char* op = "put";
  check_same_device(op, x, index);
  check_same_device(op, x, source);
  TOCHA_CHECK(index.numel() == source.numel(), op, "index has ", index.numel(), " elements but source has ",
              source.numel(), "; expected as many");
  TOCHA_CHECK(can_cast(source.dtype(), x.dtype()), op, "cannot write a ", tensor_type_name(source),
              " into a ", tensor_type_name(x));
  Tensor idx = reshape(normalize_index(op, index, x.numel(), base, 0), DimVec{index.numel()});
  Tensor flat = reshape(x, DimVec{x.numel()});
  Tensor src = reshape(to_dtype(source, x.dtype()), DimVec{source.numel()});
  Tensor r = accumulate ? index_add(flat, 0, idx, src, 0) : index_copy(flat, 0, idx, src, 0);
  return reshape(r, x.sizes());
}

// Note [index_put as a flat index_copy]
// The k index tensors (masks expanded to their nonzero coordinates) address the first k dims of
// x. They broadcast to a shape B; their 0-based values combine into one linear index over those
// dims (row-major), and x viewed as (n1*...*nk, rest...) takes values (broadcast to B + rest,
// flattened to (numel(B), rest...)) through index_copy (or index_add), both recorded: gradients
// reach x (zero at overwritten places unless accumulating) and values (gathered, un-broadcast).
Tensor index_put(const Tensor& x, const std::vector<Tensor>& indices_, const Tensor& values, bool accumulate,
                 int64_t base) {
  const char* op = "indexPut";
  TOCHA_CHECK(!indices_.empty(), op, "expected at least one index tensor");
  check_same_device(op, x, values);
  TOCHA_CHECK(can_cast(values.dtype(), x.dtype()), op, "cannot write a ", tensor_type_name(values),
              " into a ", tensor_type_name(x));
  std::vector<Tensor> idx;  // one LongTensor per addressed dim, still in the user's base
  std::vector<bool> zero_based;
  for (size_t i = 0; i < indices_.size(); ++i) {
    const Tensor& t = indices_[i];
    check_same_device(op, x, t);
    if (t.dtype() == DType::b8 || t.dtype() == DType::u8) {
      const int first = int(idx.size());
      TOCHA_CHECK(first + t.dim() <= x.dim(), op, "mask ", i + 1, " of size ", shape_str(t.sizes()),
                  " addresses more dims than the tensor of size ", shape_str(x.sizes()), " has");
      for (int k = 0; k < t.dim(); ++k)
        TOCHA_CHECK(t.size(k) == x.size(first + k), op, "mask ", i + 1, " of size ", shape_str(t.sizes()),
                    " does not match the tensor of size ", shape_str(x.sizes()), " at dimension ", first + k + 1);
      TOCHA_CHECK(t.dim() > 0, op, "mask ", i + 1, " is 0-dim; expected a mask with at least one dimension");
      Tensor nz = nonzero(t, 0);  // N x ndim, 0-based
      for (int k = 0; k < t.dim(); ++k) {
        idx.push_back(contiguous(select(nz, 1, k)));
        zero_based.push_back(true);
      }
    } else {
      TOCHA_CHECK(t.dtype() == DType::i64 || t.dtype() == DType::i32, op, "index ", i + 1,
                  " must be a LongTensor or a mask (Byte/BoolTensor), got a ", tensor_type_name(t));
      idx.push_back(t);
      zero_based.push_back(false);
    }
  }
  const int k = int(idx.size());
  TOCHA_CHECK(k <= x.dim(), op, "too many indices (", k, ") for a tensor of size ", shape_str(x.sizes()));
  std::vector<DimVec> shapes;
  for (const Tensor& t : idx) shapes.push_back(t.sizes());
  const DimVec B = broadcast_shape_list(shapes, op);
  const int64_t nb = shape_numel(B, op);
  // The linear index over the first k dims.
  Tensor lin;
  int64_t span = 1;
  for (int j = k - 1; j >= 0; --j) {
    Tensor z = normalize_index(op, idx[size_t(j)], x.size(j), zero_based[size_t(j)] ? 0 : base, j);
    Tensor term = span == 1 ? z : binary(OpId::mul, z, Scalar(double(span)));
    lin = lin.defined() ? binary(OpId::add, expand(term, B), lin) : expand(term, B);
    span *= x.size(j);
  }
  lin = reshape(contiguous(lin), DimVec{nb});
  DimVec rest, target{span}, vshape = B;
  for (int j = k; j < x.dim(); ++j) {
    rest.push_back(x.size(j));
    target.push_back(x.size(j));
    vshape.push_back(x.size(j));
  }
  DimVec flat_v{nb};
  for (int j = 0; j < rest.size(); ++j) flat_v.push_back(rest[j]);
  DimVec vb;
  TOCHA_CHECK(broadcast_shapes(values.sizes(), vshape, &vb) && vb.size() == vshape.size() &&
                  shape_numel(vb) == shape_numel(vshape),
              op, "values of size ", shape_str(values.sizes()), " do not broadcast to the indexed shape ",
              shape_str(vshape));
  Tensor v = reshape(contiguous(expand(to_dtype(values, x.dtype()), vshape)), flat_v);
  Tensor xf = reshape(x, target);
  Tensor r = accumulate ? index_add(xf, 0, lin, v, 0) : index_copy(xf, 0, lin, v, 0);
  return reshape(r, x.sizes());
}

Tensor masked_scatter(const Tensor& x, const Tensor& mask, const Tensor& source) {
  const char* op = "maskedScatter";
  check_mask(op, mask, x);
  check_same_device(op, x, source);
  TOCHA_CHECK(source.dtype() == x.dtype(), op, "source is a ", tensor_type_name(source), " but the tensor is a ",
              tensor_type_name(x), "; expected one type");
  DimVec s;
  TOCHA_CHECK(broadcast_shapes(x.sizes(), mask.sizes(), &s), op, "mask of size ", shape_str(mask.sizes()),
              " does not broadcast with the tensor of size ", shape_str(x.sizes()));
  Tensor m = expand(mask, s);
  Tensor count = sum(to_dtype(m, DType::i64));
  const int64_t need = int64_t(item_at(count, 0));
  TOCHA_CHECK(source.numel() >= need, op, "the mask has ", need, " true elements but source has only ",
              source.numel(), " elements");
  return masked_copy(contiguous(expand(x, s)), m, source);
}

// Note [isin by sorting]
// isin sorts the test elements once (n log n) and binary-searches every element (searchsorted):
// found where the element at the insertion point equals it. Memory stays O(n + m), where the
// broadcast comparison would take n * m. Both sides are promoted to one dtype first; NaN is
// never found, as PyTorch's.
Tensor isin(const Tensor& elements, const Tensor& test, bool invert) {
  const char* op = "isin";
  check_same_device(op, elements, test);
  DType dt = promote_types(elements.dtype(), test.dtype());
  if (dt == DType::b8) dt = DType::u8;  // sort and searchsorted work on numbers
  Tensor e = to_dtype(elements, dt);
  Tensor flat_e = reshape(e, DimVec{e.numel()});
  Tensor r;
  if (test.numel() == 0 || e.numel() == 0) {
    r = zeros(elements.sizes(), DType::b8, elements.device());
  } else {
    Tensor sorted = sort(reshape(to_dtype(test, dt), DimVec{test.numel()}), 0, false, 0).values;
    Tensor pos = searchsorted(sorted, flat_e, false, false, Tensor(), 0);
    pos = clamp(pos, 0.0, double(test.numel() - 1));
    Tensor found = binary(OpId::eq, index_select(sorted, 0, pos, 0), flat_e);
    r = reshape(to_dtype(found, DType::b8), elements.sizes());
  }
  if (invert) r = to_dtype(binary(OpId::eq, r, Scalar(0.0)), DType::b8);
  return r;
}

}  // namespace tocha
