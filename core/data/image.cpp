// Image format detection, checks shared by the codecs, and atomic image files. See image.h.
#include <cctype>
#include "core/data/image.h"
#include "core/data/file_bytes.h"
#include "core/error.h"
#include "core/io/file_stream.h"
#include "core/ops/pointwise.h"

namespace tocha {
namespace data {

namespace {
bool ends_with(const std::string& s, const char* suffix) {
  size_t n = std::char_traits<char>::length(suffix);
  if (s.size() < n) return false;
  for (size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - n + i])) != suffix[i]) return false;
  return true;
}

// The image as a contiguous HxWxC u8 CPU tensor, checked.
Tensor checked_pixels(const Tensor& image) {
  TOCHA_CHECK(image.defined() && image.is_cpu(), "image", "expected a CPU tensor");
  TOCHA_CHECK(image.dtype() == DType::u8, "image", "expected a ByteTensor (u8) of pixels, got ", dtype_name(image.dtype()));
  TOCHA_CHECK(image.dim() == 2 || (image.dim() == 3 && image.size(2) >= 1 && image.size(2) <= 4), "image",
              "expected height x width or height x width x channels (1 to 4), got ", shape_str(image.sizes()));
  TOCHA_CHECK(image.size(0) > 0 && image.size(1) > 0 && image.size(0) < (1 << 24) && image.size(1) < (1 << 24),
              "image", "bad image size ", shape_str(image.sizes()));
  return image.is_contiguous() ? image : contiguous(image);
}
}  // namespace

Tensor decode_image(const std::string& bytes, const std::string& name, int channels) {
  TOCHA_CHECK(channels >= 0 && channels <= 4, "image", "channels must be 0 (as stored) or 1 to 4, got ", channels);
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() >= 8 && p[0] == 0x89 && p[1] == 'P' && p[2] == 'N' && p[3] == 'G') return decode_png(bytes, name, channels);
  if (bytes.size() >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF) return decode_jpeg(bytes, name, channels);
  fail("image", name, ": not a PNG or JPEG file (unknown magic bytes)");
}

Tensor read_image(const std::string& path, int channels) {
  return decode_image(read_file_bytes(path, "image"), path, channels);
}

void write_image(const std::string& path, const Tensor& image, int quality) {
  Tensor pixels = checked_pixels(image);
  std::string bytes;
  if (ends_with(path, ".png")) bytes = encode_png(pixels);
  else if (ends_with(path, ".jpg") || ends_with(path, ".jpeg")) bytes = encode_jpeg(pixels, quality);
  else fail("image", path, ": unknown image extension (expected .png, .jpg or .jpeg)");
  io::FileStream f(path, io::FileStream::Mode::write_atomic);
  f.write(bytes.data(), bytes.size());
  f.close();
}

}  // namespace data
}  // namespace tocha
