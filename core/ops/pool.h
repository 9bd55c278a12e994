// Pooling front-ends for nn: adaptive 2D max/average pooling, 3D (volumetric) max/average pooling,
// Torch7's temporal max pooling over frames, and the scatter that backs every max pooling's
// gradient. Max poolings return 1-based (index_base) flat positions of each max in its input plane.
#pragma once
#include "core/ops/reduce_iter.h"
#include "core/tensor.h"

namespace tocha {

// ---- adaptive 2D pooling: (C x H x W) or (N x C x H x W) -> (.. x oh x ow) --------------------
// Output cell (i, j) pools rows [floor(i*H/oh), ceil((i+1)*H/oh)) and the matching columns.
ValuesIndices adaptive_max_pool2d(const Tensor& x, int64_t oh, int64_t ow, int64_t index_base);
void adaptive_max_pool2d_out(const Tensor& values, const Tensor& indices, const Tensor& x, int64_t oh, int64_t ow,
                             int64_t index_base);
Tensor adaptive_avg_pool2d(const Tensor& x, int64_t oh, int64_t ow);
void adaptive_avg_pool2d_out(const Tensor& out, const Tensor& x, int64_t oh, int64_t ow);
// The gradient of adaptive_avg_pool2d for an input of shape input_shape.
Tensor adaptive_avg_pool2d_backward(const Tensor& grad, const DimVec& input_shape);
void adaptive_avg_pool2d_backward_out(const Tensor& grad_input, const Tensor& grad, const DimVec& input_shape);

// ---- 3D pooling: (C x T x H x W) or (N x C x T x H x W) ----------------------------------------
// Sizes are in (T, H, W) order. Output size per dim: floor or ceil of (in + 2 pad - k) / d, plus 1,
// less one when the last window would start in the trailing padding (Torch7's and PyTorch's rule).
struct Pool3dParams {
  int64_t k[3] = {1, 1, 1};
  int64_t d[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};
  bool ceil_mode = false;
  bool count_include_pad = true;  // average pooling: divide by the window size with its padding
};
ValuesIndices max_pool3d(const Tensor& x, const Pool3dParams& p, int64_t index_base);
void max_pool3d_out(const Tensor& values, const Tensor& indices, const Tensor& x, const Pool3dParams& p,
                    int64_t index_base);
Tensor avg_pool3d(const Tensor& x, const Pool3dParams& p);
void avg_pool3d_out(const Tensor& out, const Tensor& x, const Pool3dParams& p);
Tensor avg_pool3d_backward(const Tensor& grad, const DimVec& input_shape, const Pool3dParams& p);
void avg_pool3d_backward_out(const Tensor& grad_input, const Tensor& grad, const DimVec& input_shape,
                             const Pool3dParams& p);

// ---- Torch7's TemporalMaxPooling: (T x F) or (N x T x F), windows of kw frames every dw -----------
// Indices are the frames of the maxima (from index_base).
ValuesIndices temporal_max_pool(const Tensor& x, int64_t kw, int64_t dw, int64_t index_base);
void temporal_max_pool_out(const Tensor& values, const Tensor& indices, const Tensor& x, int64_t kw, int64_t dw,
                           int64_t index_base);

// ---- the gradient of every max pooling ------------------------------------------------------------
// Zeros of input_shape with grad[p] added at indices[p], a flat position (from index_base) in the
// pooled dims [first, first + count) of its slice. grad and indices share a shape that matches
// input_shape outside the pooled dims. Made of recorded ops, so it is differentiable itself.
Tensor max_pool_backward(const Tensor& grad, const Tensor& indices, const DimVec& input_shape, int first, int count,
                         int64_t index_base);
void max_pool_backward_out(const Tensor& grad_input, const Tensor& grad, const Tensor& indices,
                           const DimVec& input_shape, int first, int count, int64_t index_base);

// ---- kernel interface --------------------------------------------------------------------------------
// Planes (batch x channels) of a pooled tensor x and its pooled result y, each with its own strides
// (elements) for (N, C, T, H, W). Forward kernels read x and write y (and indices, laid out like y);
// the average backward kernel reads y (the output gradient) and overwrites x (the input gradient).
struct PoolArgs {
  void* x = nullptr;
  void* y = nullptr;
  int64_t* indices = nullptr;
  int64_t batch = 0, channels = 0;
  int64_t x_size[3] = {1, 1, 1}, y_size[3] = {1, 1, 1};
  int64_t x_stride[5] = {0, 0, 0, 0, 0}, y_stride[5] = {0, 0, 0, 0, 0};
  bool adaptive = false;  // adaptive windows; k, d and pad are unused
  int64_t k[3] = {1, 1, 1}, d[3] = {1, 1, 1}, pad[3] = {0, 0, 0};
  bool count_include_pad = true;
  int64_t index_base = 0;
};
using PoolKernel = void (*)(const PoolArgs&);

}  // namespace tocha
