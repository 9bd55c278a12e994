// searchsorted, bucketize and argsort front-ends (see search.h): shape, dtype and sorter checks,
// promotion to one dtype, contiguous operands, then the searchsorted kernel for (device, dtype).
#include "core/ops/search.h"
#include "core/type_name.h"
#include <cstdint>
#include "core/autograd/grad_mode.h"
#include "core/error.h"
#include "core/kernel_registry.h"
#include "core/ops/pointwise.h"
#include "core/ops/reduce.h"
#include "core/ops/sort.h"

namespace tocha {

// Note [1-based insertion points]
// PyTorch's searchsorted returns the 0-based insertion index p: inserting the value before
// element p keeps the row sorted (p = len: after the last). Tocha returns p + 1, a 1-based
// position: "insert before element p + 1", and len + 1 means "after the last". So
// torch.searchsorted({1, 3}, 2) is 2 (before the 3) and a value below every element gives 1;
// bucketize's buckets are numbered 1 .. len + 1 the same way. The results are then valid
// 1-based indices of the row (the first element >= the value) whenever they are <= len, and
// index_base 0 gives PyTorch's numbers to C hosts. sorter takes 1-based indices from Lua, like
// sort's indices, so torch.argsort's result can be passed as it is.

// Note [searchsorted and NaN]
// NaN elements count as larger than every number, as sort orders them (last), and a NaN value goes
// after every element: with [1, 2, 3, nan], 4 goes at 3 (0-based; before the NaN) and nan at 4.
// PyTorch 1.13 tests !(element >= value), true for a NaN element, so its answer with NaN elements
// depends on which elements its search happens to probe: 4 for the 4 above (past the NaN), and for
// the value 0, 3 in [1, nan, nan] (past both NaNs) but 0 in [1, 2, 3, nan]. NaN-free rows give
// PyTorch's positions, and so do NaN values (the row's length). A consistent order also lets the
// search run without branches (kernels/search_ops.h), 4-6x faster than an if/else search.

namespace {

Tensor search_impl(const char* op, const Tensor& seq, const Tensor& values_in, bool right, bool out_int32,
                   const Tensor& sorter_in, int64_t base) {
  const char* seq_name = op[0] == 'b' ? "boundaries" : "sortedSeq";
  check_same_device(op, seq, values_in);
  TOCHA_CHECK(seq.dim() >= 1, op, seq_name, " must have at least one dimension, got a 0-dim tensor");
  if (seq.dim() > 1) {
    bool ok = values_in.dim() == seq.dim();
    for (int k = 0; ok && k + 1 < seq.dim(); ++k) ok = values_in.size(k) == seq.size(k);
    TOCHA_CHECK(ok, op, seq_name, " of size ", shape_str(seq.sizes()), " and values of size ",
                shape_str(values_in.sizes()), ": all dims but the last must match, or ", seq_name, " must be 1D");
  }
  const int64_t len = seq.size(seq.dim() - 1);
  TOCHA_CHECK(!out_int32 || len + base <= INT32_MAX, op, "a ", seq_name, " of ", len,
              " elements needs 64-bit results (outInt32 was asked for)");
  autograd::GradModeGuard no_grad(false);  // conversions below are not part of any graph
  Tensor sorter;
  if (sorter_in.defined()) {
    check_same_device(op, seq, sorter_in);
    TOCHA_CHECK(sorter_in.dtype() == DType::i64, op, "sorter must be a torch.LongTensor, got a ",
                tensor_type_name(sorter_in));
    TOCHA_CHECK(sorter_in.sizes() == seq.sizes(), op, "sorter of size ", shape_str(sorter_in.sizes()),
                " must have the size of ", seq_name, ", ", shape_str(seq.sizes()));
    if (sorter_in.numel() > 0) {
      const double lo = reduce_value(OpId::min, sorter_in), hi = reduce_value(OpId::max, sorter_in);
      TOCHA_CHECK(lo >= double(base) && hi < double(len + base), op, "sorter holds index ",
                  int64_t(lo < double(base) ? lo : hi), ", out of range for rows of ", len, " elements (indices ",
                  base, " to ", len + base - 1, ")");
    }
    sorter = contiguous(base ? binary(OpId::csub, sorter_in, Scalar(double(base))) : sorter_in);
  }
  const DType dt = promote_types(seq.dtype(), values_in.dtype());
  auto kernel = kernel_for<SearchKernel>(OpId::searchsorted, seq.device().type, dt);
  Tensor s = contiguous(to_dtype(seq, dt)), v = contiguous(to_dtype(values_in, dt));
  Tensor out = empty(values_in.sizes(), out_int32 ? DType::i32 : DType::i64, seq.device());
  if (out.numel() == 0) return out;
  SearchArgs a;
  a.seq = s.raw_data();
  a.values = v.raw_data();
  a.sorter = sorter.defined() ? sorter.data<int64_t>() : nullptr;
  a.out = out.raw_data();
  a.n_values = v.numel();
  a.seq_len = len;
  a.per_row = seq.dim() == 1 ? v.numel() : v.size(v.dim() - 1);
  a.row_stride = seq.dim() == 1 ? 0 : len;
  a.base = base;
  a.right = right;
  a.out_int32 = out_int32;
  kernel(a);
  return out;
}

}  // namespace

Tensor searchsorted(const Tensor& seq, const Tensor& values, bool right, bool out_int32, const Tensor& sorter,
                    int64_t index_base) {
  return search_impl("searchsorted", seq, values, right, out_int32, sorter, index_base);
}

Tensor bucketize(const Tensor& values, const Tensor& boundaries, bool right, bool out_int32, int64_t index_base) {
  TOCHA_CHECK(boundaries.dim() == 1, "bucketize", "boundaries must be 1D, got a tensor of size ",
              shape_str(boundaries.sizes()));
  return search_impl("bucketize", boundaries, values, right, out_int32, Tensor(), index_base);
}

Tensor argsort(const Tensor& x, int64_t dim, bool descending, int64_t index_base) {
  const int d = wrap_dim(dim, x.dim(), "argsort");  // the error names argsort, not sort
  autograd::GradModeGuard no_grad(false);            // indices only: nothing to differentiate
  return sort(x, d, descending, index_base).indices;
}

}  // namespace tocha
