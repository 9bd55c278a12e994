/* tocha_serialize.h -- C ABI of serialization (checkpoint files, Torch7 .t7, safetensors).
 * Included by tocha.h; see its conventions. */
#ifndef TOCHA_SERIALIZE_ABI_H
#define TOCHA_SERIALIZE_ABI_H

#endif
