// C ABI of the statistics functions (bindings/tocha_stats.h): argument unwrapping around the
// front-ends of core/ops/stats.h, quantile.h, histogram.h and stats_pairwise.h.
#include <string>
#include "capi.h"
#include "core/ops/histogram.h"
#include "core/ops/quantile.h"
#include "core/ops/stats.h"
#include "core/ops/stats_pairwise.h"

using namespace tocha;
using namespace tocha::capi;

namespace {

DimVec dim_list(int n, const int64_t* v, const char* op) {
  TOCHA_CHECK(n >= 0 && n <= kMaxDims, op, "expected 0 to ", kMaxDims, " dims, got ", n);
  TOCHA_CHECK(v || n == 0, op, "dims is NULL");
  return DimVec(v, n);
}

Tensor opt_arg(const tocha_tensor* p, const char* op) { return p ? Tensor(arg(p, op).get()) : Tensor(); }

}  // namespace

tocha_tensor* tocha_amax(const tocha_tensor* x, int ndims, const int64_t* dims, int keepdim, int is_max) noexcept {
  return guard_tensor([&] {
    const char* op = is_max ? "amax" : "amin";
    DimVec d = dim_list(ndims, dims, op);
    return is_max ? amax(arg(x, op), d, keepdim != 0) : amin(arg(x, op), d, keepdim != 0);
  });
}

tocha_tensor* tocha_nansum(const tocha_tensor* x, int ndims, const int64_t* dims, int keepdim, int is_mean) noexcept {
  return guard_tensor([&] {
    const char* op = is_mean ? "nanmean" : "nansum";
    DimVec d = dim_list(ndims, dims, op);
    return is_mean ? nanmean(arg(x, op), d, keepdim != 0) : nansum(arg(x, op), d, keepdim != 0);
  });
}

tocha_tensor* tocha_count_nonzero(const tocha_tensor* x, int ndims, const int64_t* dims) noexcept {
  return guard_tensor([&] {
    return count_nonzero(arg(x, "countNonzero"), dim_list(ndims, dims, "countNonzero"));
  });
}

int tocha_var_mean(const tocha_tensor* x, int ndims, const int64_t* dims, double correction, int keepdim,
                   int take_sqrt, tocha_tensor** var, tocha_tensor** mean) noexcept {
  return guard_int([&] {
    const char* op = take_sqrt ? "stdMean" : "varMean";
    TOCHA_CHECK(var && mean, op, "result pointer is NULL");
    DimVec d = dim_list(ndims, dims, op);
    VarMean r = take_sqrt ? std_mean(arg(x, op), d, correction, keepdim != 0)
                          : var_mean(arg(x, op), d, correction, keepdim != 0);
    *var = r.var.release();
    *mean = r.mean.release();
  });
}

int tocha_nanmedian(const tocha_tensor* x, int has_dim, int dim, int keepdim, int64_t base, tocha_tensor** values,
                    tocha_tensor** indices) noexcept {
  return guard_int([&] {
    const char* op = "nanmedian";
    TOCHA_CHECK(values && indices, op, "result pointer is NULL");
    if (!has_dim) {
      *values = nanmedian(arg(x, op)).release();
      *indices = nullptr;
      return;
    }
    ValuesIndices r = nanmedian(arg(x, op), dim, keepdim != 0, base);
    *values = r.values.release();
    *indices = r.indices.release();
  });
}

tocha_tensor* tocha_logcumsumexp(const tocha_tensor* x, int dim) noexcept {
  return guard_tensor([&] { return logcumsumexp(arg(x, "logcumsumexp"), dim); });
}

int tocha_cummax(const tocha_tensor* x, int dim, int is_max, int64_t base, tocha_tensor** values,
                 tocha_tensor** indices) noexcept {
  return guard_int([&] {
    const char* op = is_max ? "cummax" : "cummin";
    TOCHA_CHECK(values && indices, op, "result pointer is NULL");
    ValuesIndices r = is_max ? cummax(arg(x, op), dim, base) : cummin(arg(x, op), dim, base);
    *values = r.values.release();
    *indices = r.indices.release();
  });
}

tocha_tensor* tocha_quantile(const tocha_tensor* x, const tocha_tensor* q, int has_dim, int dim, int keepdim,
                             const char* interpolation, int skip_nan) noexcept {
  return guard_tensor([&] {
    const char* op = skip_nan ? "nanquantile" : "quantile";
    return quantile(arg(x, op), arg(q, op), has_dim != 0, dim, keepdim != 0,
                    interpolation ? std::string(interpolation) : std::string("linear"), skip_nan != 0);
  });
}

tocha_tensor* tocha_bincount(const tocha_tensor* x, const tocha_tensor* weights, int64_t minlength) noexcept {
  return guard_tensor([&] { return bincount(arg(x, "bincount"), opt_arg(weights, "bincount"), minlength); });
}

int tocha_histogram(const tocha_tensor* x, int64_t bins, const tocha_tensor* edges, int has_range, double lo,
                    double hi, const tocha_tensor* weight, int density, tocha_tensor** hist,
                    tocha_tensor** bin_edges) noexcept {
  return guard_int([&] {
    const char* op = "histogram";
    TOCHA_CHECK(hist && bin_edges, op, "result pointer is NULL");
    std::optional<double> a, b;
    if (has_range) a = lo, b = hi;
    Histogram r = histogram(arg(x, op), bins, opt_arg(edges, op), a, b, opt_arg(weight, op), density != 0);
    *hist = r.hist.release();
    *bin_edges = r.edges.release();
  });
}

tocha_tensor* tocha_cov(const tocha_tensor* x, double correction, const tocha_tensor* fweights,
                        const tocha_tensor* aweights) noexcept {
  return guard_tensor([&] { return cov(arg(x, "cov"), correction, opt_arg(fweights, "cov"), opt_arg(aweights, "cov")); });
}

tocha_tensor* tocha_corrcoef(const tocha_tensor* x) noexcept {
  return guard_tensor([&] { return corrcoef(arg(x, "corrcoef")); });
}

tocha_tensor* tocha_trapezoid(const tocha_tensor* y, const tocha_tensor* x, double dx, int dim,
                              int cumulative) noexcept {
  return guard_tensor([&] {
    const char* op = cumulative ? "cumulativeTrapezoid" : "trapezoid";
    return trapezoid(arg(y, op), opt_arg(x, op), dx, dim, cumulative != 0);
  });
}

tocha_tensor* tocha_cdist(const tocha_tensor* x1, const tocha_tensor* x2, double p) noexcept {
  return guard_tensor([&] { return cdist(arg(x1, "cdist"), arg(x2, "cdist"), p); });
}

tocha_tensor* tocha_pdist(const tocha_tensor* x, double p) noexcept {
  return guard_tensor([&] { return pdist(arg(x, "pdist"), p); });
}

tocha_tensor* tocha_cosine_similarity(const tocha_tensor* x1, const tocha_tensor* x2, int dim, double eps) noexcept {
  return guard_tensor([&] {
    return cosine_similarity(arg(x1, "cosineSimilarity"), arg(x2, "cosineSimilarity"), dim, eps);
  });
}

tocha_tensor* tocha_pairwise_distance(const tocha_tensor* x1, const tocha_tensor* x2, double p, double eps,
                                      int keepdim) noexcept {
  return guard_tensor([&] {
    return pairwise_distance(arg(x1, "pairwiseDistance"), arg(x2, "pairwiseDistance"), p, eps, keepdim != 0);
  });
}
