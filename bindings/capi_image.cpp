// C ABI: PNG and JPEG files (tocha_image.h), over core/data/image.h.
#include "capi.h"
#include "core/data/image.h"

using namespace tocha;
using namespace tocha::capi;

tocha_tensor* tocha_image_read(const char* path, int channels) noexcept {
  return guard_tensor([&] {
    TOCHA_CHECK(path, "image", "path is NULL");
    return data::read_image(path, channels);
  });
}

tocha_tensor* tocha_image_decode(const void* p, int64_t n, const char* name, int channels) noexcept {
  return guard_tensor([&] {
    TOCHA_CHECK(p && n >= 0, "image", "no data");
    return data::decode_image(std::string(static_cast<const char*>(p), size_t(n)), name ? name : "(memory)", channels);
  });
}

int tocha_image_write(const char* path, const tocha_tensor* image, int quality) noexcept {
  return guard_int([&] {
    TOCHA_CHECK(path, "image", "path is NULL");
    data::write_image(path, arg(image, "image"), quality);
  });
}
