// f32 convolutions through oneDNN (Debian's libdnnl) when the build found it: the entry points
// kernels/cpu/conv.cpp tries before its im2col + OpenBLAS path. See Note [oneDNN convolutions] in
// conv_onednn.cpp.
#pragma once
#include <cstdint>
#include "core/ops/conv_kernels.h"

namespace tocha {
namespace cpu {

// Built with oneDNN (TOCHA_ONEDNN); torch.backends.mkldnn.enabled switches it at run time (on by
// default; TOCHA_MKLDNN=0 turns it off at start-up).
bool onednn_available();
bool onednn_enabled();
void set_onednn_enabled(bool on);

// Passes oneDNN computed, and passes it refused with an error (the im2col path ran instead), since
// start-up: tests check that the shapes they mean for oneDNN reach it.
struct OnednnStats {
  int64_t ran = 0, failed = 0, winograd = 0;  // winograd: of ran, those on Winograd kernels
};
OnednnStats onednn_stats();

// Each returns true when oneDNN computed the op (f32 only, ConvArgs as in core/ops/conv_kernels.h),
// false when the caller must: not built, switched off, a shape it leaves to im2col, or an error.
bool onednn_conv(const ConvArgs& a);
bool onednn_conv_transpose(const ConvArgs& a);
bool onednn_conv_weight(const ConvArgs& a);

}  // namespace cpu
}  // namespace tocha
