// bf16/f16 products on oneDNN's matmul primitive (Note [oneDNN reduced-precision GEMM] in
// blas_gemm_onednn.cpp), tried by kernels/cpu/blas_gemm.cpp before its portable path.
#pragma once
#include "core/dtype.h"
#include "core/ops/linalg_kernels.h"

namespace tocha {
namespace cpu {

// True when oneDNN computed the product g in dtype dt (bf16 or f16); false when the caller must:
// not built, switched off, no AVX-512, a layout or batch sum it leaves to the portable path, only a
// reference kernel, or an error (then nothing was written).
bool onednn_gemm_reduced(const GemmArgs& g, DType dt);

}  // namespace cpu
}  // namespace tocha
