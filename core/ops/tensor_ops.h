// Tensor management front-ends: factories, resize/set (Torch7 semantics), cross-device copies.
#pragma once
#include "core/ops/scalar.h"
#include "core/tensor.h"

namespace tocha {

// Factories.
Tensor full(const DimVec& sizes, double v, DType dt, Device dev = Device{});
Tensor zeros(const DimVec& sizes, DType dt, Device dev = Device{});
Tensor ones(const DimVec& sizes, DType dt, Device dev = Device{});
// A 0-dim tensor holding v.
Tensor full_like_scalar(double v, DType dt, Device dev);

// Torch7 resize: keeps the storage (growing it if needed) and its contents in storage order;
// strides become contiguous unless the sizes are unchanged.
void resize_(const Tensor& t, const DimVec& sizes);
// Note [Bool bytes]: kernels load a bool element as a C++ bool, whose byte must be 0 or 1: any
// other byte is undefined behaviour, in practice a "true" that converts to 217. Kernels and
// conversions only write 0 or 1, so the bytes that could hold anything else are those handed
// out uninitialized. The C API zeroes them for a new bool tensor (torch.BoolTensor(n),
// emptyLike); resize_ zeroes the bytes it adds to a bool tensor's storage (so an op that fails
// after resizing its result leaves zeros, not garbage); the readers of serialized bool data turn
// every nonzero byte into 1 (core/io/blob.cpp). zero_bool_bytes zeroes the storage bytes of t from
// byte `from` on when t is bool.
void zero_bool_bytes(const Tensor& t, size_t from);
// Torch7 set: t views src's storage with src's geometry.
void set_(const Tensor& t, const Tensor& src);
// t views `storage` with the given geometry (bounds checked against the storage size).
void set_storage_(const Tensor& t, const Ref<Storage>& storage, int64_t offset, const DimVec& sizes,
                  const DimVec& strides);
// A contiguous view of a contiguous tensor with other sizes and the same number of elements.
Tensor view_as_shape(const Tensor& t, const DimVec& sizes);
// Copy between devices (dst and src have equal shapes).
void copy_across_devices(const Tensor& dst, const Tensor& src);
// t itself when it lives on dev, else a copy there (e.g. index tensors built on the CPU by a
// backward formula that must meet a CUDA gradient).
Tensor to_device(const Tensor& t, Device dev);

// Reads element `linear` (row-major logical order) as a double, and writes it; CPU or device.
double item_at(const Tensor& t, int64_t linear);
void set_item_at(const Tensor& t, int64_t linear, double v);
// True when any element of t is non-zero.
bool any_true(const Tensor& t);
// True when a and b have the same sizes and elements (Torch7's equal).
bool equal(const Tensor& a, const Tensor& b);

}  // namespace tocha
