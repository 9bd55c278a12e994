// The CUDA storage allocator: core's CachingAllocator over cudaMalloc, registered as the
// DeviceAllocator of DeviceType::cuda (allocation, free, and copies between host and devices).
#pragma once
#include "core/caching_allocator.h"

namespace tocha {
namespace cuda {

CachingAllocator& caching_allocator();

}  // namespace cuda
}  // namespace tocha
