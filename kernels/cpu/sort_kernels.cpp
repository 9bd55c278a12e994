// CPU kernels of sort, topk, kthvalue, median and mode. Each slice is copied with its indices
// into a per-thread buffer of (key, index) items and sorted or partially ordered there. Items
// compare by key with NaN after every number, then by index, so the order is total: sort is
// stable and ties resolve the same way on every run.
#include <algorithm>
#include <vector>
#include "core/kernel_registry.h"
#include "kernels/cpu/radix_sort.h"
#include "kernels/cpu/reduce_loops.h"

namespace tocha {
namespace cpu {
namespace {

// a < b with NaN largest (NaNs equal to each other).
template <class K> inline bool key_less(K a, K b) { return a < b || (is_nan(b) && !is_nan(a)); }

template <class K> struct Item {
  K k;
  int64_t i;
};
template <class K> struct Ascending {
  bool operator()(const Item<K>& a, const Item<K>& b) const {
    if (key_less(a.k, b.k)) return true;
    if (key_less(b.k, a.k)) return false;
    return a.i < b.i;
  }
};
template <class K> struct Descending {
  bool operator()(const Item<K>& a, const Item<K>& b) const {
    if (key_less(b.k, a.k)) return true;
    if (key_less(a.k, b.k)) return false;
    return a.i < b.i;
  }
};

// The slice of operand 0 at off as items (key, position).
template <class T> using Buffer = std::vector<Item<opmath_t<T>>>;
template <class T> void load(const ReduceIter& it, const int64_t* off, Buffer<T>& buf) {
  const T* p = reinterpret_cast<const T*>(it.data[0]) + off[0];
  const int64_t n = it.rshape[0], st = it.rstrides[0][0];
  buf.resize(size_t(n));
  for (int64_t i = 0; i < n; ++i) buf[size_t(i)] = {opmath_t<T>(p[i * st]), i};
}
// Writes items [0, n) of buf as values (operand 1) and indices (operand 2) along the slice.
template <class T> void store(const ReduceIter& it, const int64_t* off, const Buffer<T>& buf, int64_t n) {
  T* v = reinterpret_cast<T*>(it.data[1]) + off[1];
  int64_t* ix = reinterpret_cast<int64_t*>(it.data[2]) + off[2];
  const int64_t sv = it.rstrides[1][0], si = it.rstrides[2][0];
  for (int64_t i = 0; i < n; ++i) {
    v[i * sv] = cast_result<T>(buf[size_t(i)].k);
    ix[i * si] = buf[size_t(i)].i + it.index_base;
  }
}

// Note [Radix sort] (radix_sort.h): slices of kRadixMin elements and more are radix-sorted;
// shorter ones, where the 256-bucket histograms cost more than the comparisons, keep std::sort.
// Both give the same order. The slice's values are copied first: the values result may be the
// input itself (sort(x, x)), and each value is written from its position.
constexpr int64_t kRadixMin = 32;
template <class T> struct SortScratch {
  using K = opmath_t<T>;
  using U = typename RadixUint<K>::type;
  using Stored = std::conditional_t<std::is_same<T, bool>::value, uint8_t, T>;  // not vector<bool>
  Buffer<T> items;
  std::vector<U> keys;
  std::vector<int64_t> idx;
  std::vector<Stored> vals;
};

template <class T> void radix_sort_slice(const ReduceIter& it, const int64_t* off, bool descending, SortScratch<T>& s) {
  using K = opmath_t<T>;
  using U = typename SortScratch<T>::U;
  const T* p = reinterpret_cast<const T*>(it.data[0]) + off[0];
  const int64_t n = it.rshape[0], st = it.rstrides[0][0];
  s.keys.resize(size_t(2 * n));
  s.idx.resize(size_t(2 * n));
  s.vals.resize(size_t(n));
  const U flip = descending ? U(~U(0)) : U(0);
  for (int64_t i = 0; i < n; ++i) {
    const T v = p[i * st];
    s.vals[size_t(i)] = v;
    s.keys[size_t(i)] = U(radix_key(K(v)) ^ flip);
    s.idx[size_t(i)] = i;
  }
  const bool second = radix_sort(s.keys.data(), s.idx.data(), s.keys.data() + n, s.idx.data() + n, n);
  const int64_t* order = s.idx.data() + (second ? n : 0);
  T* v = reinterpret_cast<T*>(it.data[1]) + off[1];
  int64_t* ix = reinterpret_cast<int64_t*>(it.data[2]) + off[2];
  const int64_t sv = it.rstrides[1][0], si = it.rstrides[2][0];
  for (int64_t i = 0; i < n; ++i) {
    v[i * sv] = T(s.vals[size_t(order[i])]);
    ix[i * si] = order[i] + it.index_base;
  }
}

template <class T> void sort_kernel(const ReduceIter& it) {
  using K = opmath_t<T>;
  const bool descending = it.params[0] != 0;
  for_each_slice<SortScratch<T>>(it, [&](const int64_t* off, SortScratch<T>& s) {
    if (it.rshape[0] >= kRadixMin) return radix_sort_slice<T>(it, off, descending, s);
    Buffer<T>& buf = s.items;
    load<T>(it, off, buf);
    if (descending) std::sort(buf.begin(), buf.end(), Descending<K>{});
    else std::sort(buf.begin(), buf.end(), Ascending<K>{});
    store<T>(it, off, buf, int64_t(buf.size()));
  });
}

// The k first items of buf in the order of cmp. A small k (at most 32, or a 48th of the items)
// keeps partial_sort's heap of k, which rejects most items with one comparison against its top;
// a larger k is a selection, then a sort of those k (topk(100) of 256-long rows: 2.2 -> 1.1 ms;
// through nth_element, topk(5) of 2048-long rows took 3.8x partial_sort's time, and the two meet
// near k = 50 there).
template <class It, class Cmp> void order_first(It begin, It end, int64_t k, Cmp cmp) {
  if (end - begin <= 32) {  // a few items: sorting them all beats building a heap (topk(5) of 10: 697
    std::sort(begin, end, cmp);  // instructions a row in the heap's sift-downs)
    return;
  }
  if (k <= 32 || k * 48 <= end - begin) {
    std::partial_sort(begin, begin + k, end, cmp);
    return;
  }
  if (begin + k < end) std::nth_element(begin, begin + k, end, cmp);
  std::sort(begin, begin + k, cmp);
}

// params = {k, largest}: the k best items come first, in order.
template <class T> void topk_kernel(const ReduceIter& it) {
  using K = opmath_t<T>;
  const int64_t k = int64_t(it.params[0]);
  const bool largest = it.params[1] != 0;
  if (k == 0) return;
  for_each_slice<Buffer<T>>(it, [&](const int64_t* off, Buffer<T>& buf) {
    load<T>(it, off, buf);
    if (largest) order_first(buf.begin(), buf.end(), k, Descending<K>{});
    else order_first(buf.begin(), buf.end(), k, Ascending<K>{});
    store<T>(it, off, buf, k);
  });
}

// The item of rank k (0-based) in ascending order, at buf[0].
template <class T> void select_rank(Buffer<T>& buf, int64_t k) {
  std::nth_element(buf.begin(), buf.begin() + k, buf.end(), Ascending<opmath_t<T>>{});
  buf[0] = buf[size_t(k)];
}

// params = {k}, counting from 1.
template <class T> void kthvalue_kernel(const ReduceIter& it) {
  const int64_t k = int64_t(it.params[0]);
  for_each_slice<Buffer<T>>(it, [&](const int64_t* off, Buffer<T>& buf) {
    load<T>(it, off, buf);
    select_rank<T>(buf, k - 1);
    store<T>(it, off, buf, 1);
  });
}

// Lower median; a slice with a NaN has median NaN at the first NaN's index (PyTorch).
template <class T> void median_kernel(const ReduceIter& it) {
  for_each_slice<Buffer<T>>(it, [&](const int64_t* off, Buffer<T>& buf) {
    load<T>(it, off, buf);
    auto nan = std::find_if(buf.begin(), buf.end(), [](const Item<opmath_t<T>>& x) { return is_nan(x.k); });
    if (nan != buf.end()) buf[0] = *nan;
    else select_rank<T>(buf, (int64_t(buf.size()) - 1) / 2);
    store<T>(it, off, buf, 1);
  });
}

// Most frequent value: runs of equal keys in sorted order; the first longest run wins (the
// smallest value, as in Torch7) and reports its last (largest) original index.
template <class T> void mode_kernel(const ReduceIter& it) {
  using K = opmath_t<T>;
  for_each_slice<Buffer<T>>(it, [&](const int64_t* off, Buffer<T>& buf) {
    load<T>(it, off, buf);
    std::sort(buf.begin(), buf.end(), Ascending<K>{});
    const size_t n = buf.size();
    Item<K> best = buf[n - 1];
    size_t best_len = 0, run = 0;
    for (size_t i = 0; i < n; ++i) {
      ++run;
      if (i + 1 == n || key_less(buf[i].k, buf[i + 1].k)) {
        if (run > best_len) {
          best_len = run;
          best = buf[i];
        }
        run = 0;
      }
    }
    buf[0] = best;
    store<T>(it, off, buf, 1);
  });
}

#define REG(op, T) TOCHA_REGISTER_KERNEL(op, cpu, DTypeOf<T>::value, &op##_kernel<T>);
#define REG_ALL(T) REG(sort, T) REG(topk, T) REG(kthvalue, T) REG(median, T) REG(mode, T)

TOCHA_FOR_ALL_TYPES(REG_ALL)

}  // namespace
}  // namespace cpu
}  // namespace tocha
