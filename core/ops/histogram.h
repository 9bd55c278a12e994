// bincount and histogram (PyTorch 1.13): counts of non-negative integers, and histograms of
// floating-point values over equal bins or given edges. Composites of index_add and searchsorted.
#pragma once
#include <optional>
#include "core/tensor.h"

namespace tocha {

// Occurrences of each value 0..max(x) of the 1-D integer tensor x (at least minlength of them);
// with weights (x's size), their sums instead: the weights' dtype when floating, else f64.
Tensor bincount(const Tensor& x, const Tensor& weights, int64_t minlength);

struct Histogram {
  Tensor hist, edges;
};
// The histogram of x's elements in `bins` equal bins over [lo, hi] (default: x's range; an empty
// range widens by 0.5 each way), or over the 1-D increasing tensor `edges` when it is defined.
// Bins are closed on the left, the last one on both sides; elements outside are not counted.
// weight (x's size, optional) replaces each element's 1; density divides by total and width.
Histogram histogram(const Tensor& x, int64_t bins, const Tensor& edges, std::optional<double> lo,
                    std::optional<double> hi, const Tensor& weight, bool density);

}  // namespace tocha
