// CUDA kernels of the convolution ops (conv, convTranspose, convWeight; core/ops/conv_kernels.h)
// through cuDNN's convolution API: cudnnConvolutionForward, BackwardData (the transposed
// convolution) and BackwardFilter (the weight gradient, with its alpha/beta accumulation), for
// f32, f64, f16 and bf16. Builds without cuDNN register kernels that say so.
//
// Note [cuDNN algorithm cache]: the first call of each (op, dtype, device, geometry, math) asks
// cuDNN's heuristics (Get*_v7) for its ranked algorithms, runs the first one that cuDNN accepts
// and whose workspace can be allocated, and caches that choice (and its workspace size), so later
// steps of a training loop go straight to the call. Heuristics instead of cudnnFind* because Find
// times every algorithm on the real tensors (seconds per new shape, and temporary memory spikes);
// PyTorch's default (benchmark off) makes the same choice. Workspaces come from the caching
// allocator as a Storage freed in stream order right after the call.
//
// Note [cuDNN benchmark]: with torch.backends.cudnn.benchmark on, the first call of a shape times
// cuDNN's algorithms on the call's own tensors (cudnnFind*AlgorithmEx) instead, with a workspace
// as large as the heuristics' hungriest candidate asks (at most 1 GiB, halved while it cannot be
// allocated), and caches the fastest under a key of its own. The timing runs write the call's
// output, which the chosen algorithm then writes again; a weight gradient that accumulates
// (beta != 0) is timed into a scratch buffer so the accumulated values survive.
//
// f32 convolutions with thin filters (at most 32 taps) take our direct kernels instead (Note
// [Thin-filter convolutions], kernels/cuda/conv_thin.cu).
//
// Note [cuDNN engines] (kernels/cuda/cudnn_conv_graph.cpp): with torch.backends.cudnn.graphAPI on,
// a call first tries cuDNN's graph API, whose heuristics rank every engine cuDNN has (PyTorch's
// path); geometries it has no engine for come here.
//
// Note [cuDNN math]: f32 convolutions use TF32 tensor cores only when torch.backends.cuda.allowTF32
// is set (the matmul family's switch), so by default CUDA and CPU results agree to f32 rounding;
// f16/bf16 use tensor cores with f32 accumulation; f64 uses plain double math.
#include "core/kernel_registry.h"
#include "core/ops/conv_kernels.h"
#include "core/error.h"

#ifdef TOCHA_HAVE_CUDNN
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <vector>
#include "core/device_runtime.h"
#include "core/storage.h"
#include "kernels/cuda/channel_bias.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/conv_thin.h"
#include "kernels/cuda/cudnn_conv_graph.h"
#include "kernels/cuda/cudnn_util.h"
#include "kernels/cuda/runtime.h"
#endif

namespace tocha {
namespace cuda {
namespace {

#ifdef TOCHA_HAVE_CUDNN

cudnnMathType_t math_type(DType dt) {
  if (dt == DType::f16 || dt == DType::bf16) return CUDNN_TENSOR_OP_MATH;
  if (dt == DType::f32) return cuda_allow_tf32() ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
  return CUDNN_DEFAULT_MATH;
}

// Owners of the filter and convolution descriptors (destroyed even when a later setup step throws).
struct FilterDesc {
  cudnnFilterDescriptor_t d = nullptr;
  explicit FilterDesc(const char* op) { TOCHA_CUDNN_CHECK(op, cudnnCreateFilterDescriptor(&d)); }
  ~FilterDesc() { cudnnDestroyFilterDescriptor(d); }
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
};
struct ConvDesc {
  cudnnConvolutionDescriptor_t d = nullptr;
  explicit ConvDesc(const char* op) { TOCHA_CUDNN_CHECK(op, cudnnCreateConvolutionDescriptor(&d)); }
  ~ConvDesc() { cudnnDestroyConvolutionDescriptor(d); }
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
};

// The descriptors of one convolution geometry: x (N x C x in), y (N x O x out), w, conv.
struct ConvDescs {
  int ns;  // spatial dims given to cuDNN
  std::unique_ptr<TensorDesc> x, y;
  FilterDesc w;
  ConvDesc conv;
  ConvDescs(const char* op, DType dt, const ConvGeometry& g) : ns(spatial_dims(g)), w(op), conv(op) {
    const int first = 3 - ns;
    int64_t xs[5] = {g.batch, g.in_channels}, ys[5] = {g.batch, g.out_channels};
    int wd[5] = {cudnn_int(op, g.out_channels), cudnn_int(op, g.in_channels / g.groups)};
    int pad[3], stride[3], dil[3];
    for (int d = 0; d < ns; ++d) {
      xs[2 + d] = g.in_size[first + d];
      ys[2 + d] = g.out_size[first + d];
      wd[2 + d] = cudnn_int(op, g.kernel[first + d]);
      pad[d] = cudnn_int(op, g.pad[first + d]);
      stride[d] = cudnn_int(op, g.stride[first + d]);
      dil[d] = cudnn_int(op, g.dilation[first + d]);
    }
    x = std::make_unique<TensorDesc>(op, dt, ns + 2, xs);
    y = std::make_unique<TensorDesc>(op, dt, ns + 2, ys);
    TOCHA_CUDNN_CHECK(op, cudnnSetFilterNdDescriptor(w.d, cudnn_dtype(op, dt), CUDNN_TENSOR_NCHW, ns + 2, wd));
    TOCHA_CUDNN_CHECK(op, cudnnSetConvolutionNdDescriptor(conv.d, ns, pad, stride, dil, CUDNN_CROSS_CORRELATION,
                                                          cudnn_compute_dtype(dt)));
    TOCHA_CUDNN_CHECK(op, cudnnSetConvolutionGroupCount(conv.d, cudnn_int(op, g.groups)));
    TOCHA_CUDNN_CHECK(op, cudnnSetConvolutionMathType(conv.d, math_type(dt)));
  }
};

// Cache key: role, dtype, device, math type, how the choice is made and every number of the geometry.
std::vector<int64_t> cache_key(ConvRole role, DType dt, int device, const ConvGeometry& g) {
  return conv_cache_key(role, dt, device, g, {int64_t(math_type(dt)), int64_t(cudnn_benchmark())});
}

// An algorithm, its workspace and the math type its perf entry names (set on the descriptor
// before the call: cuDNN picks tensor-core kernels from the pair, as PyTorch notes).
struct Choice {
  int algo;
  size_t workspace;
  cudnnMathType_t math;
};

// The math type to run a perf entry with under Note [cuDNN math]: f32 without TF32 is forced to
// FMA (DEFAULT_MATH allows TF32 on Ampere and later); an algorithm that has no FMA kernel then
// answers NOT_SUPPORTED and the next candidate runs.
cudnnMathType_t allowed_math(DType dt, cudnnMathType_t m) {
  return dt == DType::f32 && !cuda_allow_tf32() ? CUDNN_FMA_MATH : m;
}

std::mutex cache_mutex;
std::map<std::vector<int64_t>, Choice>& cache() {
  static std::map<std::vector<int64_t>, Choice> c;
  return c;
}

// The ranked candidate algorithms of a role with their workspace sizes (heuristics).
std::vector<Choice> candidates(const char* op, ConvRole role, DType dt, cudnnHandle_t h, const ConvDescs& d) {
  std::vector<Choice> out;
  int n = 0;
  if (role == ConvRole::forward) {
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    TOCHA_CUDNN_CHECK(op, cudnnGetConvolutionForwardAlgorithm_v7(h, d.x->d, d.w.d, d.conv.d, d.y->d,
                                                                 CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, perf));
    for (int i = 0; i < n; ++i) {
      if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
      const cudnnMathType_t m = allowed_math(dt, perf[i].mathType);
      if (cudnnSetConvolutionMathType(d.conv.d, m) != CUDNN_STATUS_SUCCESS) continue;
      size_t ws = 0;
      if (cudnnGetConvolutionForwardWorkspaceSize(h, d.x->d, d.w.d, d.conv.d, d.y->d, perf[i].algo, &ws) !=
          CUDNN_STATUS_SUCCESS)
        continue;
      out.push_back(Choice{int(perf[i].algo), ws, m});
    }
  } else if (role == ConvRole::data) {
    cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    TOCHA_CUDNN_CHECK(op, cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w.d, d.y->d, d.conv.d, d.x->d,
                                                                      CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n, perf));
    for (int i = 0; i < n; ++i) {
      if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
      const cudnnMathType_t m = allowed_math(dt, perf[i].mathType);
      if (cudnnSetConvolutionMathType(d.conv.d, m) != CUDNN_STATUS_SUCCESS) continue;
      size_t ws = 0;
      if (cudnnGetConvolutionBackwardDataWorkspaceSize(h, d.w.d, d.y->d, d.conv.d, d.x->d, perf[i].algo, &ws) !=
          CUDNN_STATUS_SUCCESS)
        continue;
      out.push_back(Choice{int(perf[i].algo), ws, m});
    }
  } else {
    cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    TOCHA_CUDNN_CHECK(op, cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                              h, d.x->d, d.y->d, d.conv.d, d.w.d, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &n, perf));
    for (int i = 0; i < n; ++i) {
      if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
      const cudnnMathType_t m = allowed_math(dt, perf[i].mathType);
      if (cudnnSetConvolutionMathType(d.conv.d, m) != CUDNN_STATUS_SUCCESS) continue;
      size_t ws = 0;
      if (cudnnGetConvolutionBackwardFilterWorkspaceSize(h, d.x->d, d.y->d, d.conv.d, d.w.d, perf[i].algo, &ws) !=
          CUDNN_STATUS_SUCCESS)
        continue;
      out.push_back(Choice{int(perf[i].algo), ws, m});
    }
  }
  return out;
}

// Elements of the weight (out_channels x in_channels / groups x kernel).
int64_t filter_numel(const ConvGeometry& g) {
  int64_t n = g.out_channels * (g.in_channels / g.groups);
  for (int d = 0; d < 3; ++d) n *= g.kernel[d];
  return n;
}

// The successful entries of a perf list, fastest first when cuDNN timed them.
template <class Perf> void add_successes(DType dt, const Perf* perf, int n, std::vector<Choice>& out) {
  for (int i = 0; i < n; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS)
      out.push_back(Choice{int(perf[i].algo), perf[i].memory, allowed_math(dt, perf[i].mathType)});
}

// The role's algorithms timed on the call's tensors, fastest first (Note [cuDNN benchmark]).
std::vector<Choice> timed_candidates(const char* op, ConvRole role, DType dt, cudnnHandle_t h, const ConvDescs& d,
                                     const ConvArgs& a, Device dev) {
  size_t want = 0;
  for (const Choice& c : candidates(op, role, dt, h, d)) want = std::max(want, c.workspace);
  want = std::min(want, size_t(1) << 30);
  Ref<Storage> ws;
  for (; want && !ws; want /= 2) {
    try {
      ws = Storage::allocate(want, dev);
    } catch (const OutOfMemory&) {
    }
  }
  if (ws) want = ws->nbytes();
  void* wsp = ws ? ws->data() : nullptr;
  TOCHA_CUDNN_CHECK(op, cudnnSetConvolutionMathType(d.conv.d, math_type(dt)));  // candidates() changed it
  std::vector<Choice> out;
  int n = 0;
  if (role == ConvRole::forward) {
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    TOCHA_CUDNN_CHECK(op, cudnnFindConvolutionForwardAlgorithmEx(h, d.x->d, a.x, d.w.d, a.w, d.conv.d, d.y->d, a.out,
                                                                 CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, perf, wsp, want));
    add_successes(dt, perf, n, out);
  } else if (role == ConvRole::data) {
    cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    TOCHA_CUDNN_CHECK(op, cudnnFindConvolutionBackwardDataAlgorithmEx(h, d.w.d, a.w, d.y->d, a.y, d.conv.d, d.x->d,
                                                                      a.out, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n,
                                                                      perf, wsp, want));
    add_successes(dt, perf, n, out);
  } else {
    void* dw = a.out;
    Ref<Storage> scratch;
    if (a.beta != 0) {
      scratch = Storage::allocate(size_t(filter_numel(a.g)) * dtype_size(dt), dev);
      dw = scratch->data();
    }
    cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    TOCHA_CUDNN_CHECK(op, cudnnFindConvolutionBackwardFilterAlgorithmEx(h, d.x->d, a.x, d.y->d, a.y, d.conv.d, d.w.d,
                                                                        dw, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
                                                                        &n, perf, wsp, want));
    add_successes(dt, perf, n, out);
  }
  return out;
}

// One cuDNN call of the role with algorithm c (alpha/beta in the compute type).
cudnnStatus_t run_role(ConvRole role, cudnnHandle_t h, const ConvDescs& d, const ConvArgs& a, const Choice& c,
                       void* ws, const void* alpha, const void* beta) {
  cudnnStatus_t st = cudnnSetConvolutionMathType(d.conv.d, c.math);
  if (st != CUDNN_STATUS_SUCCESS) return st;
  switch (role) {
    case ConvRole::forward:
      return cudnnConvolutionForward(h, alpha, d.x->d, a.x, d.w.d, a.w, d.conv.d, cudnnConvolutionFwdAlgo_t(c.algo), ws,
                                     c.workspace, beta, d.y->d, a.out);
    case ConvRole::data:
      return cudnnConvolutionBackwardData(h, alpha, d.w.d, a.w, d.y->d, a.y, d.conv.d,
                                          cudnnConvolutionBwdDataAlgo_t(c.algo), ws, c.workspace, beta, d.x->d, a.out);
    default:
      return cudnnConvolutionBackwardFilter(h, alpha, d.x->d, a.x, d.y->d, a.y, d.conv.d,
                                            cudnnConvolutionBwdFilterAlgo_t(c.algo), ws, c.workspace, beta, d.w.d,
                                            a.out);
  }
}

// Runs the role with the cached algorithm, or picks one (Note [cuDNN algorithm cache]).
template <class S> void run_conv(ConvRole role, DType dt, const ConvArgs& a, S alpha, S beta) {
  const char* op = role_name(role);
  const int device = device_of(a.out);
  LaunchScope scope(device);
  cudnnHandle_t h = cudnn_handle(op, device);
  const Device dev{DeviceType::cuda, device};
  if (cudnn_graph_api() && !cudnn_benchmark() && run_conv_graph(role, dt, a, h, dev)) return;
  ConvDescs d(op, dt, a.g);
  const auto key = cache_key(role, dt, device, a.g);
  {
    std::unique_lock<std::mutex> lock(cache_mutex);
    auto it = cache().find(key);
    if (it != cache().end()) {
      Choice c = it->second;
      lock.unlock();
      Ref<Storage> ws = c.workspace ? Storage::allocate(c.workspace, dev) : Ref<Storage>();
      TOCHA_CUDNN_CHECK(op, run_role(role, h, d, a, c, ws ? ws->data() : nullptr, &alpha, &beta));
      return;
    }
  }
  std::vector<Choice> list;
  if (cudnn_benchmark()) list = timed_candidates(op, role, dt, h, d, a, dev);
  if (list.empty()) list = candidates(op, role, dt, h, d);
  cudnnStatus_t last = CUDNN_STATUS_NOT_SUPPORTED;
  bool short_of_memory = false;
  for (const Choice& c : list) {
    Ref<Storage> ws;
    if (c.workspace) {
      try {
        ws = Storage::allocate(c.workspace, dev);
      } catch (const OutOfMemory&) {
        short_of_memory = true;  // a later algorithm may need less workspace
        continue;
      }
    }
    last = run_role(role, h, d, a, c, ws ? ws->data() : nullptr, &alpha, &beta);
    if (last == CUDNN_STATUS_SUCCESS) {
      std::lock_guard<std::mutex> lock(cache_mutex);
      cache()[key] = c;
      return;
    }
    // cuDNN 9 refines these two into sub-codes (NOT_SUPPORTED_SHAPE, BAD_PARAM_...): by category.
    const int category = CUDNN_STATUS_CATEGORY(int(last));
    if (category != CUDNN_STATUS_NOT_SUPPORTED && category != CUDNN_STATUS_BAD_PARAM)
      fail_cudnn(op, "the cuDNN algorithm chosen", last);
  }
  if (short_of_memory)  // the others did not take the call
    throw OutOfMemory(str_cat("[", op, "] out of memory for every cuDNN algorithm's workspace (",
                              cudnnGetErrorString(last), " from the others)"));
  fail_cudnn(op, list.empty() ? "no algorithm from the cuDNN heuristics" : "every algorithm of the heuristics", last);
}

// y (or x for convTranspose) += bias over its channel dim, with our kernel rather than
// cudnnAddTensor (Note [Convolution bias], kernels/cuda/channel_bias.cu).
void add_bias(const char* op, DType dt, const ConvArgs& a, bool to_x) {
  if (!a.b) return;
  LaunchScope scope(device_of(a.out));
  const int ns = spatial_dims(a.g), first = 3 - ns;
  int64_t inner = 1;
  for (int d = 0; d < ns; ++d) inner *= to_x ? a.g.in_size[first + d] : a.g.out_size[first + d];
  add_channel_bias(op, dt, a.out, a.b, a.g.batch, to_x ? a.g.in_channels : a.g.out_channels, inner);
}

template <DType dt> void conv_forward_cudnn(const ConvArgs& a) {
  using S = std::conditional_t<dt == DType::f64, double, float>;
  if (thin_conv_applies(dt, a.g)) {  // Note [Thin-filter convolutions]: bias included
    LaunchScope scope(device_of(a.out));
    thin_conv_forward(a);
    return;
  }
  run_conv<S>(ConvRole::forward, dt, a, S(1), S(0));
  add_bias("conv", dt, a, false);
}
template <DType dt> void conv_transpose_cudnn(const ConvArgs& a) {
  using S = std::conditional_t<dt == DType::f64, double, float>;
  run_conv<S>(ConvRole::data, dt, a, S(1), S(0));
  add_bias("convTranspose", dt, a, true);
}
// With beta == 0 cuDNN does not read the weight buffer (it may hold anything, NaNs included).
// An empty batch gives beta * w (cuDNN rejects zero-sized tensors).
template <DType dt> void conv_weight_cudnn(const ConvArgs& a) {
  using S = std::conditional_t<dt == DType::f64, double, float>;
  if (thin_conv_applies(dt, a.g)) {  // Note [Thin-filter convolutions]
    LaunchScope scope(device_of(a.out));
    thin_conv_weight(a);
    return;
  }
  if (a.g.batch > 0) {
    run_conv<S>(ConvRole::filter, dt, a, S(a.alpha), S(a.beta));
    return;
  }
  const char* op = "convWeight";
  const int device = device_of(a.out);
  LaunchScope scope(device);
  const int64_t n = filter_numel(a.g);
  if (a.beta == 0) {
    TOCHA_CUDA_CHECK(op, cudaMemsetAsync(a.out, 0, size_t(n) * dtype_size(dt), scope.stream));
    return;
  }
  int64_t sizes[4] = {1, 1, 1, n};
  TensorDesc wd(op, dt, 4, sizes);
  S beta = S(a.beta);
  TOCHA_CUDNN_CHECK(op, cudnnScaleTensor(cudnn_handle(op, device), wd.d, a.out, &beta));
}

#define REG_CONV(dt)                                                        \
  TOCHA_REGISTER_KERNEL(conv, cuda, dt, &conv_forward_cudnn<dt>);            \
  TOCHA_REGISTER_KERNEL(convTranspose, cuda, dt, &conv_transpose_cudnn<dt>); \
  TOCHA_REGISTER_KERNEL(convWeight, cuda, dt, &conv_weight_cudnn<dt>);
REG_CONV(DType::f32)
REG_CONV(DType::f64)
REG_CONV(DType::f16)
REG_CONV(DType::bf16)

#else  // no cuDNN in this build: a clear error at call time instead of "no kernel"

template <OpId op> void without_cudnn(const ConvArgs&) {
  fail(op_name(op), "this build of Tocha has no cuDNN, which CUDA convolutions use: install cuDNN 9 "
                    "(cudnn.h and libcudnn) and reconfigure, or run the convolution on the CPU");
}
#define REG_CONV(dt)                                                                 \
  TOCHA_REGISTER_KERNEL(conv, cuda, dt, &without_cudnn<OpId::conv>);                  \
  TOCHA_REGISTER_KERNEL(convTranspose, cuda, dt, &without_cudnn<OpId::convTranspose>); \
  TOCHA_REGISTER_KERNEL(convWeight, cuda, dt, &without_cudnn<OpId::convWeight>);
REG_CONV(DType::f32)
REG_CONV(DType::f64)
REG_CONV(DType::f16)
REG_CONV(DType::bf16)

#endif

}  // namespace
}  // namespace cuda
}  // namespace tocha
