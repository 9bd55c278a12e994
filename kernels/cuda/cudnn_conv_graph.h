// What the two cuDNN convolution paths share (kernels/cuda/cudnn_conv.cpp, the legacy API, and
// kernels/cuda/cudnn_conv_graph.cpp, the graph API): the three roles of a convolution, how many
// spatial dims cuDNN is given and their cache keys. Only compiled into builds that found cuDNN.
#pragma once
#include <cudnn.h>
#include <cstdint>
#include <initializer_list>
#include <vector>
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

// The part of a cache key both paths share: role, dtype, device and every number of the geometry,
// after the path's own fields (`extra`).
inline std::vector<int64_t> conv_cache_key(ConvRole role, DType dt, int device, const ConvGeometry& g,
                                           std::initializer_list<int64_t> extra) {
  std::vector<int64_t> k{int64_t(role), int64_t(dt), device};
  k.insert(k.end(), extra);
  k.insert(k.end(), {g.batch, g.groups, g.in_channels, g.out_channels});
  for (int d = 0; d < 3; ++d)
    k.insert(k.end(), {g.in_size[d], g.out_size[d], g.kernel[d], g.stride[d], g.pad[d], g.dilation[d]});
  return k;
}

// Runs the role through an execution plan of cuDNN's graph API (Note [cuDNN engines]), the one
// cached for this call's geometry or else the first engine of the heuristics that builds and runs.
// Returns false, having written nothing, when no engine accepts the call; throws on other errors.
bool run_conv_graph(ConvRole role, DType dt, const ConvArgs& a, cudnnHandle_t h, Device dev);

}  // namespace cuda
}  // namespace tocha
