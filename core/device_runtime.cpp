// The registry of device runtimes and backend settings. See device_runtime.h.
#include "core/device_runtime.h"
#include <atomic>
#include <cstdlib>
#include <cstring>
#include "core/error.h"

namespace tocha {

namespace {
DeviceRuntime g_runtimes[kNumDeviceTypes] = {};
std::atomic<bool> g_allow_tf32{false};
std::atomic<bool> g_cudnn_benchmark{false};
std::atomic<bool> g_cudnn_graph_api{env_flag("TOCHA_CUDNN_GRAPH", false)};
std::atomic<int64_t> g_graph_plans{0}, g_graph_legacy{0};
}  // namespace

bool env_flag(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return std::strcmp(v, "0") != 0;
}

void register_device_runtime(DeviceType t, const DeviceRuntime& r) { g_runtimes[int(t)] = r; }

const DeviceRuntime* device_runtime(DeviceType t) {
  return g_runtimes[int(t)].device_count ? &g_runtimes[int(t)] : nullptr;
}

const DeviceRuntime& require_device_runtime(DeviceType t, const char* op) {
  const DeviceRuntime* r = device_runtime(t);
  TOCHA_CHECK(r, op, "Tocha was built without ", device_type_name(t), " support (configure with -DTOCHA_CUDA=ON)");
  TOCHA_CHECK(r->device_count() > 0, op, r->unavailable_reason());
  return *r;
}

bool cuda_allow_tf32() { return g_allow_tf32.load(std::memory_order_relaxed); }
void set_cuda_allow_tf32(bool on) { g_allow_tf32.store(on, std::memory_order_relaxed); }
bool cudnn_benchmark() { return g_cudnn_benchmark.load(std::memory_order_relaxed); }
void set_cudnn_benchmark(bool on) { g_cudnn_benchmark.store(on, std::memory_order_relaxed); }
bool cudnn_graph_api() { return g_cudnn_graph_api.load(std::memory_order_relaxed); }
void set_cudnn_graph_api(bool on) { g_cudnn_graph_api.store(on, std::memory_order_relaxed); }
CudnnGraphStats cudnn_graph_stats() {
  CudnnGraphStats s;
  s.plans = g_graph_plans.load(std::memory_order_relaxed);
  s.legacy = g_graph_legacy.load(std::memory_order_relaxed);
  return s;
}
void count_cudnn_graph_shape(bool planned) { (planned ? g_graph_plans : g_graph_legacy).fetch_add(1); }

}  // namespace tocha
