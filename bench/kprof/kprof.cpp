// kprof.cpp -- libtocha_kprof.so, a per-kernel GPU time profile for any CUDA process (ours, or
// PyTorch's for comparison), for machines without Nsight Systems. Loaded by the CUDA driver
// through CUDA_INJECTION64_PATH, it records every kernel, memcpy and memset with CUPTI's activity
// API and reports, per named kernel: calls, total and mean device time, share of the total.
// It also reports how much of the window the GPU spent idle between kernels (a host that cannot
// keep the GPU fed shows up there, not in any kernel's time).
//
// A script marks its window (bench/cuda_profile.lua and .py): tocha_kprof_reset() after warm-up,
// tocha_kprof_report(path, title, steps) after its timed steps (times are then per step). Without
// a report call the whole run is reported to $TOCHA_KPROF_OUT (or stderr) at exit.
#include <cupti.h>
#include <cxxabi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Totals {
  uint64_t calls = 0, ns = 0, bytes = 0;
};

std::mutex g_mutex;
std::map<std::string, Totals> g_by_name;                  // kernels, and "[memcpy HtoD]"-style entries
std::vector<std::pair<uint64_t, uint64_t>> g_intervals;  // [start, end) of every record, for idle time
bool g_reported = false;

std::string demangled(const char *name) {
  if (!name) return "(unnamed kernel)";
  int status = 0;
  char *d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string s = status == 0 && d ? d : name;
  std::free(d);
  return s;
}

const char *copy_kind(uint8_t k) {
  switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "[memcpy HtoD]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "[memcpy DtoH]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "[memcpy DtoD]";
    default: return "[memcpy other]";
  }
}

void add(const std::string &name, uint64_t start, uint64_t end, uint64_t bytes) {
  if (!start || !end || end < start) return;  // incomplete (a flush before the GPU finished it)
  Totals &t = g_by_name[name];
  ++t.calls;
  t.ns += end - start;
  t.bytes += bytes;
  g_intervals.emplace_back(start, end);
}

// Record layouts: fields up to `name` (kernels) and `bytes`..`end` (copies, sets) sit at the same
// offsets in every version CUPTI has shipped; newer versions only append.
void take(const CUpti_Activity *r) {
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      auto *k = reinterpret_cast<const CUpti_ActivityKernel10 *>(r);
      add(demangled(k->name), k->start, k->end, 0);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      auto *m = reinterpret_cast<const CUpti_ActivityMemcpy6 *>(r);
      add(copy_kind(m->copyKind), m->start, m->end, m->bytes);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      auto *m = reinterpret_cast<const CUpti_ActivityMemset4 *>(r);
      add("[memset]", m->start, m->end, m->bytes);
      break;
    }
    default: break;
  }
}

constexpr size_t kBufferBytes = 8 << 20;

void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
  *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t *buffer, size_t, size_t valid) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    CUpti_Activity *r = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) take(r);
  }
  std::free(buffer);
}

// Device time the GPU spent on none of the recorded work between the window's first start and
// last end: the merged intervals' gaps.
uint64_t idle_ns(std::vector<std::pair<uint64_t, uint64_t>> v, uint64_t *span) {
  *span = 0;
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  uint64_t idle = 0, reach = v[0].second;
  for (const auto &iv : v) {
    if (iv.first > reach) idle += iv.first - reach;
    reach = std::max(reach, iv.second);
  }
  *span = reach - v[0].first;
  return idle;
}

void report_to(FILE *f, const char *title, int steps) {
  cuptiActivityFlushAll(1);
  std::lock_guard<std::mutex> lock(g_mutex);
  double per = steps > 0 ? double(steps) : 1.0;
  uint64_t total = 0;
  std::vector<std::pair<std::string, Totals>> rows(g_by_name.begin(), g_by_name.end());
  for (const auto &r : rows) total += r.second.ns;
  std::sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) { return a.second.ns > b.second.ns; });
  uint64_t span = 0, idle = idle_ns(g_intervals, &span);
  std::fprintf(f, "== %s: %s%d steps\n", title ? title : "kprof", steps > 0 ? "per step over " : "whole run, ",
               steps > 0 ? steps : 1);
  std::fprintf(f, "device busy %.1f us, span %.1f us, idle between records %.1f us (%.1f%%)\n", total / per / 1e3,
               span / per / 1e3, idle / per / 1e3, span ? 100.0 * double(idle) / double(span) : 0.0);
  std::fprintf(f, "%8s %11s %9s %6s  %s\n", "calls", "total us", "mean us", "share", "name");
  for (const auto &r : rows) {
    std::string name = r.first.size() > 150 ? r.first.substr(0, 147) + "..." : r.first;
    // copies and sets also say how many bytes they moved per step
    std::string moved = r.second.bytes ? " (" + std::to_string(r.second.bytes / per / 1e6) + " MB)" : "";
    std::fprintf(f, "%8.1f %11.1f %9.2f %5.1f%%  %s%s\n", r.second.calls / per, r.second.ns / per / 1e3,
                 r.second.ns / 1e3 / double(r.second.calls), total ? 100.0 * double(r.second.ns) / double(total) : 0.0,
                 name.c_str(), moved.c_str());
  }
  std::fflush(f);
}

void report_at_exit() {
  if (g_reported) return;
  const char *path = std::getenv("TOCHA_KPROF_OUT");
  FILE *f = path ? std::fopen(path, "a") : stderr;
  if (!f) f = stderr;
  report_to(f, "whole run", 0);
  if (f != stderr) std::fclose(f);
}

}  // namespace

extern "C" {

// Called by the CUDA driver when CUDA_INJECTION64_PATH names this library; 1 means success.
__attribute__((visibility("default"))) int InitializeInjection(void) {
  if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS) return 0;
  const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                      CUPTI_ACTIVITY_KIND_MEMSET};
  for (CUpti_ActivityKind k : kinds)
    if (cuptiActivityEnable(k) != CUPTI_SUCCESS) std::fprintf(stderr, "kprof: could not enable activity %d\n", int(k));
  std::atexit(report_at_exit);
  return 1;
}

// Drops what was recorded so far (call after warm-up, with the device synchronized).
__attribute__((visibility("default"))) void tocha_kprof_reset(void) {
  cuptiActivityFlushAll(1);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_by_name.clear();
  g_intervals.clear();
}

// Appends the profile since the last reset to path (stderr when null), as per-step times when
// steps > 0 (synchronize the device first), and starts a new window.
__attribute__((visibility("default"))) void tocha_kprof_report(const char *path, const char *title, int steps) {
  FILE *f = path ? std::fopen(path, "a") : stderr;
  if (!f) f = stderr;
  report_to(f, title, steps);
  if (f != stderr) std::fclose(f);
  g_reported = true;
  tocha_kprof_reset();
}

}  // extern "C"
