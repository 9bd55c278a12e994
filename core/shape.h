// DimVec: a fixed-capacity vector of sizes or strides (no heap allocation on the op hot path),
// plus shape helpers: contiguous strides, numel, broadcasting and "2x3" formatting.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include "core/error.h"
#include "core/tensor_header.h"

namespace tocha {

constexpr int kMaxDims = TOCHA_MAX_DIMS;

class DimVec {
 public:
  DimVec() = default;
  DimVec(std::initializer_list<int64_t> v) { for (int64_t x : v) push_back(x); }
  DimVec(const int64_t* p, int n) { for (int i = 0; i < n; ++i) push_back(p[i]); }
  static DimVec filled(int n, int64_t value) { DimVec v; for (int i = 0; i < n; ++i) v.push_back(value); return v; }
  int size() const { return n_; }
  bool empty() const { return n_ == 0; }
  int64_t& operator[](int i) { return d_[i]; }
  int64_t operator[](int i) const { return d_[i]; }
  const int64_t* data() const { return d_; }
  int64_t* data() { return d_; }
  const int64_t* begin() const { return d_; }
  const int64_t* end() const { return d_ + n_; }
  void push_back(int64_t x) {
    if (n_ >= kMaxDims) fail("shape", "tensors have at most ", kMaxDims, " dimensions");
    d_[n_++] = x;
  }
  void insert(int at, int64_t x) {
    push_back(0);
    for (int i = n_ - 1; i > at; --i) d_[i] = d_[i - 1];
    d_[at] = x;
  }
  void erase(int at) { for (int i = at; i + 1 < n_; ++i) d_[i] = d_[i + 1]; --n_; }
  void resize(int n, int64_t fill = 0) { while (n_ < n) push_back(fill); n_ = n; }
  int64_t back() const { return d_[n_ - 1]; }
  bool operator==(const DimVec& o) const {
    if (n_ != o.n_) return false;
    for (int i = 0; i < n_; ++i) if (d_[i] != o.d_[i]) return false;
    return true;
  }
  bool operator!=(const DimVec& o) const { return !(*this == o); }

 private:
  int n_ = 0;
  // Entries past n_ are never read; leaving them uninitialised keeps a DimVec (copied on every
  // op for sizes and strides) from zeroing 128 bytes each time.
  int64_t d_[kMaxDims];
};

// Product of sizes; throws on negative sizes or overflow.
int64_t shape_numel(const DimVec& sizes, const char* op = "shape");
DimVec contiguous_strides(const DimVec& sizes);
// "2x3", "" for a 0-dim tensor shows as "[]" ... format used in every error message.
std::string shape_str(const DimVec& sizes);
// A list as the user wrote it, "{1, -1}"; with dims, entries >= 0 shown 1-based (messages count
// dims from 1, negative dims stay as written).
std::string list_str(const DimVec& v, bool dims);
// Whether two elements of a view (sizes, strides) may share memory. False means they cannot: with
// its dims of size > 1 ordered by |stride|, each stride passes the span of the smaller dims.
// Expanded tensors (stride 0) and asStrided/unfold views that overlap give true.
bool may_overlap(int ndim, const int64_t* sizes, const int64_t* strides);
// NumPy broadcasting of two shapes; returns false if they do not broadcast.
bool broadcast_shapes(const DimVec& a, const DimVec& b, DimVec* out);
// Strides that view a tensor (sizes, strides) as the broadcast shape `to` (0 stride on expanded dims).
DimVec broadcast_strides(const DimVec& sizes, const DimVec& strides, const DimVec& to);
// Wraps a dim given 0-based or negative (-1 = last); throws "[op] dim d out of range for a nD tensor".
int wrap_dim(int64_t dim, int ndim, const char* op);

}  // namespace tocha
