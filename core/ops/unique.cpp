// unique / uniqueConsecutive front-end (see unique.h): sort (or keep) the keys, mark where a new
// group starts, then select the group heads and derive inverse indices and counts from the marks.
#include "core/ops/unique.h"
#include "core/autograd/grad_mode.h"
#include "core/error.h"
#include "core/ops/arrange.h"
#include "core/ops/factory.h"
#include "core/ops/index.h"
#include "core/ops/index_mask.h"
#include "core/ops/join.h"
#include "core/ops/pointwise.h"
#include "core/ops/reduce.h"
#include "core/ops/scan.h"
#include "core/ops/sort.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"

namespace tocha {

// Note [unique as a composite]
// unique is sort + "differs from its left neighbour" marks (ne, so NaN != NaN and every NaN is its
// own group, as PyTorch's sorted unique lists each NaN) + masked_select of the marked heads; the
// inverse is the running count of marks (cumsum) scattered back through the sort's permutation
// (index_copy_), the counts are the gaps between the heads' positions (nonzero). Every step is an
// existing op, so every device and every dtype sort takes work, and a CUDA tensor stays on the
// device. Slices along a dim are sorted lexicographically by stable sorts of their columns from
// the last to the first (a radix sort over columns: m sorts of n keys). Nothing is recorded:
// unique is not differentiable (PyTorch's is not either). PyTorch 1.13's CPU inverse and counts
// are inconsistent for NaN (its counts give 0 to NaN entries); here each NaN counts once.
// Slices with no elements (dim 1 of a 3x0 tensor) are all equal, so they give one unique slice
// (1x0) counted 3 times, where PyTorch 1.13 refuses ("0 sized dimensions ... aren't selected").

namespace {

// n x m rows ordered lexicographically (stable), as a permutation of 0..n-1.
Tensor lexicographic_order(const Tensor& rows) {
  const int64_t n = rows.size(0), m = rows.size(1);
  Tensor perm = to_device(arange(0, double(n), 1, DType::i64), rows.device());
  for (int64_t c = m - 1; c >= 0; --c) {
    Tensor col = index_select(select(rows, 1, c), 0, perm, 0);
    perm = index_select(perm, 0, sort(col, 0, false, 0).indices, 0);
  }
  return perm;
}

// Marks (a ByteTensor of n) of the keys (n, or n x m rows) that differ from the key before them;
// the first always starts a group.
Tensor group_starts(const Tensor& keys) {
  const int64_t n = keys.size(0);
  Tensor head = ones(DimVec{1}, DType::u8, keys.device());
  if (n == 1) return head;
  Tensor differs = binary(OpId::ne, narrow(keys, 0, 1, n - 1), narrow(keys, 0, 0, n - 1));
  if (keys.dim() == 2) differs = to_dtype(any(differs, 1, false), DType::u8);  // m == 0: all equal
  return cat({head, differs}, 0);
}

// Group sizes from the positions of the group heads among n keys.
Tensor group_counts(const Tensor& heads, int64_t n) {
  const int64_t k = heads.size(0);
  Tensor ends = cat({narrow(heads, 0, 1, k - 1), full(DimVec{1}, double(n), DType::i64, heads.device())}, 0);
  return binary(OpId::csub, ends, heads);
}

}  // namespace

UniqueResult unique(const Tensor& x, const int64_t* dim, bool consecutive, bool want_inverse, bool want_counts,
                    int64_t index_base) {
  const char* op = consecutive ? "uniqueConsecutive" : "unique";
  autograd::GradModeGuard no_grad(false);
  int d = -1;
  if (dim) {
    TOCHA_CHECK(x.dim() > 0, op, "dim needs a tensor with at least one dimension, got a 0-dim tensor");
    d = wrap_dim(*dim, x.dim(), op);
  }
  // The keys: x flattened, or its slices along d as the rows of an n x m matrix.
  Tensor keys, moved;
  if (d < 0) {
    keys = reshape(x, DimVec{x.numel()});
  } else {
    moved = movedim(x, DimVec{d}, DimVec{0});
    int64_t m = 1;
    for (int k = 1; k < moved.dim(); ++k) m *= moved.size(k);
    keys = reshape(moved, DimVec{moved.size(0), m});
  }
  const int64_t n = keys.size(0);
  const Device dev = x.device();
  UniqueResult r;
  if (n == 0) {
    r.values = d < 0 ? empty(DimVec{0}, x.dtype(), dev) : clone(x);
    if (want_inverse) r.inverse = empty(d < 0 ? x.sizes() : DimVec{0}, DType::i64, dev);
    if (want_counts) r.counts = empty(DimVec{0}, DType::i64, dev);
    return r;
  }
  Tensor perm, sorted = keys;  // perm stays undefined when the order is kept
  if (!consecutive && n > 1) {
    if (d < 0) {
      ValuesIndices s = sort(keys, 0, false, 0);
      sorted = s.values;
      perm = s.indices;
    } else {
      perm = lexicographic_order(keys);
      sorted = index_select(keys, 0, perm, 0);
    }
  }
  Tensor starts = group_starts(sorted);
  Tensor heads;  // positions of the group heads, when needed
  if (d >= 0 || want_counts) heads = view(nonzero(starts, 0), DimVec{-1});
  if (d < 0) {
    r.values = masked_select(sorted, starts);
  } else {
    Tensor rows = index_select(sorted, 0, heads, 0);
    DimVec shape = moved.sizes();
    shape[0] = rows.size(0);
    r.values = contiguous(movedim(reshape(rows, shape), DimVec{0}, DimVec{d}));
  }
  if (want_inverse) {
    Tensor group = cumsum(starts, 0);  // i64, 1-based group numbers in sorted order
    if (index_base != 1) group = binary(OpId::add, group, Scalar(double(index_base - 1)));
    Tensor inv = group;
    if (perm.defined()) {
      inv = empty(DimVec{n}, DType::i64, dev);
      index_copy_(inv, 0, perm, group, 0);
    }
    r.inverse = d < 0 ? reshape(inv, x.sizes()) : inv;
  }
  if (want_counts) r.counts = group_counts(heads, n);
  return r;
}

}  // namespace tocha
