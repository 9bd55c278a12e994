// PNG through libpng's simplified API (png_image), which needs no setjmp in our code.
#include <png.h>
#include <cstring>
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
}  // namespace

Tensor decode_png(const std::string& bytes, const std::string& name, int channels) {
  png_image img;
  std::memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&img, bytes.data(), bytes.size()))
    fail("image", name, ": not a valid PNG: ", img.message);
  if (channels == 0) channels = int(PNG_IMAGE_SAMPLE_CHANNELS(img.format));
  img.format = format_for(channels);
  Tensor out = empty(DimVec{int64_t(img.height), int64_t(img.width), int64_t(channels)}, DType::u8);
  // A background for dropping alpha: black, like PIL's convert('RGB') of a transparent pixel.
  png_color background{0, 0, 0};
  if (!png_image_finish_read(&img, &background, out.raw_data(), 0, nullptr)) {
    std::string msg = img.message;
    png_image_free(&img);
    fail("image", name, ": corrupt or truncated PNG: ", msg);
  }
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
