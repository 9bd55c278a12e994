// cuBLAS kernels of the matmul family (mm, addmm, bmm, baddbmm, addbmm, mv, addmv, dot) for f32,
// f64, f16 and bf16 (f16/bf16 accumulate in f32; f32 uses TF32 tensor cores only when
// torch.backends.cuda.allowTF32 is set). cuBLAS has no integer GEMM for i64/i32/u8: those run
// Tocha's own kernels (kernels/cuda/int_matmul.cu, Note [Integer matmul on CUDA]).
//
// Note [Row-major through cuBLAS]: cuBLAS is column-major, and a row-major matrix with leading
// dimension ld is its transpose in column-major. So C = A @ B (row-major C) is computed as
// C^T = B^T @ A^T in column-major: cublas(opB, opA, n, m, k, B, A, C). An operand that is itself
// transposed in memory (blas_layout's trans) flips its op. A column-major C (c_rs == 1) is the
// plain column-major product instead.
#include <cublas_v2.h>
#include <mutex>
#include <vector>
#include "core/device_runtime.h"
#include "core/error.h"
#include "core/half.h"
#include "core/kernel_registry.h"
#include "core/ops/linalg_kernels.h"
#include "kernels/cuda/blas_handle.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {

cublasHandle_t cublas_handle(int device) {
  static std::mutex m;
  static std::vector<cublasHandle_t> handles;
  std::lock_guard<std::mutex> g(m);
  if (handles.size() <= size_t(device)) handles.resize(size_t(device) + 1, nullptr);
  cublasHandle_t& h = handles[size_t(device)];
  if (!h) {
    DeviceGuard dg(device);
    TOCHA_CUBLAS_CHECK("cublas", cublasCreate(&h));
    TOCHA_CUBLAS_CHECK("cublas", cublasSetStream(h, stream(device)));
  }
  return h;
}

namespace {

template <class T> struct CublasType;
template <> struct CublasType<float> { static constexpr cudaDataType_t value = CUDA_R_32F; };
template <> struct CublasType<double> { static constexpr cudaDataType_t value = CUDA_R_64F; };
template <> struct CublasType<Half> { static constexpr cudaDataType_t value = CUDA_R_16F; };
template <> struct CublasType<BFloat16> { static constexpr cudaDataType_t value = CUDA_R_16BF; };

// A column-major view of a row-major-strided matrix: its op and leading dimension.
struct Operand {
  cublasOperation_t op;
  int64_t ld;
};
Operand col_major(const char* opname, int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  bool trans = false;
  int64_t ld = 0;
  TOCHA_CHECK(blas_layout(rows, cols, rs, cs, &trans, &ld), opname, "internal: operand layout not BLAS-readable");
  // Read column-major, a row-major operand (trans = false) is its transpose, which is exactly
  // what C^T = B^T A^T needs (op N); one transposed in memory needs op T.
  return Operand{trans ? CUBLAS_OP_T : CUBLAS_OP_N, ld};
}

template <class T> void gemm_cuda(const GemmArgs& g) {
  const char* op = "mm";
  const int device = device_of(g.c);
  LaunchScope scope(device);
  cublasHandle_t h = cublas_handle(device);
  // Scalars in the compute type: f32 for f32/f16/bf16, f64 for f64.
  using S = std::conditional_t<std::is_same<T, double>::value, double, float>;
  cublasComputeType_t compute = std::is_same<T, double>::value ? CUBLAS_COMPUTE_64F
                                : (std::is_same<T, float>::value && cuda_allow_tf32()) ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                                                        : CUBLAS_COMPUTE_32F;
  const cudaDataType_t dt = CublasType<T>::value;
  Operand A = col_major(op, g.m, g.k, g.a_rs, g.a_cs);
  Operand B = col_major(op, g.k, g.n, g.b_rs, g.b_cs);
  bool c_trans = false;
  int64_t ldc = 0;
  TOCHA_CHECK(blas_layout(g.m, g.n, g.c_rs, g.c_cs, &c_trans, &ldc), op, "internal: result layout not BLAS-readable");
  auto flip = [](cublasOperation_t o) { return o == CUBLAS_OP_N ? CUBLAS_OP_T : CUBLAS_OP_N; };
  // Runs one (strided-batched) product into C with this beta.
  auto run = [&](const void* a, const void* b, void* c, int64_t count, int64_t a_bs, int64_t b_bs, int64_t c_bs,
                 S beta) {
    S alpha = S(g.alpha);
    if (!c_trans) {  // row-major C: C^T = B^T A^T
      TOCHA_CUBLAS_CHECK(op, cublasGemmStridedBatchedEx(h, B.op, A.op, int(g.n), int(g.m), int(g.k), &alpha, b, dt,
                                                        int(B.ld), b_bs, a, dt, int(A.ld), a_bs, &beta, c, dt,
                                                        int(ldc), c_bs, int(count), compute, CUBLAS_GEMM_DEFAULT));
    } else {  // column-major C: C = A B, with the operands' ops flipped
      TOCHA_CUBLAS_CHECK(op, cublasGemmStridedBatchedEx(h, flip(A.op), flip(B.op), int(g.m), int(g.n), int(g.k),
                                                        &alpha, a, dt, int(A.ld), a_bs, b, dt, int(B.ld), b_bs, &beta,
                                                        c, dt, int(ldc), c_bs, int(count), compute,
                                                        CUBLAS_GEMM_DEFAULT));
    }
  };
  if (g.c_bs != 0 || g.batch == 1) {
    run(g.a, g.b, g.c, g.batch, g.a_bs, g.b_bs, g.c_bs, S(g.beta));
    return;
  }
  // addbmm: every product accumulates into the one C.
  for (int64_t i = 0; i < g.batch; ++i) {
    run(static_cast<const T*>(g.a) + i * g.a_bs, static_cast<const T*>(g.b) + i * g.b_bs, g.c, 1, 0, 0, 0,
        i == 0 ? S(g.beta) : S(1));
  }
}

// y = beta*y + alpha*A@x as an m x 1 product (x a k x 1 matrix, y an m x 1 one).
template <class T> void gemv_cuda(const GemvArgs& v) {
  GemmArgs g;
  g.batch = 1;
  g.m = v.m;
  g.n = 1;
  g.k = v.n;
  g.a = v.a;
  g.a_bs = 0;
  g.a_rs = v.a_rs;
  g.a_cs = v.a_cs;
  g.b = v.x;
  g.b_bs = 0;
  g.b_rs = v.incx;
  g.b_cs = 1;
  g.c = v.y;
  g.c_bs = 0;
  g.c_rs = v.incy;
  g.c_cs = 1;
  g.alpha = v.alpha;
  g.beta = v.beta;
  gemm_cuda<T>(g);
}

// The result stays on the device (pointer mode device), so dot does not synchronize.
template <class T> void dot_cuda(int64_t n, const void* x, int64_t incx, const void* y, int64_t incy, void* out) {
  const int device = device_of(out);
  LaunchScope scope(device);
  cublasHandle_t h = cublas_handle(device);
  const cudaDataType_t dt = CublasType<T>::value;
  const cudaDataType_t exec = std::is_same<T, double>::value ? CUDA_R_64F : CUDA_R_32F;
  TOCHA_CUBLAS_CHECK("dot", cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
  cublasStatus_t st = cublasDotEx(h, int(n), x, dt, int(incx), y, dt, int(incy), out, dt, exec);
  cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST);
  TOCHA_CUBLAS_CHECK("dot", st);
}

#define REG_FLOATS(op, fn)                                             \
  TOCHA_REGISTER_KERNEL(op, cuda, DType::f32, &fn<float>);             \
  TOCHA_REGISTER_KERNEL(op, cuda, DType::f64, &fn<double>);            \
  TOCHA_REGISTER_KERNEL(op, cuda, DType::f16, &fn<Half>);              \
  TOCHA_REGISTER_KERNEL(op, cuda, DType::bf16, &fn<BFloat16>);

REG_FLOATS(mm, gemm_cuda)
REG_FLOATS(addmm, gemm_cuda)
REG_FLOATS(bmm, gemm_cuda)
REG_FLOATS(baddbmm, gemm_cuda)
REG_FLOATS(addbmm, gemm_cuda)
REG_FLOATS(mv, gemv_cuda)
REG_FLOATS(addmv, gemv_cuda)
REG_FLOATS(dot, dot_cuda)

}  // namespace
}  // namespace cuda
}  // namespace tocha
