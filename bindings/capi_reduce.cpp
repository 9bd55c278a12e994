// C ABI of the reductions, scans, sort and topk (bindings/tocha_reduce.h).
#include "capi.h"
#include "core/ops/reduce.h"
#include "core/ops/scan.h"
#include "core/ops/sort.h"

using namespace tocha;
using namespace tocha::capi;

namespace {

OpId arg_op(int op, const char* name) {
  TOCHA_CHECK(op >= 0 && op < kNumOps, name, "invalid op id ", op);
  return OpId(op);
}

// Runs f (returning ValuesIndices) and hands one reference of each result to the caller.
template <class F> int pair_result(const char* op, tocha_tensor** values, tocha_tensor** indices, F&& f) noexcept {
  return guard_int([&] {
    TOCHA_CHECK(values && indices, op, "values and indices result pointers must not be NULL");
    ValuesIndices r = f();
    *values = r.values.release();
    *indices = r.indices.release();
  });
}

std::optional<int64_t> opt_dim(int has, int dim) { return has ? std::optional<int64_t>(dim) : std::nullopt; }

}  // namespace

int tocha_reduce_value(int op, const tocha_tensor* a, double param, double* value) noexcept {
  return guard_int([&] {
    TOCHA_CHECK(value, "reduce", "value pointer is NULL");
    OpId id = arg_op(op, "reduce");
    *value = lua_number(reduce_value(id, arg(a, op_name(id)), param));
  });
}
int tocha_dist_value(const tocha_tensor* a, const tocha_tensor* b, double p, double* value) noexcept {
  return guard_int([&] {
    TOCHA_CHECK(value, "dist", "value pointer is NULL");
    *value = lua_number(dist_value(arg(a, "dist"), arg(b, "dist"), p));
  });
}

#define CAPI_REDUCTION(name)                                                                                   \
  tocha_tensor* tocha_##name##_all(const tocha_tensor* a) noexcept {                                          \
    return guard_tensor([&] { return name(arg(a, #name)); });                                                  \
  }                                                                                                            \
  tocha_tensor* tocha_##name(const tocha_tensor* a, int dim, int keepdim) noexcept {                          \
    return guard_tensor([&] { return name(arg(a, #name), dim, keepdim != 0); });                              \
  }                                                                                                            \
  int tocha_##name##_out(tocha_tensor* out, const tocha_tensor* a, int dim, int keepdim) noexcept {           \
    return guard_int([&] { name##_out(arg(out, #name), arg(a, #name), dim, keepdim != 0); });                 \
  }
CAPI_REDUCTION(sum)
CAPI_REDUCTION(prod)
CAPI_REDUCTION(mean)
CAPI_REDUCTION(logsumexp)
CAPI_REDUCTION(all)
CAPI_REDUCTION(any)
#undef CAPI_REDUCTION

// tocha::std, not std: the function would be ambiguous with the namespace after `using`.
#define CAPI_VARIANCE(name)                                                                          \
  tocha_tensor* tocha_##name##_all(const tocha_tensor* a, int unbiased) noexcept {                  \
    return guard_tensor([&] { return tocha::name(arg(a, #name), unbiased != 0); });                  \
  }                                                                                                  \
  tocha_tensor* tocha_##name(const tocha_tensor* a, int dim, int unbiased, int keepdim) noexcept {  \
    return guard_tensor([&] { return tocha::name(arg(a, #name), dim, unbiased != 0, keepdim != 0); }); \
  }                                                                                                  \
  int tocha_##name##_out(tocha_tensor* out, const tocha_tensor* a, int dim, int unbiased,           \
                         int keepdim) noexcept {                                                     \
    return guard_int(                                                                                \
        [&] { tocha::name##_out(arg(out, #name), arg(a, #name), dim, unbiased != 0, keepdim != 0); }); \
  }
CAPI_VARIANCE(var)
CAPI_VARIANCE(std)
#undef CAPI_VARIANCE

tocha_tensor* tocha_norm_all(const tocha_tensor* a, double p) noexcept {
  return guard_tensor([&] { return norm(arg(a, "norm"), p); });
}
tocha_tensor* tocha_norm(const tocha_tensor* a, double p, int dim, int keepdim) noexcept {
  return guard_tensor([&] { return norm(arg(a, "norm"), p, dim, keepdim != 0); });
}
int tocha_norm_out(tocha_tensor* out, const tocha_tensor* a, double p, int dim, int keepdim) noexcept {
  return guard_int([&] { norm_out(arg(out, "norm"), arg(a, "norm"), p, dim, keepdim != 0); });
}

#define CAPI_SELECTION(name)                                                                                   \
  int tocha_##name(const tocha_tensor* a, int dim, int keepdim, int64_t base, tocha_tensor** values,           \
                   tocha_tensor** indices) noexcept {                                                          \
    return pair_result(#name, values, indices, [&] { return name(arg(a, #name), dim, keepdim != 0, base); });  \
  }                                                                                                            \
  int tocha_##name##_out(tocha_tensor* values, tocha_tensor* indices, const tocha_tensor* a, int dim, int keepdim, \
                         int64_t base) noexcept {                                                              \
    return guard_int([&] {                                                                                     \
      name##_out(arg(values, #name), arg(indices, #name), arg(a, #name), dim, keepdim != 0, base);             \
    });                                                                                                        \
  }
CAPI_SELECTION(max)
CAPI_SELECTION(min)
CAPI_SELECTION(median)
CAPI_SELECTION(mode)
#undef CAPI_SELECTION

tocha_tensor* tocha_max_all(const tocha_tensor* a) noexcept { return guard_tensor([&] { return max(arg(a, "max")); }); }
tocha_tensor* tocha_min_all(const tocha_tensor* a) noexcept { return guard_tensor([&] { return min(arg(a, "min")); }); }
tocha_tensor* tocha_median_all(const tocha_tensor* a) noexcept {
  return guard_tensor([&] { return median(arg(a, "median")); });
}
tocha_tensor* tocha_argmax_all(const tocha_tensor* a, int64_t base) noexcept {
  return guard_tensor([&] { return argmax(arg(a, "argmax"), base); });
}
tocha_tensor* tocha_argmax(const tocha_tensor* a, int dim, int keepdim, int64_t base) noexcept {
  return guard_tensor([&] { return argmax(arg(a, "argmax"), dim, keepdim != 0, base); });
}
tocha_tensor* tocha_argmin_all(const tocha_tensor* a, int64_t base) noexcept {
  return guard_tensor([&] { return argmin(arg(a, "argmin"), base); });
}
tocha_tensor* tocha_argmin(const tocha_tensor* a, int dim, int keepdim, int64_t base) noexcept {
  return guard_tensor([&] { return argmin(arg(a, "argmin"), dim, keepdim != 0, base); });
}
int tocha_kthvalue(const tocha_tensor* a, int64_t k, int dim, int keepdim, int64_t base, tocha_tensor** values,
                   tocha_tensor** indices) noexcept {
  return pair_result("kthvalue", values, indices,
                     [&] { return kthvalue(arg(a, "kthvalue"), k, dim, keepdim != 0, base); });
}
int tocha_kthvalue_out(tocha_tensor* values, tocha_tensor* indices, const tocha_tensor* a, int64_t k, int dim,
                       int keepdim, int64_t base) noexcept {
  return guard_int([&] {
    kthvalue_out(arg(values, "kthvalue"), arg(indices, "kthvalue"), arg(a, "kthvalue"), k, dim, keepdim != 0, base);
  });
}

int tocha_sort(const tocha_tensor* a, int dim, int descending, int64_t base, tocha_tensor** values,
               tocha_tensor** indices) noexcept {
  return pair_result("sort", values, indices, [&] { return sort(arg(a, "sort"), dim, descending != 0, base); });
}
int tocha_sort_out(tocha_tensor* values, tocha_tensor* indices, const tocha_tensor* a, int dim, int descending,
                   int64_t base) noexcept {
  return guard_int([&] { sort_out(arg(values, "sort"), arg(indices, "sort"), arg(a, "sort"), dim, descending != 0, base); });
}
int tocha_topk(const tocha_tensor* a, int64_t k, int dim, int largest, int sorted, int64_t base,
               tocha_tensor** values, tocha_tensor** indices) noexcept {
  return pair_result("topk", values, indices,
                     [&] { return topk(arg(a, "topk"), k, dim, largest != 0, sorted != 0, base); });
}
int tocha_topk_out(tocha_tensor* values, tocha_tensor* indices, const tocha_tensor* a, int64_t k, int dim,
                   int largest, int sorted, int64_t base) noexcept {
  return guard_int([&] {
    topk_out(arg(values, "topk"), arg(indices, "topk"), arg(a, "topk"), k, dim, largest != 0, sorted != 0, base);
  });
}

tocha_tensor* tocha_cumsum(const tocha_tensor* a, int dim) noexcept {
  return guard_tensor([&] { return cumsum(arg(a, "cumsum"), dim); });
}
int tocha_cumsum_out(tocha_tensor* out, const tocha_tensor* a, int dim) noexcept {
  return guard_int([&] { cumsum_out(arg(out, "cumsum"), arg(a, "cumsum"), dim); });
}
tocha_tensor* tocha_cumprod(const tocha_tensor* a, int dim) noexcept {
  return guard_tensor([&] { return cumprod(arg(a, "cumprod"), dim); });
}
int tocha_cumprod_out(tocha_tensor* out, const tocha_tensor* a, int dim) noexcept {
  return guard_int([&] { cumprod_out(arg(out, "cumprod"), arg(a, "cumprod"), dim); });
}
tocha_tensor* tocha_cross(const tocha_tensor* a, const tocha_tensor* b, int has_dim, int dim) noexcept {
  return guard_tensor([&] { return cross(arg(a, "cross"), arg(b, "cross"), opt_dim(has_dim, dim)); });
}
int tocha_cross_out(tocha_tensor* out, const tocha_tensor* a, const tocha_tensor* b, int has_dim, int dim) noexcept {
  return guard_int([&] { cross_out(arg(out, "cross"), arg(a, "cross"), arg(b, "cross"), opt_dim(has_dim, dim)); });
}

tocha_tensor* tocha_dist(const tocha_tensor* a, const tocha_tensor* b, double p) noexcept {
  return guard_tensor([&] { return dist(arg(a, "dist"), arg(b, "dist"), p); });
}
tocha_tensor* tocha_trace(const tocha_tensor* a) noexcept { return guard_tensor([&] { return trace(arg(a, "trace")); }); }
tocha_tensor* tocha_renorm(const tocha_tensor* a, double p, int dim, double maxnorm) noexcept {
  return guard_tensor([&] { return renorm(arg(a, "renorm"), p, dim, maxnorm); });
}
int tocha_renorm_out(tocha_tensor* out, const tocha_tensor* a, double p, int dim, double maxnorm) noexcept {
  return guard_int([&] { renorm_out(arg(out, "renorm"), arg(a, "renorm"), p, dim, maxnorm); });
}
tocha_tensor* tocha_histc(const tocha_tensor* a, int64_t nbins, double lo, double hi) noexcept {
  return guard_tensor([&] { return histc(arg(a, "histc"), nbins, lo, hi); });
}
int tocha_histc_out(tocha_tensor* out, const tocha_tensor* a, int64_t nbins, double lo, double hi) noexcept {
  return guard_int([&] { histc_out(arg(out, "histc"), arg(a, "histc"), nbins, lo, hi); });
}
