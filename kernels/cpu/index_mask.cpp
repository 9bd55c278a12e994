// CPU kernels of the mask ops: maskedFill (a pointwise kernel) and the two passes of
// Note [Mask scan] for nonzero, maskedSelect and maskedCopy, parallel over chunks.
#include <algorithm>
#include <cstring>
#include "core/kernel_registry.h"
#include "core/ops/index_geometry.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/select_loops.h"

namespace tocha {
namespace cpu {
namespace {

template <class T> inline bool is_nonzero(T x) {
  if constexpr (std::is_same<T, bool>::value) return x;
  else return opmath_t<T>(x) != opmath_t<T>(0);  // NaN counts as non-zero
}

// Calls body(n, off) for the rows that make up elements [begin, end) of it, in order: n elements
// starting at element offsets off[k], stepping it.strides[k][it.ndim - 1].
template <class Body> void for_rows_in(const PointwiseIter& it, int64_t begin, int64_t end, const Body& body) {
  const int nd = it.ndim, inner = nd - 1;
  int64_t idx[kMaxDims];
  int64_t rem = begin;
  for (int d = nd - 1; d >= 0; --d) { idx[d] = rem % it.shape[d]; rem /= it.shape[d]; }
  int64_t pos = begin;
  while (pos < end) {
    int64_t off[kMaxOperands];
    for (int k = 0; k < it.noperands; ++k) {
      off[k] = 0;
      for (int d = 0; d < nd; ++d) off[k] += idx[d] * it.strides[k][d];
    }
    int64_t n = std::min(it.shape[inner] - idx[inner], end - pos);
    body(n, off);
    pos += n;
    idx[inner] += n;
    for (int d = inner; d > 0 && idx[d] >= it.shape[d]; --d) { idx[d] = 0; ++idx[d - 1]; }
  }
}

// Runs f(chunk, begin, end) for every chunk of the scan, in parallel.
template <class F> void for_chunks(const PointwiseIter& it, const MaskScan& sc, const F& f) {
  parallel_for(sc.nchunks, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) f(c, c * sc.chunk, std::min(it.numel, (c + 1) * sc.chunk));
  });
}

// Whether elements of operand k may share memory (core/shape.h): check_writable rejects expanded
// tensors only, not asStrided or unfold views.
bool may_overlap(const PointwiseIter& it, int k) { return tocha::may_overlap(it.ndim, it.shape, it.strides[k]); }

// nonzero's write pass over chunk c (elements [b, e)): the coordinates, in the caller's
// (uncoalesced) shape, of the non-zero elements; kNd is that shape's rank, or 0 for any rank.
template <class T, int kNd> void write_coords(const PointwiseIter& it, const MaskScan& sc, int64_t c, int64_t b, int64_t e) {
  const int nd = kNd ? kNd : sc.ndim, last = nd - 1;
  if (nd == 0) return;  // a 0-dim input: no coordinates to write
  const int64_t st = it.strides[0][it.ndim - 1], base = sc.index_base, last_size = sc.shape[last];
  int64_t coord[kMaxDims];  // of the current element, advanced one element at a time
  int64_t rem = b;
  for (int d = nd - 1; d >= 0; --d) { coord[d] = rem % sc.shape[d]; rem /= sc.shape[d]; }
  int64_t* out = reinterpret_cast<int64_t*>(sc.flat) + sc.counts[c] * nd;
  int64_t* const end = reinterpret_cast<int64_t*>(sc.flat) + sc.counts[c + 1] * nd;
  for_rows_in(it, b, e, [&](int64_t n, const int64_t* off) {
    const T* x = reinterpret_cast<const T*>(it.data[0]) + off[0];
    for (int64_t j = 0; j < n && out != end; ++j) {  // Note [Branch-free compaction]
      for (int d = 0; d < nd; ++d) out[d] = coord[d] + base;
      out += is_nonzero(x[j * st]) ? nd : 0;
      if (++coord[last] == last_size) {
        coord[last] = 0;
        for (int d = last - 1; d >= 0 && ++coord[d] == sc.shape[d]; --d) coord[d] = 0;
      }
    }
  });
}

// Count pass (every dtype, masks included) and nonzero's write pass.
template <class T> void nonzero_kernel(const PointwiseIter& it, const MaskScan& sc) {
  const int64_t st = it.strides[0][it.ndim - 1];
  for_chunks(it, sc, [&](int64_t c, int64_t b, int64_t e) {
    if (sc.count_only) {
      int64_t cnt = 0;
      for_rows_in(it, b, e, [&](int64_t n, const int64_t* off) {
        const T* x = reinterpret_cast<const T*>(it.data[0]) + off[0];
        if (st == 1) {
#pragma omp simd reduction(+ : cnt)
          for (int64_t j = 0; j < n; ++j) cnt += is_nonzero(x[j]);
        } else {
          for (int64_t j = 0; j < n; ++j) cnt += is_nonzero(x[j * st]);
        }
      });
      sc.counts[c] = cnt;
      return;
    }
    switch (sc.ndim) {  // the coordinate loops unrolled for the common ranks
      case 1: write_coords<T, 1>(it, sc, c, b, e); break;
      case 2: write_coords<T, 2>(it, sc, c, b, e); break;
      case 3: write_coords<T, 3>(it, sc, c, b, e); break;
      case 4: write_coords<T, 4>(it, sc, c, b, e); break;
      default: write_coords<T, 0>(it, sc, c, b, e);
    }
  });
}

// Note [Branch-free compaction]: maskedSelect and nonzero wrote an element when its mask byte was
// set, a branch that a random mask mispredicts half the time (a 256x256 maskedSelect: 265 us,
// PyTorch 317). Each element is now written at the chunk's next place and the place advances by
// the mask, so the loop has no data-dependent branch. The write of an unselected element lands
// on a place a later element overwrites; it stays inside the chunk's own places because the loop
// stops once they are all filled (counts[c + 1]), so no thread writes into another's.
// Operand 0 is the mask (u8 or bool bytes), operand 1 the data.
template <class T> void masked_select_kernel(const PointwiseIter& it, const MaskScan& sc) {
  const int64_t sm = it.strides[0][it.ndim - 1], sx = it.strides[1][it.ndim - 1];
  for_chunks(it, sc, [&](int64_t c, int64_t b, int64_t e) {
    T* out = reinterpret_cast<T*>(sc.flat) + sc.counts[c];
    T* const end = reinterpret_cast<T*>(sc.flat) + sc.counts[c + 1];
    for_rows_in(it, b, e, [&](int64_t n, const int64_t* off) {
      const uint8_t* m = reinterpret_cast<const uint8_t*>(it.data[0]) + off[0];
      const T* x = reinterpret_cast<const T*>(it.data[1]) + off[1];
      for (int64_t j = 0; j < n && out != end; ++j) {
        *out = x[j * sx];
        out += m[j * sm] != 0;
      }
    });
  });
}

template <class T> void masked_copy_kernel(const PointwiseIter& it, const MaskScan& sc) {
  const int64_t sm = it.strides[0][it.ndim - 1], sx = it.strides[1][it.ndim - 1];
  if (may_overlap(it, 1)) {  // rewriting an unmasked element could undo a masked one's write:
    const T* src = reinterpret_cast<const T*>(sc.flat);  // only the masked ones, in order, on one thread
    for_rows_in(it, 0, it.numel, [&](int64_t n, const int64_t* off) {
      const uint8_t* m = reinterpret_cast<const uint8_t*>(it.data[0]) + off[0];
      T* x = reinterpret_cast<T*>(it.data[1]) + off[1];
      for (int64_t j = 0; j < n; ++j)
        if (m[j * sm]) x[j * sx] = *src++;
    });
    return;
  }
  for_chunks(it, sc, [&](int64_t c, int64_t b, int64_t e) {
    const T* src = reinterpret_cast<const T*>(sc.flat) + sc.counts[c];
    const T* const end = reinterpret_cast<const T*>(sc.flat) + sc.counts[c + 1];
    for_rows_in(it, b, e, [&](int64_t n, const int64_t* off) {
      const uint8_t* m = reinterpret_cast<const uint8_t*>(it.data[0]) + off[0];
      T* x = reinterpret_cast<T*>(it.data[1]) + off[1];
      // Note [Branch-free compaction], read side: each element is rewritten (itself when unmasked;
      // tensors whose elements may share memory took the loop above) until the chunk's source is
      // used up.
      for (int64_t j = 0; j < n && src != end; ++j) {
        const uint8_t take = m[j * sm];
        x[j * sx] = blend(take, *src, x[j * sx]);
        src += take != 0;
      }
    });
  });
}

// Operand 0 is the tensor, 1 the mask, 2 the fill value (a scalar of the tensor's dtype).
template <class T> void masked_fill_kernel(const PointwiseIter& it) {
  if (it.numel == 0) return;
  T v;
  std::memcpy(&v, it.data[2], sizeof(T));
  if (may_overlap(it, 0)) {  // as in masked_copy_kernel: only the masked elements, on one thread
    for_rows_in(it, 0, it.numel, [&](int64_t n, const int64_t* off) {
      T* o = reinterpret_cast<T*>(it.data[0]) + off[0];
      const uint8_t* m = reinterpret_cast<const uint8_t*>(it.data[1]) + off[1];
      const int64_t so = it.strides[0][it.ndim - 1], sm = it.strides[1][it.ndim - 1];
      for (int64_t j = 0; j < n; ++j)
        if (m[j * sm]) o[j * so] = v;
    });
    return;
  }
  for_each_row(it, kGrainSize, [&](int64_t n, char** p, const int64_t* off, const int64_t (*st)[kMaxDims], int inner) {
    T* o = reinterpret_cast<T*>(p[0]) + off[0];
    const uint8_t* m = reinterpret_cast<const uint8_t*>(p[1]) + off[1];
    // Note [Branch-free selects]: every element is rewritten, the unmasked ones with themselves
    // (no two share memory: those that may took the loop above).
    select_row(o, st[0][inner], m, st[1][inner], &v, 0, o, st[0][inner], n);
  });
}

#define REG_MASK(T)                                                                            \
  TOCHA_REGISTER_KERNEL(nonzero, cpu, DTypeOf<T>::value, &nonzero_kernel<T>);                \
  TOCHA_REGISTER_KERNEL(maskedSelect, cpu, DTypeOf<T>::value, &masked_select_kernel<T>);     \
  TOCHA_REGISTER_KERNEL(maskedCopy, cpu, DTypeOf<T>::value, &masked_copy_kernel<T>);         \
  TOCHA_REGISTER_KERNEL(maskedFill, cpu, DTypeOf<T>::value, &masked_fill_kernel<T>);

TOCHA_FOR_ALL_TYPES(REG_MASK)

}  // namespace
}  // namespace cpu
}  // namespace tocha
