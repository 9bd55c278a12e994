// PNG and JPEG images through Debian's libpng and libjpeg-turbo: decoding to and encoding from
// u8 tensors laid out height x width x channels (the codecs' own order; Lua permutes to Torch7's
// channels x height x width).
#pragma once
#include <string>
#include "core/tensor.h"

namespace tocha {
namespace data {

// Decodes a PNG or JPEG (told apart by their magic bytes). channels: 0 keeps the file's (1 gray,
// 2 gray+alpha, 3 RGB, 4 RGBA; palettes become RGB or RGBA, 16-bit samples become 8-bit), or
// 1, 3 or 4 converts (Note [PNG samples as stored]). A truncated or corrupt image is an error naming
// `name`: libjpeg's warnings of missing or garbled data count as errors, since it would fill the
// rest with gray (Note [JPEG warnings]); a CMYK JPEG is refused.
Tensor decode_image(const std::string& bytes, const std::string& name, int channels);
Tensor read_image(const std::string& path, int channels);

// Encodes an HxWxC (C in 1..4) or HxW u8 CPU tensor; JPEG takes 1 or 3 channels and a quality 1..100.
std::string encode_png(const Tensor& image);
std::string encode_jpeg(const Tensor& image, int quality);
// Writes atomically (DESIGN.md decision 11); the format follows the extension (.png, .jpg, .jpeg).
void write_image(const std::string& path, const Tensor& image, int quality);

// Implementation pieces (image_png.cpp, image_jpeg.cpp).
Tensor decode_png(const std::string& bytes, const std::string& name, int channels);
Tensor decode_jpeg(const std::string& bytes, const std::string& name, int channels);

}  // namespace data
}  // namespace tocha
