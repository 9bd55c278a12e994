/* tocha_serialize.h -- C ABI of serialization: byte streams (memory, atomic files, mmap), value
 * codecs (binary, Torch7 ascii) and checksummed tensor data blocks; the object formats live in
 * lua/torch/serialize*.lua. Included by tocha.h; see its conventions. */
#ifndef TOCHA_SERIALIZE_ABI_H
#define TOCHA_SERIALIZE_ABI_H

/* A byte stream over memory or a file. Not thread-safe. Errors name the stream ("[io] path: ..."). */
typedef struct tocha_stream tocha_stream;

/* Element kinds of file values: Torch7's Byte, Char, Short, Int, Long, Float, Double, Half, then
   bf16 and bool (safetensors). */
enum {
  TOCHA_IO_U8 = 0, TOCHA_IO_I8, TOCHA_IO_I16, TOCHA_IO_I32, TOCHA_IO_I64,
  TOCHA_IO_F32, TOCHA_IO_F64, TOCHA_IO_F16, TOCHA_IO_BF16, TOCHA_IO_BOOL
};
/* Flags of the value codecs: Torch7 ascii text (else raw little-endian bytes), and ascii
   auto-spacing (a space between values, a newline after each call). */
enum { TOCHA_IO_ASCII = 1, TOCHA_IO_AUTOSPACE = 2 };

/* ---- streams ------------------------------------------------------------------------------ */
/* Opens a file: "r" reads, "w" writes atomically (the file appears at path, replacing the old
   one, only when tocha_stream_close succeeds; a freed or crashed writer leaves the old file),
   "rw" reads and writes in place. */
TOCHA_API tocha_stream *tocha_stream_open_file(const char *path, const char *mode) TOCHA_NOEXCEPT;
/* A memory stream: with copy != 0 a writable buffer starting with a copy of data[0, n) (data may
   be NULL); with copy == 0 a read-only view of data, which must outlive the stream. */
TOCHA_API tocha_stream *tocha_stream_open_memory(const void *data, int64_t n, int copy) TOCHA_NOEXCEPT;
/* Frees the stream (an unclosed atomic write is discarded). */
TOCHA_API void tocha_stream_free(tocha_stream *s) TOCHA_NOEXCEPT;
/* Flushes and closes; commits atomic writes (fsync, rename, directory fsync). */
TOCHA_API int tocha_stream_close(tocha_stream *s) TOCHA_NOEXCEPT;
TOCHA_API int tocha_stream_is_open(const tocha_stream *s) TOCHA_NOEXCEPT;
/* 1 when the stream can read (resp. write). */
TOCHA_API int tocha_stream_readable(const tocha_stream *s) TOCHA_NOEXCEPT;
TOCHA_API int tocha_stream_writable(const tocha_stream *s) TOCHA_NOEXCEPT;
/* Reads up to n bytes; returns the count (short at the end), -1 on error. */
TOCHA_API int64_t tocha_stream_read(tocha_stream *s, void *dst, int64_t n) TOCHA_NOEXCEPT;
TOCHA_API int tocha_stream_write(tocha_stream *s, const void *src, int64_t n) TOCHA_NOEXCEPT;
/* The next byte without consuming it; -1 at the end, -2 on error. */
TOCHA_API int tocha_stream_peek(tocha_stream *s) TOCHA_NOEXCEPT;
TOCHA_API int tocha_stream_seek(tocha_stream *s, int64_t pos) TOCHA_NOEXCEPT;
TOCHA_API int64_t tocha_stream_tell(const tocha_stream *s) TOCHA_NOEXCEPT;
TOCHA_API int64_t tocha_stream_size(const tocha_stream *s) TOCHA_NOEXCEPT;
TOCHA_API int tocha_stream_flush(tocha_stream *s) TOCHA_NOEXCEPT;
/* A memory stream's bytes and their count (valid until the next write); NULL for files. */
TOCHA_API const char *tocha_stream_data(const tocha_stream *s, int64_t *n) TOCHA_NOEXCEPT;

/* ---- values -------------------------------------------------------------------------------- */
/* Writes n values of kind (TOCHA_IO_*) from src with flags (TOCHA_IO_ASCII | TOCHA_IO_AUTOSPACE). */
TOCHA_API int tocha_stream_write_values(tocha_stream *s, const void *src, int kind, int64_t n, int flags) TOCHA_NOEXCEPT;
/* Reads up to n values into dst; returns the count read (short at the end or on bad text), -1 on error. */
TOCHA_API int64_t tocha_stream_read_values(tocha_stream *s, void *dst, int kind, int64_t n, int flags) TOCHA_NOEXCEPT;
/* Writes t's elements (any dtype, strides, device) in row-major order as values of kind. */
TOCHA_API int tocha_stream_write_tensor(tocha_stream *s, const tocha_tensor *t, int kind, int flags) TOCHA_NOEXCEPT;
/* Reads values of kind into contiguous CPU tensor t, converting; returns the count read, -1 on error. */
TOCHA_API int64_t tocha_stream_read_tensor(tocha_stream *s, tocha_tensor *t, int kind, int flags) TOCHA_NOEXCEPT;
/* A new 1D tensor of dtype with the next n values of kind; n is checked against the bytes left
   before allocating, so a corrupt count is an error, not a huge allocation. */
TOCHA_API tocha_tensor *tocha_stream_read_storage(tocha_stream *s, int64_t n, int kind, int dtype,
                                                  int flags) TOCHA_NOEXCEPT;

/* ---- checkpoint data blocks ------------------------------------------------------------------ */
/* Writes every byte of the storage under t, then zero padding up to a multiple of align; stores
   the storage bytes, the padded length and the CRC-32 of the padded bytes. */
TOCHA_API int tocha_stream_write_blob(tocha_stream *s, const tocha_tensor *t, int64_t align, int64_t *nbytes,
                                      int64_t *padded, uint32_t *crc) TOCHA_NOEXCEPT;
/* Writes zeros up to a multiple of align; returns how many, -1 on error. */
TOCHA_API int64_t tocha_stream_pad(tocha_stream *s, int64_t align) TOCHA_NOEXCEPT;
/* A 1D CPU tensor of dtype over nbytes at offset: mapped copy-on-write when mmap != 0 and the
   stream is a file opened "r", read otherwise. verify != 0 checks the CRC-32 of `padded` bytes. */
TOCHA_API tocha_tensor *tocha_stream_read_blob(tocha_stream *s, int64_t offset, int64_t nbytes, int64_t padded,
                                               int dtype, int mmap, int verify, uint32_t crc) TOCHA_NOEXCEPT;
/* The view of base's storage at (offset, sizes, strides) from untrusted values: negative values,
   overflow and views past the storage are errors naming `what`. */
TOCHA_API tocha_tensor *tocha_tensor_view_checked(const tocha_tensor *base, int64_t offset, int ndim,
                                                  const int64_t *sizes, const int64_t *strides,
                                                  const char *what) TOCHA_NOEXCEPT;
/* CRC-32 (zlib) of n bytes continuing from crc (start with 0). */
TOCHA_API uint32_t tocha_crc32(uint32_t crc, const void *data, int64_t n) TOCHA_NOEXCEPT;

#endif
