// JPEG through libjpeg-turbo. libjpeg reports errors by longjmp, so the codec work happens in
// functions whose locals are plain C data (no destructor may be skipped by the jump).
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <jpeglib.h>
#include <jerror.h>
#include "core/data/image.h"
#include "core/error.h"

namespace tocha {
namespace data {

namespace {

struct JpegError {
  jpeg_error_mgr pub;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void on_error(j_common_ptr c) {
  auto* e = reinterpret_cast<JpegError*>(c->err);
  (*c->err->format_message)(c, e->message);
  std::longjmp(e->jump, 1);
}

// Note [JPEG warnings]: the warnings that mean missing or garbled data are errors here: libjpeg
// warns about a truncated or corrupt stream and then fills the missing rows with gray, which would
// be a silently wrong image. The others (an unknown JFIF revision, extraneous bytes before a
// marker, an odd Adobe transform) leave every pixel in place: decoded, as torchvision and Pillow
// do (a JFIF 2.01 header was refused).
void on_message(j_common_ptr c, int level) {
  if (level >= 0) return;
  switch (c->err->msg_code) {
    case JWRN_JPEG_EOF: case JWRN_HIT_MARKER: case JWRN_HUFF_BAD_CODE: case JWRN_MUST_RESYNC:
    case JWRN_NOT_SEQUENTIAL: case JWRN_BOGUS_PROGRESSION: case JWRN_TOO_MUCH_DATA:
      on_error(c);
      break;
    default:
      break;
  }
}

struct Raw {
  unsigned char* data;
  int width, height, channels;
};

// Returns 0 and fills *out (malloc'ed pixels), or -1 (corrupt) / -2 (unsupported) with the message in msg.
int jpeg_decode_raw(const unsigned char* src, size_t n, int wanted, Raw* out, char* msg) {
  jpeg_decompress_struct cinfo;
  JpegError err;
  unsigned char* volatile buf = nullptr;
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  err.pub.emit_message = on_message;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    std::free(buf);
    std::snprintf(msg, JMSG_LENGTH_MAX, "%s", err.message);
    return -1;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, src, static_cast<unsigned long>(n));
  jpeg_read_header(&cinfo, TRUE);
  if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
    jpeg_destroy_decompress(&cinfo);
    std::snprintf(msg, JMSG_LENGTH_MAX, "a CMYK JPEG (4 ink channels) is not supported: convert it to RGB first "
                  "(Pillow: Image.open(f).convert('RGB').save(...))");
    return -2;
  }
  int channels = wanted != 0 ? wanted : cinfo.num_components == 1 ? 1 : 3;
  cinfo.out_color_space = channels == 1 ? JCS_GRAYSCALE : channels == 3 ? JCS_RGB : JCS_EXT_RGBA;
  jpeg_start_decompress(&cinfo);
  size_t stride = size_t(cinfo.output_width) * size_t(channels);
  buf = static_cast<unsigned char*>(std::malloc(stride * cinfo.output_height + 1));
  if (!buf) {
    jpeg_destroy_decompress(&cinfo);
    std::snprintf(msg, JMSG_LENGTH_MAX, "out of memory");
    return -1;
  }
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = buf + stride * cinfo.output_scanline;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  out->data = buf;
  out->width = int(cinfo.output_width);
  out->height = int(cinfo.output_height);
  out->channels = channels;
  jpeg_destroy_decompress(&cinfo);
  return 0;
}

// Returns 0 and fills *dst / *size (malloc'ed by libjpeg), or -1 with the message in msg.
int jpeg_encode_raw(const unsigned char* pixels, int width, int height, int channels, int quality,
                    unsigned char** dst, unsigned long* size, char* msg) {
  jpeg_compress_struct cinfo;
  JpegError err;
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  err.pub.emit_message = on_message;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&cinfo);
    std::snprintf(msg, JMSG_LENGTH_MAX, "%s", err.message);
    return -1;
  }
  jpeg_create_compress(&cinfo);
  jpeg_mem_dest(&cinfo, dst, size);
  cinfo.image_width = JDIMENSION(width);
  cinfo.image_height = JDIMENSION(height);
  cinfo.input_components = channels;
  cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  size_t stride = size_t(width) * size_t(channels);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<unsigned char*>(pixels) + stride * cinfo.next_scanline;
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  return 0;
}

}  // namespace

Tensor decode_jpeg(const std::string& bytes, const std::string& name, int channels) {
  TOCHA_CHECK(channels != 2, "image", name, ": a JPEG cannot be read with 2 channels (gray + alpha)");
  Raw raw{};
  char msg[JMSG_LENGTH_MAX];
  int rc = jpeg_decode_raw(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), channels, &raw, msg);
  if (rc == -2) fail("image", name, ": ", msg);
  if (rc != 0) fail("image", name, ": corrupt or truncated JPEG: ", msg);
  Tensor out;
  try {
    out = empty(DimVec{raw.height, raw.width, raw.channels}, DType::u8);
  } catch (...) {
    std::free(raw.data);
    throw;
  }
  std::memcpy(out.raw_data(), raw.data, size_t(raw.height) * size_t(raw.width) * size_t(raw.channels));
  std::free(raw.data);
  return out;
}

std::string encode_jpeg(const Tensor& image, int quality) {
  int channels = image.dim() == 2 ? 1 : int(image.size(2));
  TOCHA_CHECK(channels == 1 || channels == 3, "image", "a JPEG holds 1 or 3 channels, got ", channels);
  TOCHA_CHECK(quality >= 1 && quality <= 100, "image", "JPEG quality must be in 1..100, got ", quality);
  unsigned char* dst = nullptr;
  unsigned long size = 0;
  char msg[JMSG_LENGTH_MAX];
  if (jpeg_encode_raw(static_cast<const unsigned char*>(image.raw_data()), int(image.size(1)), int(image.size(0)),
                      channels, quality, &dst, &size, msg) != 0) {
    std::free(dst);
    fail("image", "cannot encode a JPEG: ", msg);
  }
  std::string out(reinterpret_cast<char*>(dst), size);
  std::free(dst);
  return out;
}

}  // namespace data
}  // namespace tocha
