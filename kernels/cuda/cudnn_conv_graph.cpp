// Convolutions through cuDNN's graph (backend) API: an operation graph of one convolution node,
// the engines cuDNN's heuristics rank for it, and one execution plan per geometry, cached. Taken
// before the legacy API (kernels/cuda/cudnn_conv.cpp) when torch.backends.cudnn.graphAPI is on.
//
// Note [cuDNN engines]: cuDNN 9 runs every convolution on an "engine". The legacy API
// (cudnnConvolutionForward with a cudnnConvolutionFwdAlgo_t) reaches a fixed handful of them, one
// per algorithm number, ranked by the v7 heuristics; the graph API ranks every engine the library
// has for this GPU, runtime-compiled and architecture-specific ones included. PyTorch takes the
// graph path (its Conv_v8.cpp): heuristics in mode INSTANT, then cuDNN's fallback list, dropping
// engines whose numerical notes break the math we promise (Note [cuDNN math]): no engine that
// down-converts its inputs, and for f32 no tensor-core engine unless TF32 is allowed. The first
// engine whose plan builds, whose workspace can be allocated and whose execution succeeds is
// cached under the call's geometry, dtype, scaling, math and the byte alignment of its three
// tensors (engines may need 16-byte alignment). A geometry no engine accepts is cached as such
// and goes to the legacy API. With torch.backends.cudnn.benchmark on, the legacy API's timed
// search runs instead (Note [cuDNN benchmark]).
//
// The switch is off by default until a GPU run compares the two paths (bench/cuda_train.lua's
// *_graph rows); TOCHA_CUDNN_GRAPH=1 in the environment turns it on from the start.
#ifdef TOCHA_HAVE_CUDNN
#include "kernels/cuda/cudnn_conv_graph.h"
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>
#include "core/device_runtime.h"
#include "core/error.h"
#include "core/storage.h"
#include "kernels/cuda/cudnn_util.h"

// The handle attributes of graphs and plans are marked deprecated in cuDNN 9.x headers but are
// still how a graph learns its device; cudnn-frontend sets them too.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace tocha {
namespace cuda {
namespace {

// One backend descriptor, destroyed with its owner; shared by the cached plans that need it.
class BackendDesc {
 public:
  explicit BackendDesc(cudnnBackendDescriptorType_t type) { status_ = cudnnBackendCreateDescriptor(type, &d_); }
  ~BackendDesc() {
    if (d_) cudnnBackendDestroyDescriptor(d_);
  }
  BackendDesc(const BackendDesc&) = delete;
  BackendDesc& operator=(const BackendDesc&) = delete;
  cudnnBackendDescriptor_t get() const { return d_; }
  bool created() const { return status_ == CUDNN_STATUS_SUCCESS && d_; }

 private:
  cudnnBackendDescriptor_t d_ = nullptr;
  cudnnStatus_t status_;
};
using Desc = std::shared_ptr<BackendDesc>;

// Building stops at the first status that is not success: cuDNN answers NOT_SUPPORTED (or
// BAD_PARAM) for geometries it has no engine for, which sends the call to the legacy API.
struct Builder {
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  std::vector<Desc> made;  // every descriptor of the graph, kept alive with the plan

  bool ok() const { return status == CUDNN_STATUS_SUCCESS; }
  void check(cudnnStatus_t st) {
    if (ok()) status = st;
  }
  Desc make(cudnnBackendDescriptorType_t type) {
    auto d = std::make_shared<BackendDesc>(type);
    if (!d->created()) check(CUDNN_STATUS_NOT_INITIALIZED);
    made.push_back(d);
    return d;
  }
  void set(const Desc& d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t n,
           const void* values) {
    if (ok()) check(cudnnBackendSetAttribute(d->get(), name, type, n, values));
  }
  void set_desc(const Desc& d, cudnnBackendAttributeName_t name, const Desc& value) {
    cudnnBackendDescriptor_t v = value->get();
    set(d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &v);
  }
  void finalize(const Desc& d) {
    if (ok()) check(cudnnBackendFinalize(d->get()));
  }
};

// The largest power of two up to 16 that divides the address (cuDNN's byte alignment).
int64_t byte_alignment(const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  int64_t align = 1;
  while (align < 16 && a % uintptr_t(align * 2) == 0) align *= 2;
  return align;
}

// A packed tensor of nd dims with a unique id ('x', 'y' or 'w').
Desc tensor(Builder& b, DType dt, int nd, const int64_t* dims, int64_t uid, int64_t align) {
  int64_t strides[5];
  int64_t s = 1;
  for (int i = nd - 1; i >= 0; --i) {
    strides[i] = s;
    s *= dims[i] > 0 ? dims[i] : 1;
  }
  cudnnDataType_t type = cudnn_dtype("conv", dt);
  Desc t = b.make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  b.set(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
  b.set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, nd, dims);
  b.set(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, nd, strides);
  b.set(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
  b.set(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
  b.finalize(t);
  return t;
}

// The three data pointers of a call in the order of kUids (the written one is a.out).
constexpr int64_t kUids[3] = {'x', 'y', 'w'};
void data_pointers(ConvRole role, const ConvArgs& a, void* out[3]) {
  out[0] = role == ConvRole::data ? a.out : const_cast<void*>(a.x);
  out[1] = role == ConvRole::forward ? a.out : const_cast<void*>(a.y);
  out[2] = role == ConvRole::filter ? a.out : const_cast<void*>(a.w);
}

// The operation graph of one convolution node for the call.
Desc operation_graph(Builder& b, ConvRole role, DType dt, const ConvArgs& a, cudnnHandle_t h) {
  const ConvGeometry& g = a.g;
  const int ns = spatial_dims(g), first = 3 - ns;
  int64_t xd[5] = {g.batch, g.in_channels}, yd[5] = {g.batch, g.out_channels};
  int64_t wd[5] = {g.out_channels, g.in_channels / g.groups};
  int64_t pad[3], stride[3], dil[3];
  for (int d = 0; d < ns; ++d) {
    xd[2 + d] = g.in_size[first + d];
    yd[2 + d] = g.out_size[first + d];
    wd[2 + d] = g.kernel[first + d];
    pad[d] = g.pad[first + d];
    stride[d] = g.stride[first + d];
    dil[d] = g.dilation[first + d];
  }
  void* ptr[3];
  data_pointers(role, a, ptr);
  // Groups are implied by the filter's channel count (in_channels / groups).
  Desc x = tensor(b, dt, ns + 2, xd, kUids[0], byte_alignment(ptr[0]));
  Desc y = tensor(b, dt, ns + 2, yd, kUids[1], byte_alignment(ptr[1]));
  Desc w = tensor(b, dt, ns + 2, wd, kUids[2], byte_alignment(ptr[2]));

  Desc conv = b.make(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  cudnnDataType_t comp = cudnn_compute_dtype(dt);
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  const int64_t nsd = ns;
  b.set(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp);
  b.set(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
  b.set(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &nsd);
  b.set(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, ns, dil);
  b.set(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, ns, stride);
  b.set(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, ns, pad);
  b.set(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, ns, pad);
  b.finalize(conv);

  struct Names {
    cudnnBackendDescriptorType_t type;
    cudnnBackendAttributeName_t x, y, w, conv, alpha, beta;
  };
  static const Names names[3] = {
      {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA},
      {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA},
      {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA},
  };
  const Names& n = names[int(role)];
  Desc op = b.make(n.type);
  b.set_desc(op, n.x, x);
  b.set_desc(op, n.y, y);
  b.set_desc(op, n.w, w);
  b.set_desc(op, n.conv, conv);
  // The scaling factors in the compute type (conv and convTranspose: 1 and 0).
  const double alpha = role == ConvRole::filter ? a.alpha : 1, beta = role == ConvRole::filter ? a.beta : 0;
  if (dt == DType::f64) {
    b.set(op, n.alpha, CUDNN_TYPE_DOUBLE, 1, &alpha);
    b.set(op, n.beta, CUDNN_TYPE_DOUBLE, 1, &beta);
  } else {
    const float af = float(alpha), bf = float(beta);
    b.set(op, n.alpha, CUDNN_TYPE_FLOAT, 1, &af);
    b.set(op, n.beta, CUDNN_TYPE_FLOAT, 1, &bf);
  }
  b.finalize(op);

  Desc graph = b.make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  cudnnBackendDescriptor_t ops = op->get();
  b.set(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &ops);
  b.set(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
  b.finalize(graph);
  return graph;
}

// Whether an engine configuration keeps Note [cuDNN math]'s promise for dt.
bool math_allowed(const Desc& config, DType dt) {
  BackendDesc engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  if (!engine.created()) return false;
  cudnnBackendDescriptor_t e = engine.get();
  int64_t n = 0;
  if (cudnnBackendGetAttribute(config->get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n,
                               &e) != CUDNN_STATUS_SUCCESS)
    return false;
  cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
  n = 0;
  if (cudnnBackendGetAttribute(e, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                               CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &n, notes) != CUDNN_STATUS_SUCCESS)
    return false;
  for (int64_t i = 0; i < n && i < CUDNN_NUMERICAL_NOTE_TYPE_COUNT; ++i) {
    if (notes[i] == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS) return false;
    // Note [cuDNN math]: f16/bf16 accumulate in f32, so no reduced-precision reduction either.
    if (notes[i] == CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION) return false;
    if (notes[i] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE && dt == DType::f32 && !cuda_allow_tf32()) return false;
  }
  return true;
}

// The engine configurations of one heuristics mode for the graph, best first, that math allows.
void add_configs(const Desc& graph, cudnnBackendHeurMode_t mode, DType dt, std::vector<Desc>& out) {
  Builder b;
  Desc heur = b.make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  b.set_desc(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph);
  b.set(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
  b.finalize(heur);
  int64_t count = 0;
  if (b.ok()) {
    b.check(cudnnBackendGetAttribute(heur->get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                                     &count, nullptr));
  }
  if (!b.ok() || count <= 0) return;
  std::vector<Desc> configs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (int64_t i = 0; i < count; ++i) {
    configs.push_back(std::make_shared<BackendDesc>(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
    if (!configs.back()->created()) return;
    raw.push_back(configs.back()->get());
  }
  int64_t got = 0;
  if (cudnnBackendGetAttribute(heur->get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got,
                               raw.data()) != CUDNN_STATUS_SUCCESS)
    return;
  for (int64_t i = 0; i < got && i < count; ++i)
    if (math_allowed(configs[size_t(i)], dt)) out.push_back(configs[size_t(i)]);
}

// A finalized plan of one engine configuration and its workspace bytes.
struct Plan {
  std::vector<Desc> keep;  // the graph's descriptors and the configuration
  Desc plan;
  int64_t workspace = 0;
};

Desc make_plan(const Desc& config, cudnnHandle_t h, int64_t* workspace) {
  Builder b;
  Desc plan = b.make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  b.set(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
  b.set_desc(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, config);
  b.finalize(plan);
  int64_t n = 0;
  if (b.ok())
    b.check(cudnnBackendGetAttribute(plan->get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n,
                                     workspace));
  return b.ok() ? plan : nullptr;
}

// Runs a plan on the call's tensors with a workspace from the caching allocator.
cudnnStatus_t execute(const Plan& p, ConvRole role, const ConvArgs& a, cudnnHandle_t h, Device dev) {
  Ref<Storage> ws = p.workspace > 0 ? Storage::allocate(size_t(p.workspace), dev) : Ref<Storage>();
  void* ptr[3];
  data_pointers(role, a, ptr);
  void* wsp = ws ? ws->data() : nullptr;
  // The one descriptor of every call: on the stack, not through a Builder's shared list.
  BackendDesc pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  if (!pack.created()) return CUDNN_STATUS_NOT_INITIALIZED;
  cudnnStatus_t st =
      cudnnBackendSetAttribute(pack.get(), CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, kUids);
  if (st == CUDNN_STATUS_SUCCESS)
    st = cudnnBackendSetAttribute(pack.get(), CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptr);
  if (st == CUDNN_STATUS_SUCCESS)
    st = cudnnBackendSetAttribute(pack.get(), CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &wsp);
  if (st == CUDNN_STATUS_SUCCESS) st = cudnnBackendFinalize(pack.get());
  return st == CUDNN_STATUS_SUCCESS ? cudnnBackendExecute(h, p.plan->get(), pack.get()) : st;
}

// The cache key: everything the plan was built for (the scaling only matters to the weight
// gradient, which accumulates; the other roles always run with 1 and 0).
std::vector<int64_t> graph_key(ConvRole role, DType dt, int device, const ConvArgs& a) {
  void* ptr[3];
  data_pointers(role, a, ptr);
  int64_t alpha_bits = 0, beta_bits = 0;
  if (role == ConvRole::filter) {
    std::memcpy(&alpha_bits, &a.alpha, sizeof alpha_bits);
    std::memcpy(&beta_bits, &a.beta, sizeof beta_bits);
  }
  return conv_cache_key(role, dt, device, a.g,
                        {int64_t(cuda_allow_tf32()), alpha_bits, beta_bits, byte_alignment(ptr[0]),
                         byte_alignment(ptr[1]), byte_alignment(ptr[2])});
}

std::mutex plans_mutex;
// A null entry: no engine accepts the key's calls.
std::map<std::vector<int64_t>, std::shared_ptr<const Plan>>& plans() {
  static auto* m = new std::map<std::vector<int64_t>, std::shared_ptr<const Plan>>();
  return *m;
}

}  // namespace

bool run_conv_graph(ConvRole role, DType dt, const ConvArgs& a, cudnnHandle_t h, Device dev) {
  const char* op = role_name(role);
  const auto key = graph_key(role, dt, dev.index, a);
  {
    std::unique_lock<std::mutex> lock(plans_mutex);
    auto it = plans().find(key);
    if (it != plans().end()) {
      std::shared_ptr<const Plan> p = it->second;
      lock.unlock();
      if (!p) return false;
      const cudnnStatus_t st = execute(*p, role, a, h, dev);
      if (st != CUDNN_STATUS_SUCCESS) fail_cudnn(op, "cudnnBackendExecute", st);
      return true;
    }
  }
  Builder b;
  Desc graph = operation_graph(b, role, dt, a, h);
  std::vector<Desc> configs;
  if (b.ok()) {
    add_configs(graph, CUDNN_HEUR_MODE_INSTANT, dt, configs);
    add_configs(graph, CUDNN_HEUR_MODE_FALLBACK, dt, configs);
  }
  std::shared_ptr<Plan> chosen;
  bool short_of_memory = false;
  for (const Desc& config : configs) {
    auto p = std::make_shared<Plan>();
    p->plan = make_plan(config, h, &p->workspace);
    if (!p->plan) continue;
    cudnnStatus_t st;
    try {
      st = execute(*p, role, a, h, dev);
    } catch (const OutOfMemory&) {
      short_of_memory = true;  // a later engine may need less workspace
      continue;
    }
    if (st == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED) {
      short_of_memory = true;
      continue;
    }
    const int cat = CUDNN_STATUS_CATEGORY(int(st));
    if (cat == CUDNN_STATUS_NOT_SUPPORTED || cat == CUDNN_STATUS_BAD_PARAM) continue;  // this engine only
    if (st != CUDNN_STATUS_SUCCESS) fail_cudnn(op, "cudnnBackendExecute", st);       // a real failure
    p->keep = b.made;
    p->keep.push_back(config);
    chosen = std::move(p);
    break;
  }
  if (!chosen && short_of_memory) return false;  // not cached: memory may be free on the next call
  std::lock_guard<std::mutex> lock(plans_mutex);
  plans()[key] = chosen;
  count_cudnn_graph_shape(chosen != nullptr);
  return chosen != nullptr;
}

}  // namespace cuda
}  // namespace tocha
#endif  // TOCHA_HAVE_CUDNN
