// The caching allocator of pinned host memory (kernels/cuda/pinned.cpp), as the other CUDA files
// see it: whether a host pointer is pinned (allocator.cpp's synchronous copies must then wait).
#pragma once

namespace tocha {
namespace cuda {

bool host_is_pinned(const void* p);

}  // namespace cuda
}  // namespace tocha
