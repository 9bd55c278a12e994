// What the two cuDNN convolution paths share (kernels/cuda/cudnn_conv.cpp, the legacy API, and
// kernels/cuda/cudnn_conv_graph.cpp, the graph API): the three roles of a convolution and how
// many spatial dims cuDNN is given. Only compiled into builds that found cuDNN.
#pragma once
#include <cudnn.h>
#include "core/device.h"
#include "core/dtype.h"
#include "core/ops/conv_kernels.h"

namespace tocha {
namespace cuda {

// Note [Convolution roles] in core/ops/conv_kernels.h: forward writes y, data writes x (the
// transposed convolution), filter writes w (the weight gradient).
enum class ConvRole { forward, data, filter };

inline const char* role_name(ConvRole r) {
  return r == ConvRole::forward ? "conv" : r == ConvRole::data ? "convTranspose" : "convWeight";
}

// The spatial dims cuDNN sees: 2 when the (front-padded) depth dim is trivial, else 3.
inline int spatial_dims(const ConvGeometry& g) {
  return g.in_size[0] == 1 && g.kernel[0] == 1 && g.pad[0] == 0 && g.out_size[0] == 1 ? 2 : 3;
}

// Runs the role through an execution plan of cuDNN's graph API (Note [cuDNN engines]), the one
// cached for this call's geometry or else the first engine of the heuristics that builds and runs.
// Returns false, having written nothing, when no engine accepts the call; throws on other errors.
bool run_conv_graph(ConvRole role, DType dt, const ConvArgs& a, cudnnHandle_t h, Device dev);

}  // namespace cuda
}  // namespace tocha
