// einsum front-end (see einsum.h): the equation parser with messages that name einsum and what it
// received, the size checks, and the contraction plan (Note [einsum plan]).
#include "core/ops/einsum.h"
#include <algorithm>
#include "core/autograd/record.h"
#include "core/error.h"
#include "core/op_id.h"
#include "core/ops/linalg.h"
#include "core/ops/linalg_util.h"
#include "core/ops/matmul.h"
#include "core/ops/pointwise.h"
#include "core/ops/reduce.h"
#include "core/ops/views.h"
#include "core/shape.h"

namespace tocha {

// Note [einsum plan]
// einsum is a composite, so autograd and every device come from the ops it is built from:
//  1. a label repeated within an operand takes the diagonal: one as_strided view whose stride is
//     the sum of the repeated dims' strides (of a contiguous copy when the operand requires grad
//     and its elements overlap, e.g. an expand: as_strided's gradient assumes they do not);
//  2. operands are contracted left to right. Before each pairwise step, the labels that neither
//     a later operand nor the output needs are summed out of each side on its own (a sum over a
//     size-1 dim is a view), and so is a dim of size 1 that the other side broadcasts;
//  3. the pair is then one product: the labels in both that stay become the batch, the labels
//     in both that are summed the inner dim, the others each side's rows/columns; each side is
//     permuted and reshaped (a view unless its dims cannot merge) for one mm (no batch) or one
//     bmm. With nothing left to sum the pair is a broadcast multiplication instead (PyTorch does
//     the same: 'i,j->ij', 'bi,bi->bi' need no GEMM);
//  4. the result is permuted to the output's order. It never shares storage with an operand: a
//     single-operand equation that is only a view ('ij->ji', 'ii->i') is copied (PyTorch returns
//     a view there; Torch7's torch.f returns new tensors).
// Integer sums are i64 tensors (Note [Reduction results]). A one-operand equation that sums is a
// sum, as in PyTorch: an integer or bool operand gives i64 ('ij->i' of a ByteTensor {{200, 100}}
// is 300, it wrapped to 44). Sums before a product are converted back, so a product's result has
// the operands' dtype (PyTorch's bmm of uint8 tensors stays uint8).

namespace {

const char* kOp = "einsum";

bool is_label(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
int label_id(char c) { return c <= 'Z' ? c - 'A' : c - 'a' + 26; }

// One term of the equation: its labels in order and where its '...' sits (-1: none).
struct Term {
  std::string text;
  std::vector<int> labels;
  int ellipsis_at = -1;
};

// Reads the term eq[begin, end): labels, spaces (ignored) and at most one '...'.
Term parse_term(const std::string& eq, size_t begin, size_t end, const std::string& what) {
  Term t;
  t.text = eq.substr(begin, end - begin);
  for (size_t i = begin; i < end; ++i) {
    char c = eq[i];
    if (c == ' ') continue;
    if (is_label(c)) {
      t.labels.push_back(label_id(c));
    } else if (c == '.') {
      TOCHA_CHECK(i + 2 < end && eq[i + 1] == '.' && eq[i + 2] == '.', kOp, "the '.' at position ", i + 1, " of '", eq,
                  "' does not start an ellipsis '...'");
      TOCHA_CHECK(t.ellipsis_at < 0, kOp, what, " ('", t.text, "') has more than one ellipsis in '", eq, "'");
      t.ellipsis_at = int(t.labels.size());
      i += 2;
    } else {
      fail(kOp, "invalid character '", c, "' at position ", i + 1, " of '", eq, "' (labels are letters a-z and A-Z)");
    }
  }
  return t;
}

std::string sizes_of(const DimVec& s) { return s.empty() ? std::string("0-dim") : "size " + shape_str(s); }

// Every dim of a label has one size, or 1 (broadcast) across operands; within one operand the
// dims of a repeated label (its diagonal) have equal sizes.
void check_sizes(const EinsumEquation& e, const std::vector<DimVec>& shapes) {
  int64_t size[kEinsumMaxIds];
  int from[kEinsumMaxIds];
  for (int id = 0; id < kEinsumMaxIds; ++id) size[id] = -1;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::vector<int>& ids = e.inputs[i];
    for (size_t d = 0; d < ids.size(); ++d) {
      const int id = ids[d];
      const int64_t s = shapes[i][int(d)];
      for (size_t d2 = 0; d2 < d; ++d2)
        TOCHA_CHECK(ids[d2] != id || shapes[i][int(d2)] == s, kOp, "label ", einsum_label(id),
                    " is repeated in operand ", i + 1, " but its dims have sizes ", shapes[i][int(d2)], " and ", s,
                    " (", sizes_of(shapes[i]), ")");
      if (size[id] == -1 || size[id] == 1) {
        if (size[id] != 1 || s != 1) from[id] = int(i);
        size[id] = s;
      } else {
        TOCHA_CHECK(s == 1 || s == size[id], kOp, "label ", einsum_label(id), " has size ", s, " in operand ", i + 1,
                    " but size ", size[id], " in operand ", from[id] + 1, " (sizes must be equal or 1)");
      }
    }
  }
}

// An operand as the plan sees it: a tensor and the id of each of its dims (no id twice).
struct Operand {
  Tensor t;
  std::vector<int> ids;
};

int find(const std::vector<int>& ids, int id) {
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] == id) return int(i);
  return -1;
}

// t with the dims of a repeated id merged into their diagonal (a view). as_strided's gradient
// scatters into t's memory, which is only right when t's elements do not share it: an expanded
// or otherwise overlapping t that autograd records is copied first (its 'ii->i' gradient was
// once summed over the expanded copies, 3 instead of 1 on a 3x3 expand).
Operand diagonal(const Tensor& t_in, const std::vector<int>& ids) {
  Operand o;
  bool repeats = false;
  for (size_t d = 0; d < ids.size(); ++d)
    for (size_t d2 = 0; d2 < d; ++d2) repeats |= ids[d2] == ids[d];
  const bool copy = repeats && autograd::needs_record({&t_in}) && may_overlap(t_in.dim(), t_in.sizes().data(), t_in.strides().data());
  const Tensor t = copy ? contiguous(t_in) : t_in;
  DimVec sizes, strides;
  for (size_t d = 0; d < ids.size(); ++d) {
    int at = find(o.ids, ids[d]);
    if (at >= 0) {
      strides[at] += t.stride(int(d));
      continue;
    }
    o.ids.push_back(ids[d]);
    sizes.push_back(t.size(int(d)));
    strides.push_back(t.stride(int(d)));
  }
  o.t = o.ids.size() == ids.size() ? t : as_strided(t, sizes, strides, t.storage_offset());
  return o;
}

// Sums o over the dims whose id is marked in drop (a view when they all have size 1, unless
// `as_sum`: the whole result of a one-operand equation, a sum in the sum's dtype).
void drop_dims(Operand& o, const bool* drop, bool as_sum = false) {
  uint32_t mask = 0;
  bool sum_needed = false;
  DimVec kept;
  std::vector<int> ids;
  for (size_t d = 0; d < o.ids.size(); ++d) {
    if (drop[o.ids[d]]) {
      mask |= 1u << d;
      sum_needed |= o.t.size(int(d)) != 1;
    } else {
      kept.push_back(o.t.size(int(d)));
      ids.push_back(o.ids[d]);
    }
  }
  if (!mask) return;
  if (as_sum) o.t = sum_dims(o.t, mask, false);
  else o.t = sum_needed ? to_dtype(sum_dims(o.t, mask, false), o.t.dtype()) : reshape(o.t, kept);
  o.ids = ids;
}

// o's dims in the order of `order` (ids o has), reshaped to `sizes`.
Tensor arrange(const Operand& o, const std::vector<int>& order, const DimVec& sizes) {
  DimVec perm;
  for (int id : order) perm.push_back(find(o.ids, id));
  return reshape(permuted(o.t, perm), sizes);
}

int64_t size_of(const Operand& o, int id) { return o.t.size(find(o.ids, id)); }

// One step of the plan: L and R combined, the ids marked summable summed (Note [einsum plan]).
Operand contract(Operand L, Operand R, const bool* summable, size_t step) {
  bool drop_l[kEinsumMaxIds] = {}, drop_r[kEinsumMaxIds] = {};
  std::vector<int> all = L.ids;
  for (int id : R.ids)
    if (find(all, id) < 0) all.push_back(id);
  for (int id : all) {
    const int pl = find(L.ids, id), pr = find(R.ids, id);
    const int64_t sl = pl >= 0 ? L.t.size(pl) : 1, sr = pr >= 0 ? R.t.size(pr) : 1;
    if (summable[id]) {
      if (pl >= 0 && pr >= 0 && sl != 1 && sr != 1) continue;  // the product sums it
      drop_l[id] = pl >= 0;
      drop_r[id] = pr >= 0;
    } else if (pl >= 0 && pr >= 0 && sl != sr) {  // one side is 1 and broadcasts
      (sl == 1 ? drop_l : drop_r)[id] = true;
    }
  }
  drop_dims(L, drop_l);
  drop_dims(R, drop_r);
  std::vector<int> batch, inner, lo, ro;
  int64_t nb = 1, nk = 1, nl = 1, nr = 1;
  for (int id : L.ids) {
    if (find(R.ids, id) < 0) continue;
    (summable[id] ? inner : batch).push_back(id);
    (summable[id] ? nk : nb) *= size_of(L, id);
  }
  for (int id : L.ids)
    if (find(R.ids, id) < 0) {
      lo.push_back(id);
      nl *= size_of(L, id);
    }
  for (int id : R.ids)
    if (find(L.ids, id) < 0) {
      ro.push_back(id);
      nr *= size_of(R, id);
    }
  Operand out;
  out.ids = batch;
  out.ids.insert(out.ids.end(), lo.begin(), lo.end());
  out.ids.insert(out.ids.end(), ro.begin(), ro.end());
  TOCHA_CHECK(out.ids.size() <= size_t(kMaxDims), kOp, "contracting operand ", step + 1, " gives ", out.ids.size(),
              " dims; tensors have at most ", kMaxDims);
  DimVec shape;
  for (int id : out.ids) shape.push_back(find(L.ids, id) >= 0 ? size_of(L, id) : size_of(R, id));
  if (inner.empty()) {  // nothing to sum: a broadcast product (batch, lo, 1...) * (batch, 1..., ro)
    DimVec ls, rs;
    for (int id : batch) ls.push_back(size_of(L, id)), rs.push_back(size_of(L, id));
    for (int id : lo) ls.push_back(size_of(L, id)), rs.push_back(1);
    for (int id : ro) ls.push_back(1), rs.push_back(size_of(R, id));
    std::vector<int> lorder = batch, rorder = batch;
    lorder.insert(lorder.end(), lo.begin(), lo.end());
    rorder.insert(rorder.end(), ro.begin(), ro.end());
    out.t = binary(OpId::mul, arrange(L, lorder, ls), arrange(R, rorder, rs));
    return out;
  }
  check_product_dtype(kOp, L.t.dtype());
  std::vector<int> lorder = batch, rorder = batch;
  lorder.insert(lorder.end(), lo.begin(), lo.end());
  lorder.insert(lorder.end(), inner.begin(), inner.end());
  rorder.insert(rorder.end(), inner.begin(), inner.end());
  rorder.insert(rorder.end(), ro.begin(), ro.end());
  Tensor r = batch.empty() ? mm(arrange(L, lorder, {nl, nk}), arrange(R, rorder, {nk, nr}))
                           : bmm(arrange(L, lorder, {nb, nl, nk}), arrange(R, rorder, {nb, nk, nr}));
  out.t = view(r, shape);
  return out;
}

}  // namespace

std::string einsum_label(int id) {
  if (id < 26) return str_cat("'", char('A' + id), "'");
  if (id < kEinsumEllipsis) return str_cat("'", char('a' + id - 26), "'");
  return str_cat("'...' dim ", id - kEinsumEllipsis + 1);
}

EinsumEquation parse_einsum(const std::string& eq, const std::vector<DimVec>& shapes) {
  const size_t npos = std::string::npos, arrow = eq.find("->");
  TOCHA_CHECK(arrow == npos || eq.find("->", arrow + 2) == npos, kOp, "more than one '->' in '", eq, "'");
  const size_t lhs_end = arrow == npos ? eq.size() : arrow;
  size_t nterms = 1;
  for (size_t i = 0; i < lhs_end; ++i) nterms += eq[i] == ',';
  TOCHA_CHECK(nterms == shapes.size(), kOp, "the equation '", eq, "' has ", nterms,
              nterms == 1 ? " operand" : " operands", " but ", shapes.size(),
              shapes.size() == 1 ? " tensor was" : " tensors were", " given");
  std::vector<Term> terms;
  EinsumEquation e;
  for (size_t start = 0; terms.size() < nterms;) {
    size_t stop = std::min(eq.find(',', start), lhs_end);
    const size_t i = terms.size();
    terms.push_back(parse_term(eq, start, stop, str_cat("operand ", i + 1)));
    const Term& t = terms.back();
    const int labels = int(t.labels.size()), dims = shapes[i].size();
    TOCHA_CHECK(labels == dims || (t.ellipsis_at >= 0 && labels < dims), kOp, "operand ", i + 1, " ('", t.text,
                "') has ", labels, labels == 1 ? " label" : " labels", t.ellipsis_at >= 0 ? " and an ellipsis" : "",
                " but ", dims, dims == 1 ? " dim" : " dims", " (", sizes_of(shapes[i]), ")");
    if (t.ellipsis_at >= 0) e.ellipsis_dims = std::max(e.ellipsis_dims, dims - labels);
    start = stop + 1;
  }
  int count[kEinsumEllipsis] = {};
  for (size_t i = 0; i < nterms; ++i) {
    const Term& t = terms[i];
    const int covered = int(shapes[i].size()) - int(t.labels.size());
    std::vector<int>& ids = e.inputs.emplace_back();
    for (int j = 0; j <= int(t.labels.size()); ++j) {
      if (j == t.ellipsis_at)
        for (int k = 0; k < covered; ++k) ids.push_back(kEinsumEllipsis + e.ellipsis_dims - covered + k);
      if (j == int(t.labels.size())) break;
      ids.push_back(t.labels[j]);
      ++count[t.labels[j]];
    }
  }
  if (arrow == npos) {  // implicit output: the '...' dims, then the labels used once, sorted
    for (int k = 0; k < e.ellipsis_dims; ++k) e.output.push_back(kEinsumEllipsis + k);
    for (int id = 0; id < kEinsumEllipsis; ++id)
      if (count[id] == 1) e.output.push_back(id);
    return e;
  }
  Term out = parse_term(eq, arrow + 2, eq.size(), "the output");
  bool seen[kEinsumEllipsis] = {};
  for (int j = 0; j <= int(out.labels.size()); ++j) {
    if (j == out.ellipsis_at)
      for (int k = 0; k < e.ellipsis_dims; ++k) e.output.push_back(kEinsumEllipsis + k);
    if (j == int(out.labels.size())) break;
    const int id = out.labels[j];
    TOCHA_CHECK(count[id] > 0, kOp, "output label ", einsum_label(id), " does not appear in any operand of '", eq, "'");
    TOCHA_CHECK(!seen[id], kOp, "output label ", einsum_label(id), " appears more than once in '", eq, "'");
    seen[id] = true;
    e.output.push_back(id);
  }
  return e;
}

Tensor einsum(const std::string& eq, const std::vector<Tensor>& operands) {
  TOCHA_CHECK(!operands.empty(), kOp, "expected at least one operand for '", eq, "'");
  std::vector<DimVec> shapes;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (i > 0) linalg::check_same_type(kOp, "operand 1", operands[0], str_cat("operand ", i + 1).c_str(), operands[i]);
    shapes.push_back(operands[i].sizes());
  }
  const EinsumEquation e = parse_einsum(eq, shapes);
  check_sizes(e, shapes);
  bool in_output[kEinsumMaxIds] = {};
  int last_use[kEinsumMaxIds];
  for (int id = 0; id < kEinsumMaxIds; ++id) last_use[id] = -1;
  for (int id : e.output) in_output[id] = true;
  for (size_t i = 0; i < operands.size(); ++i)
    for (int id : e.inputs[i]) last_use[id] = int(i);
  Operand r = diagonal(operands[0], e.inputs[0]);
  if (operands.size() == 1) {
    bool drop[kEinsumMaxIds] = {};
    for (int id : r.ids) drop[id] = !in_output[id];
    drop_dims(r, drop, true);
  }
  for (size_t i = 1; i < operands.size(); ++i) {
    bool summable[kEinsumMaxIds] = {};
    for (int id = 0; id < kEinsumMaxIds; ++id) summable[id] = !in_output[id] && last_use[id] <= int(i);
    r = contract(r, diagonal(operands[i], e.inputs[i]), summable, i);
  }
  TOCHA_ASSERT(r.ids.size() == e.output.size());
  DimVec perm;
  for (int id : e.output) perm.push_back(find(r.ids, id));
  Tensor result = permuted(r.t, perm);
  for (const Tensor& t : operands)
    if (result.shares_storage(t)) return clone(result);
  return result;
}

}  // namespace tocha
