// einsum: PyTorch's torch.einsum, parsed here and computed as a composite of views, sums and
// one mm/bmm per pair of operands (Note [einsum plan] in einsum.cpp).
#pragma once
#include <string>
#include <vector>
#include "core/tensor.h"

namespace tocha {

// The Einstein summation `equation` over `operands` (one per comma-separated term): labels a-z
// and A-Z, '...' for broadcast dims, '->' before an explicit output (else the labels that appear
// once, in alphabetical order, after the '...' dims). Labels absent from the output are summed;
// a label repeated within a term takes that operand's diagonal; sizes of a label broadcast from 1.
// Operands share a dtype and device; the result has their dtype and never shares their storage.
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);

// The parsed form of an equation, for einsum and its tests. Every dim gets an id: labels 'A'-'Z'
// are 0-25 and 'a'-'z' 26-51 (so ascending ids are the alphabetical order), and the dims that
// '...' stands for are kEinsumEllipsis + j for the j-th of `ellipsis_dims` broadcast dims
// (right-aligned: an operand whose '...' covers fewer dims takes the last ids).
constexpr int kEinsumEllipsis = 52;
constexpr int kEinsumMaxIds = kEinsumEllipsis + kMaxDims;
struct EinsumEquation {
  std::vector<std::vector<int>> inputs;  // per operand, the id of each of its dims
  std::vector<int> output;               // the ids of the result's dims, in order
  int ellipsis_dims = 0;
};
// Parses `equation` for operands of these sizes; malformed equations throw errors naming einsum.
EinsumEquation parse_einsum(const std::string& equation, const std::vector<DimVec>& shapes);
// The label of an id for messages: "'i'", or "'...' dim 2" for a broadcast dim.
std::string einsum_label(int id);

}  // namespace tocha
