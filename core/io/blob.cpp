// Storage blobs and checked views. See blob.h.
#include "core/io/blob.h"
#include <algorithm>
#include <climits>
#include <cstring>
#include <zlib.h>
#include "core/error.h"
#include "core/ops/pointwise.h"

namespace tocha {
namespace io {

uint32_t crc32_update(uint32_t crc, const void* data, size_t n) {
  auto p = static_cast<const Bytef*>(data);
  uLong c = crc;
  while (n > 0) {  // zlib takes uInt lengths
    uInt k = uInt(std::min<size_t>(n, 1u << 30));
    c = crc32(c, p, k);
    p += k;
    n -= k;
  }
  return uint32_t(c);
}

namespace {
const char kZeros[64] = {};
constexpr uint64_t kChunk = 1 << 20;

uint64_t pad_for(uint64_t pos, uint64_t align) { return align > 1 ? (align - pos % align) % align : 0; }
}  // namespace

uint64_t write_padding(Stream& s, uint64_t align) {
  uint64_t n = pad_for(s.tell(), align);
  for (uint64_t left = n; left > 0;) {
    size_t k = size_t(std::min<uint64_t>(left, sizeof kZeros));
    s.write(kZeros, k);
    left -= k;
  }
  return n;
}

BlobInfo write_storage_blob(Stream& s, const Tensor& t, uint64_t align) {
  BlobInfo info;
  const Ref<Storage>& st = t.storage();
  info.nbytes = st ? st->nbytes() : 0;
  if (info.nbytes) {
    int64_t n = int64_t(info.nbytes / t.elsize());
    Tensor whole = make_view(st, t.dtype(), DimVec{n}, DimVec{1}, 0);
    if (!whole.is_cpu()) {  // stage device memory through the host
      Tensor h = empty(DimVec{n}, t.dtype(), Device{});
      copy_(h, whole);
      whole = h;
    }
    // Checksum each chunk just before writing it, while it is in cache (one pass over memory).
    const char* data = static_cast<const char*>(whole.raw_data());
    for (uint64_t at = 0; at < info.nbytes; at += kChunk) {
      size_t k = size_t(std::min<uint64_t>(kChunk, info.nbytes - at));
      info.crc = crc32_update(info.crc, data + at, k);
      s.write(data + at, k);
    }
  }
  uint64_t pad = pad_for(s.tell(), align);
  for (uint64_t left = pad; left > 0;) {
    size_t k = size_t(std::min<uint64_t>(left, sizeof kZeros));
    info.crc = crc32_update(info.crc, kZeros, k);
    s.write(kZeros, k);
    left -= k;
  }
  info.padded = info.nbytes + pad;
  return info;
}

Tensor read_blob(Stream& s, uint64_t offset, uint64_t nbytes, uint64_t padded, DType dt, bool mmap, bool verify,
                 uint32_t crc) {
  uint64_t size = s.size();
  size_t es = dtype_size(dt);
  if (nbytes > padded || offset > size || padded > size - offset)
    s.fail(str_cat("corrupt data: a tensor block of ", nbytes, " bytes at offset ", offset,
                   " lies outside the file (", size, " bytes)"));
  if (nbytes % es != 0)
    s.fail(str_cat("corrupt data: a ", dtype_name(dt), " tensor block of ", nbytes, " bytes is not a whole number of ",
                   es, "-byte elements"));
  int64_t n = int64_t(nbytes / es);
  Ref<Storage> st = mmap && nbytes > 0 ? s.map(offset, nbytes) : Ref<Storage>();
  Tensor t;
  if (st) {
    t = make_view(st, dt, DimVec{n}, DimVec{1}, 0);
    if (!verify) return t;
  }
  uint32_t c = 0;
  if (!st) {
    t = empty(DimVec{n}, dt, Device{});
    s.seek(offset);
    char* dst = static_cast<char*>(t.raw_data());
    for (uint64_t at = 0; at < nbytes; at += kChunk) {  // checksum each chunk while it is in cache
      size_t k = size_t(std::min<uint64_t>(kChunk, nbytes - at));
      s.read_exact(dst + at, k, "tensor data");
      if (verify) c = crc32_update(c, dst + at, k);
    }
  } else if (verify) {
    c = crc32_update(0, t.raw_data(), size_t(nbytes));
  }
  if (verify) {
    char pad[64];
    s.seek(offset + nbytes);
    for (uint64_t left = padded - nbytes; left > 0;) {
      size_t k = size_t(std::min<uint64_t>(left, sizeof pad));
      s.read_exact(pad, k, "padding");
      c = crc32_update(c, pad, k);
      left -= k;
    }
    if (c != crc)
      s.fail(str_cat("checksum mismatch in the tensor data at offset ", offset, " (", nbytes,
                     " bytes): the file is corrupt"));
  }
  if (dt == DType::b8 && !st) {  // a bool must be 0 or 1, whatever byte the file held
    auto* p = static_cast<uint8_t*>(t.raw_data());
    for (int64_t i = 0; i < n; ++i) p[i] = p[i] != 0;
  }
  return t;
}

Tensor checked_view(const Tensor& base, int64_t offset, const DimVec& sizes, const DimVec& strides, const char* what) {
  int64_t have = base.numel();
  TOCHA_CHECK(sizes.size() == strides.size(), "load", what, ": ", sizes.size(), " sizes but ", strides.size(),
              " strides");
  TOCHA_CHECK(offset >= 0 && offset <= have, "load", what, ": storage offset ", offset + 1,
              " is outside its storage of ", have, " elements");
  int64_t last = offset;
  bool empty_view = false;
  for (int d = 0; d < sizes.size(); ++d) {
    TOCHA_CHECK(sizes[d] >= 0 && strides[d] >= 0, "load", what, ": negative size or stride in dimension ", d + 1);
    if (sizes[d] == 0) empty_view = true;
  }
  if (!empty_view) {
    for (int d = 0; d < sizes.size(); ++d) {
      int64_t step;
      if (__builtin_mul_overflow(sizes[d] - 1, strides[d], &step) || __builtin_add_overflow(last, step, &last))
        fail("load", what, ": size ", shape_str(sizes), " with its strides overflows");
    }
    TOCHA_CHECK(last < have, "load", what, ": a view of size ", shape_str(sizes), " at offset ", offset + 1,
                " reaches element ", last + 1, " of a storage of ", have);
  }
  shape_numel(sizes, "load");  // throws on overflow
  return alias_with(base, sizes, strides, offset);
}

}  // namespace io
}  // namespace tocha
