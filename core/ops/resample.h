// Padding and resampling front-ends for nn: constant/reflect/replicate padding of the last 1-3 dims
// (negative pads crop, as Torch7's padding modules do) and 2D nearest/bilinear up- or down-sampling.
#pragma once
#include <vector>
#include "core/tensor.h"

namespace tocha {

enum class PadMode : int { constant = 0, reflect = 1, replicate = 2 };

// pads lists (before, after) pairs starting from the last dim (PyTorch's F.pad order): {l, r} pads
// the last dim, {l, r, t, b} the last two, {l, r, t, b, front, back} the last three. A negative pad
// removes elements. Reflect needs every pad smaller than its dim; replicate a non-empty dim.
Tensor pad(const Tensor& x, const std::vector<int64_t>& pads, PadMode mode, double value = 0);
void pad_out(const Tensor& out, const Tensor& x, const std::vector<int64_t>& pads, PadMode mode, double value = 0);
// The gradient of pad for an input of shape input_shape.
Tensor pad_backward(const Tensor& grad, const DimVec& input_shape, const std::vector<int64_t>& pads, PadMode mode);
void pad_backward_out(const Tensor& grad_input, const Tensor& grad, const DimVec& input_shape,
                      const std::vector<int64_t>& pads, PadMode mode);

enum class UpsampleMode : int { nearest = 0, bilinear = 1 };

// Resamples the last two dims of a (C x H x W) or (N x C x H x W) tensor to oh x ow.
// nearest: source row floor(i * H / oh). bilinear with align_corners: the corner pixels of input
// and output coincide (Torch7's SpatialUpSamplingBilinear); without: pixel centres are aligned and
// sources clamp at the border (PyTorch's default).
Tensor upsample2d(const Tensor& x, int64_t oh, int64_t ow, UpsampleMode mode, bool align_corners);
void upsample2d_out(const Tensor& out, const Tensor& x, int64_t oh, int64_t ow, UpsampleMode mode,
                    bool align_corners);
Tensor upsample2d_backward(const Tensor& grad, const DimVec& input_shape, UpsampleMode mode, bool align_corners);
void upsample2d_backward_out(const Tensor& grad_input, const Tensor& grad, const DimVec& input_shape,
                             UpsampleMode mode, bool align_corners);

// ---- kernel interfaces ---------------------------------------------------------------------------
// Contiguous x and y seen as outer x (D x H x W) blocks (a size of 1 for a dim that is not padded).
// Forward reads x and writes y; backward reads y (the output gradient) and overwrites x.
struct PadArgs {
  void* x = nullptr;
  void* y = nullptr;
  int64_t outer = 0;
  int64_t x_size[3] = {1, 1, 1}, y_size[3] = {1, 1, 1};
  int64_t before[3] = {0, 0, 0};
  PadMode mode = PadMode::constant;
  double value = 0;
};
using PadKernel = void (*)(const PadArgs&);

// Contiguous x (planes x xh x xw) and y (planes x yh x yw); forward writes y, backward overwrites x.
struct UpsampleArgs {
  void* x = nullptr;
  void* y = nullptr;
  int64_t planes = 0, xh = 0, xw = 0, yh = 0, yw = 0;
  UpsampleMode mode = UpsampleMode::nearest;
  bool align_corners = false;
};
using UpsampleKernel = void (*)(const UpsampleArgs&);

}  // namespace tocha
