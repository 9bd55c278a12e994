// C ABI of serialization: streams, value codecs and checkpoint data blocks (core/io/).
#include "capi.h"
#include <cstring>
#include "core/io/blob.h"
#include "core/io/codec.h"
#include "core/io/file_stream.h"

using namespace tocha;
using namespace tocha::capi;

namespace {

io::Stream& stream_arg(tocha_stream* s, const char* op) {
  if (!s) fail(op, "stream is NULL");
  return *reinterpret_cast<io::Stream*>(s);
}
const io::Stream& stream_arg(const tocha_stream* s, const char* op) {
  return stream_arg(const_cast<tocha_stream*>(s), op);
}
tocha_stream* handle(io::Stream* s) { return reinterpret_cast<tocha_stream*>(s); }

io::Format format_arg(int flags) {
  io::Format f;
  f.ascii = (flags & TOCHA_IO_ASCII) != 0;
  f.autospace = (flags & TOCHA_IO_AUTOSPACE) != 0;
  return f;
}

size_t count_arg(int64_t n, const char* op) {
  TOCHA_CHECK(n >= 0, op, "negative count ", n);
  return size_t(n);
}

// Runs f (returning int64_t); -1 on error.
template <class F> int64_t guard_count(F&& f) noexcept {
  int64_t out = -1;
  bool ok;
  catch_all([&] { out = f(); }, &ok);
  return ok ? out : -1;
}

}  // namespace

// ---- streams ------------------------------------------------------------------------------------

tocha_stream* tocha_stream_open_file(const char* path, const char* mode) noexcept {
  io::Stream* out = nullptr;
  guard_int([&] {
    TOCHA_CHECK(path, "io", "path is NULL");
    std::string m = mode ? mode : "";
    io::FileStream::Mode fm;
    if (m == "r") fm = io::FileStream::Mode::read;
    else if (m == "w") fm = io::FileStream::Mode::write_atomic;
    else if (m == "rw") fm = io::FileStream::Mode::read_write;
    else fail("io", "file mode should be 'r', 'w' or 'rw', got '", m, "'");
    out = new io::FileStream(path, fm);
  });
  return handle(out);
}

tocha_stream* tocha_stream_open_memory(const void* data, int64_t n, int copy) noexcept {
  io::Stream* out = nullptr;
  guard_int([&] {
    size_t len = count_arg(n, "io");
    TOCHA_CHECK(data || len == 0, "io", "data is NULL");
    if (copy) out = new io::MemoryStream(data, len);
    else out = io::MemoryStream::borrow(data, len).release();
  });
  return handle(out);
}

void tocha_stream_free(tocha_stream* s) noexcept { delete reinterpret_cast<io::Stream*>(s); }

int tocha_stream_close(tocha_stream* s) noexcept {
  return guard_int([&] { stream_arg(s, "io").close(); });
}
int tocha_stream_is_open(const tocha_stream* s) noexcept {
  return s && reinterpret_cast<const io::Stream*>(s)->is_open() ? 1 : 0;
}
int tocha_stream_readable(const tocha_stream* s) noexcept {
  return s && reinterpret_cast<const io::Stream*>(s)->readable() ? 1 : 0;
}
int tocha_stream_writable(const tocha_stream* s) noexcept {
  return s && reinterpret_cast<const io::Stream*>(s)->writable() ? 1 : 0;
}

int64_t tocha_stream_read(tocha_stream* s, void* dst, int64_t n) noexcept {
  return guard_count([&] {
    size_t len = count_arg(n, "io");
    TOCHA_CHECK(dst || len == 0, "io", "destination is NULL");
    return int64_t(stream_arg(s, "io").read(dst, len));
  });
}
int tocha_stream_write(tocha_stream* s, const void* src, int64_t n) noexcept {
  return guard_int([&] {
    size_t len = count_arg(n, "io");
    TOCHA_CHECK(src || len == 0, "io", "source is NULL");
    stream_arg(s, "io").write(src, len);
  });
}
int tocha_stream_peek(tocha_stream* s) noexcept {
  int out = -2;
  bool ok;
  catch_all([&] { out = stream_arg(s, "io").peek(); }, &ok);
  return ok ? out : -2;
}
int tocha_stream_seek(tocha_stream* s, int64_t pos) noexcept {
  return guard_int([&] {
    TOCHA_CHECK(pos >= 0, "io", "negative position ", pos);
    stream_arg(s, "io").seek(uint64_t(pos));
  });
}
int64_t tocha_stream_tell(const tocha_stream* s) noexcept {
  return guard_count([&] { return int64_t(stream_arg(s, "io").tell()); });
}
int64_t tocha_stream_size(const tocha_stream* s) noexcept {
  return guard_count([&] { return int64_t(stream_arg(s, "io").size()); });
}
int tocha_stream_flush(tocha_stream* s) noexcept {
  return guard_int([&] { stream_arg(s, "io").flush(); });
}
const char* tocha_stream_data(const tocha_stream* s, int64_t* n) noexcept {
  auto* m = dynamic_cast<const io::MemoryStream*>(reinterpret_cast<const io::Stream*>(s));
  if (n) *n = m ? int64_t(m->size()) : 0;
  return m ? m->data() : nullptr;
}

// ---- values -------------------------------------------------------------------------------------

int tocha_stream_write_values(tocha_stream* s, const void* src, int kind, int64_t n, int flags) noexcept {
  return guard_int([&] {
    size_t len = count_arg(n, "io");
    TOCHA_CHECK(src || len == 0, "io", "source is NULL");
    io::write_values(stream_arg(s, "io"), src, io::arg_kind(kind, "io"), len, format_arg(flags));
  });
}
int64_t tocha_stream_read_values(tocha_stream* s, void* dst, int kind, int64_t n, int flags) noexcept {
  return guard_count([&] {
    size_t len = count_arg(n, "io");
    TOCHA_CHECK(dst || len == 0, "io", "destination is NULL");
    return int64_t(io::read_values(stream_arg(s, "io"), dst, io::arg_kind(kind, "io"), len, format_arg(flags)));
  });
}
int tocha_stream_write_tensor(tocha_stream* s, const tocha_tensor* t, int kind, int flags) noexcept {
  return guard_int([&] {
    io::write_tensor_values(stream_arg(s, "io"), arg(t, "io"), io::arg_kind(kind, "io"), format_arg(flags));
  });
}
int64_t tocha_stream_read_tensor(tocha_stream* s, tocha_tensor* t, int kind, int flags) noexcept {
  return guard_count([&] {
    return int64_t(io::read_tensor_values(stream_arg(s, "io"), arg(t, "io"), io::arg_kind(kind, "io"),
                                          format_arg(flags)));
  });
}
tocha_tensor* tocha_stream_read_storage(tocha_stream* s, int64_t n, int kind, int dtype, int flags) noexcept {
  return guard_tensor([&] {
    return io::read_storage(stream_arg(s, "io"), n, io::arg_kind(kind, "io"), arg_dtype(dtype, "io"),
                            format_arg(flags));
  });
}

// ---- checkpoint data blocks -----------------------------------------------------------------------

int tocha_stream_write_blob(tocha_stream* s, const tocha_tensor* t, int64_t align, int64_t* nbytes, int64_t* padded,
                            uint32_t* crc) noexcept {
  return guard_int([&] {
    TOCHA_CHECK(align >= 1 && align <= 4096, "io", "invalid alignment ", align);
    io::BlobInfo b = io::write_storage_blob(stream_arg(s, "io"), arg(t, "io"), uint64_t(align));
    if (nbytes) *nbytes = int64_t(b.nbytes);
    if (padded) *padded = int64_t(b.padded);
    if (crc) *crc = b.crc;
  });
}
int64_t tocha_stream_pad(tocha_stream* s, int64_t align) noexcept {
  return guard_count([&] {
    TOCHA_CHECK(align >= 1 && align <= 4096, "io", "invalid alignment ", align);
    return int64_t(io::write_padding(stream_arg(s, "io"), uint64_t(align)));
  });
}
tocha_tensor* tocha_stream_read_blob(tocha_stream* s, int64_t offset, int64_t nbytes, int64_t padded, int dtype,
                                     int mmap, int verify, uint32_t crc) noexcept {
  return guard_tensor([&] {
    io::Stream& st = stream_arg(s, "io");
    if (offset < 0 || nbytes < 0 || padded < 0)
      st.fail(str_cat("corrupt data: negative offset or size (", offset, ", ", nbytes, ")"));
    return io::read_blob(st, uint64_t(offset), uint64_t(nbytes), uint64_t(padded), arg_dtype(dtype, "io"),
                         mmap != 0, verify != 0, crc);
  });
}
tocha_tensor* tocha_tensor_view_checked(const tocha_tensor* base, int64_t offset, int ndim, const int64_t* sizes,
                                        const int64_t* strides, const char* what) noexcept {
  return guard_tensor([&] {
    const char* w = what ? what : "tensor";
    TOCHA_CHECK(ndim >= 0 && ndim <= kMaxDims, "load", w, ": ", ndim, " dimensions (at most ", kMaxDims, ")");
    TOCHA_CHECK(ndim == 0 || (sizes && strides), "load", w, ": sizes or strides are NULL");
    return io::checked_view(arg(base, "load"), offset, DimVec(sizes, ndim), DimVec(strides, ndim), w);
  });
}
uint32_t tocha_crc32(uint32_t crc, const void* data, int64_t n) noexcept {
  if (!data || n <= 0) return crc;
  return io::crc32_update(crc, data, size_t(n));
}
