/* tocha_image.h -- C ABI of image files: PNG and JPEG through libpng and libjpeg-turbo, as u8
 * tensors laid out height x width x channels. Included by tocha.h; see its conventions. */
#ifndef TOCHA_IMAGE_ABI_H
#define TOCHA_IMAGE_ABI_H

/* Decodes a PNG or JPEG file (told apart by content). channels: 0 as stored, or 1, 3, 4 to
   convert. A truncated or corrupt file is an error naming it. */
TOCHA_API tocha_tensor *tocha_image_read(const char *path, int channels) TOCHA_NOEXCEPT;
/* The same from n bytes in memory; name is used in messages. */
TOCHA_API tocha_tensor *tocha_image_decode(const void *data, int64_t n, const char *name, int channels) TOCHA_NOEXCEPT;
/* Writes an HxW or HxWxC u8 tensor atomically as PNG or JPEG (by the extension); quality 1..100
   for JPEG. */
TOCHA_API int tocha_image_write(const char *path, const tocha_tensor *image, int quality) TOCHA_NOEXCEPT;

#endif
