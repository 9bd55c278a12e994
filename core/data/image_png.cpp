// PNG through libpng. Decoding uses the full API (libpng's errors are longjmps, so that work
// happens in functions whose locals are plain C data); encoding the simplified png_image API.
//
// Note [PNG samples as stored]: decoding returns the file's samples as torchvision and Pillow
// do: no gamma correction (a gAMA chunk is ignored), 16-bit samples scaled to 8 bits (v / 257,
// rounded), palettes and low-bit gray expanded, a tRNS chunk as an alpha channel. Converting,
// alpha is dropped, not composited over a background (Pillow's convert('RGB')), gray becomes
// RGB by copying, and RGB becomes gray with torchvision's weights on the stored values (0.2989 R
// + 0.587 G + 0.114 B). libpng's simplified API, used before, took 16-bit samples for linear
// light and converted them (1871 became 50, not 7), applied gAMA, and composited alpha over black.
#include <png.h>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <new>
#include "core/data/image.h"
#include "core/error.h"

namespace tocha {
namespace data {

namespace {

png_uint_32 format_for(int channels) {
  switch (channels) {
    case 1: return PNG_FORMAT_GRAY;
    case 2: return PNG_FORMAT_GA;
    case 3: return PNG_FORMAT_RGB;
    default: return PNG_FORMAT_RGBA;
  }
}

constexpr size_t kMessage = 256;

struct Source {
  const unsigned char* data;
  size_t size, pos;
  jmp_buf jump;
  char message[kMessage];
};

void on_error(png_structp png, png_const_charp msg) {
  auto* s = static_cast<Source*>(png_get_error_ptr(png));
  std::snprintf(s->message, kMessage, "%s", msg);
  std::longjmp(s->jump, 1);
}
void on_warning(png_structp, png_const_charp) {}  // ancillary-chunk trouble: the pixels are whole

void on_read(png_structp png, png_bytep out, png_size_t n) {
  auto* s = static_cast<Source*>(png_get_io_ptr(png));
  if (n > s->size - s->pos) png_error(png, "the file ends before the image does");
  std::memcpy(out, s->data + s->pos, n);
  s->pos += n;
}

// The file's channels after expansion: palettes become RGB (RGBA with tRNS), tRNS adds alpha.
int stored_channels(png_structp png, png_infop info) {
  int type = png_get_color_type(png, info);
  bool trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
  int c = (type & PNG_COLOR_MASK_COLOR) ? 3 : 1;
  if ((type & PNG_COLOR_MASK_ALPHA) || trns) ++c;
  return c;
}

// libpng takes a damaged first chunk's length as a size to allocate and reports "out of memory";
// the format puts IHDR (13 bytes of data) right after the signature, so that is checked first.
bool ihdr_follows_signature(const unsigned char* src, size_t n, char* msg) {
  static const unsigned char ihdr[8] = {0, 0, 0, 13, 'I', 'H', 'D', 'R'};
  if (n >= 16 && std::memcmp(src + 8, ihdr, 8) == 0) return true;
  std::snprintf(msg, kMessage, "the IHDR chunk does not follow the signature (a damaged or truncated file)");
  return false;
}

// Reads the header: width, height and the stored channels. 0, or -1 with the message.
int png_header(const unsigned char* src, size_t n, png_uint_32* w, png_uint_32* h, int* channels, char* msg) {
  if (!ihdr_follows_signature(src, n, msg)) return -1;
  Source s{src, n, 0, {}, {0}};
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &s, on_error, on_warning);
  if (!png) { std::snprintf(msg, kMessage, "out of memory"); return -1; }
  png_infop info = png_create_info_struct(png);
  if (!info || setjmp(s.jump)) {
    png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
    std::snprintf(msg, kMessage, "%s", info ? s.message : "out of memory");
    return -1;
  }
  png_set_read_fn(png, &s, on_read);
  png_read_info(png, info);
  *w = png_get_image_width(png, info);
  *h = png_get_image_height(png, info);
  *channels = stored_channels(png, info);
  png_destroy_read_struct(&png, &info, nullptr);
  return 0;
}

// Decodes into out (h rows of w * wanted bytes). 0, or -1 with the message.
int png_decode_into(const unsigned char* src, size_t n, int wanted, unsigned char* out, char* msg) {
  if (!ihdr_follows_signature(src, n, msg)) return -1;
  Source s{src, n, 0, {}, {0}};
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &s, on_error, on_warning);
  if (!png) { std::snprintf(msg, kMessage, "out of memory"); return -1; }
  png_infop info = png_create_info_struct(png);
  png_bytep* volatile rows = nullptr;
  if (!info || setjmp(s.jump)) {
    png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
    delete[] rows;
    std::snprintf(msg, kMessage, "%s", info ? s.message : "out of memory");
    return -1;
  }
  png_set_read_fn(png, &s, on_read);
  png_read_info(png, info);
  const int have = stored_channels(png, info);
  const int type = png_get_color_type(png, info);
  if (type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (type == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  if (png_get_bit_depth(png, info) == 16) png_set_scale_16(png);
  const bool color = have >= 3, alpha = have == 2 || have == 4;
  const bool want_color = wanted >= 3, want_alpha = wanted == 2 || wanted == 4;
  if (color && !want_color) png_set_rgb_to_gray(png, 1, 0.2989, 0.587);  // torchvision's weights
  if (!color && want_color) png_set_gray_to_rgb(png);
  if (alpha && !want_alpha) png_set_strip_alpha(png);
  if (!alpha && want_alpha) png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  const png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
  if (png_get_rowbytes(png, info) != size_t(w) * size_t(wanted)) png_error(png, "unexpected row layout");
  rows = new (std::nothrow) png_bytep[h ? h : 1];
  if (!rows) png_error(png, "out of memory");
  for (png_uint_32 r = 0; r < h; ++r) rows[r] = out + size_t(r) * size_t(w) * size_t(wanted);
  png_read_image(png, rows);
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  delete[] rows;
  return 0;
}

}  // namespace

// Note [PNG samples as stored]
Tensor decode_png(const std::string& bytes, const std::string& name, int channels) {
  const auto* src = reinterpret_cast<const unsigned char*>(bytes.data());
  char msg[kMessage] = {0};
  png_uint_32 w = 0, h = 0;
  int stored = 0;
  if (png_header(src, bytes.size(), &w, &h, &stored, msg) != 0) fail("image", name, ": not a valid PNG: ", msg);
  if (channels == 0) channels = stored;
  Tensor out = empty(DimVec{int64_t(h), int64_t(w), int64_t(channels)}, DType::u8);
  if (png_decode_into(src, bytes.size(), channels, static_cast<unsigned char*>(out.raw_data()), msg) != 0)
    fail("image", name, ": corrupt or truncated PNG: ", msg);
  return out;
}

std::string encode_png(const Tensor& image) {
  int channels = image.dim() == 2 ? 1 : int(image.size(2));
  png_image img;
  std::memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  img.width = png_uint_32(image.size(1));
  img.height = png_uint_32(image.size(0));
  img.format = format_for(channels);
  png_alloc_size_t size = 0;
  if (!png_image_write_get_memory_size(img, size, 0, image.raw_data(), 0, nullptr))
    fail("image", "cannot encode a PNG: ", img.message);
  std::string out(size, '\0');
  if (!png_image_write_to_memory(&img, &out[0], &size, 0, image.raw_data(), 0, nullptr))
    fail("image", "cannot encode a PNG: ", img.message);
  out.resize(size);
  return out;
}

}  // namespace data
}  // namespace tocha
