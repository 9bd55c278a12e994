// einsum's equation parser (core/ops/einsum.h): ids of labels and broadcast dims, implicit
// outputs, ellipsis alignment, and the messages of malformed equations; plus a few contractions
// against mm and the matmul plan's broadcast batch.
#include <catch2/catch.hpp>
#include "core/ops/einsum.h"
#include "core/ops/linalg.h"
#include "core/ops/matmul.h"
#include "core/ops/tensor_ops.h"

using namespace tocha;

namespace {

int id(char c) { return c <= 'Z' ? c - 'A' : c - 'a' + 26; }
std::vector<int> ids(const std::string& labels) {
  std::vector<int> r;
  for (char c : labels) r.push_back(id(c));
  return r;
}
const int E = kEinsumEllipsis;

Tensor counting(const DimVec& sizes) {
  Tensor t = empty(sizes, DType::f64);
  for (int64_t i = 0; i < t.numel(); ++i) set_item_at(t, i, double(i % 7) - 3);
  return t;
}

}  // namespace

TEST_CASE("einsum parses explicit and implicit outputs", "[einsum]") {
  EinsumEquation e = parse_einsum("bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}});
  CHECK(e.inputs == std::vector<std::vector<int>>{ids("bij"), ids("bjk")});
  CHECK(e.output == ids("bik"));
  CHECK(e.ellipsis_dims == 0);
  // implicit: the labels used once, alphabetical, upper case first (PyTorch's order)
  CHECK(parse_einsum("ij,jk", {{2, 3}, {3, 4}}).output == ids("ik"));
  CHECK(parse_einsum("ba,Ab", {{2, 3}, {4, 2}}).output == ids("Aa"));
  CHECK(parse_einsum("ii", {{3, 3}}).output.empty());
  CHECK(parse_einsum("ii->i", {{3, 3}}).inputs[0] == ids("ii"));
  // spaces are ignored; an empty term is a 0-dim operand
  CHECK(parse_einsum(" i j -> j i ", {{2, 3}}).output == ids("ji"));
  CHECK(parse_einsum(",->", {{}, {}}).inputs == std::vector<std::vector<int>>{{}, {}});
}

TEST_CASE("einsum aligns ellipsis dims from the right", "[einsum]") {
  EinsumEquation e = parse_einsum("...ij,...jk->...ik", {{5, 2, 3, 4}, {2, 4, 6}});
  CHECK(e.ellipsis_dims == 2);
  CHECK(e.inputs[0] == std::vector<int>{E, E + 1, id('i'), id('j')});
  CHECK(e.inputs[1] == std::vector<int>{E + 1, id('j'), id('k')});  // covers the last broadcast dim only
  CHECK(e.output == std::vector<int>{E, E + 1, id('i'), id('k')});
  // implicit output: the broadcast dims first; an output without '...' sums them
  CHECK(parse_einsum("i...j", {{2, 3, 4, 5}}).output == std::vector<int>{E, E + 1, id('i'), id('j')});
  CHECK(parse_einsum("...ij->ij", {{7, 2, 3}}).output == ids("ij"));
  CHECK(parse_einsum("ij->...ij", {{2, 3}}).output == ids("ij"));  // '...' of no dims
  CHECK(einsum_label(E + 1) == "'...' dim 2");
  CHECK(einsum_label(id('q')) == "'q'");
}

TEST_CASE("einsum rejects malformed equations with messages naming einsum", "[einsum]") {
  using Catch::Contains;
  CHECK_THROWS_WITH(parse_einsum("ij,jk->ik", {{2, 3}}),
                    "[einsum] the equation 'ij,jk->ik' has 2 operands but 1 tensor was given");
  CHECK_THROWS_WITH(parse_einsum("ijk->i", {{2, 3}}), "[einsum] operand 1 ('ijk') has 3 labels but 2 dims (size 2x3)");
  CHECK_THROWS_WITH(parse_einsum("ij->k", {{2, 3}}),
                    "[einsum] output label 'k' does not appear in any operand of 'ij->k'");
  CHECK_THROWS_WITH(parse_einsum("ij->ii", {{2, 3}}), "[einsum] output label 'i' appears more than once in 'ij->ii'");
  CHECK_THROWS_WITH(parse_einsum("i1->i", {{2, 3}}), Contains("invalid character '1' at position 2 of 'i1->i'"));
  CHECK_THROWS_WITH(parse_einsum("i.j->i", {{2, 3}}),
                    Contains("the '.' at position 2 of 'i.j->i' does not start an ellipsis"));
  CHECK_THROWS_WITH(parse_einsum("...i...->i", {{2, 3}}), Contains("operand 1 ('...i...') has more than one ellipsis"));
  CHECK_THROWS_WITH(parse_einsum("i->i->i", {{2}}), "[einsum] more than one '->' in 'i->i->i'");
  CHECK_THROWS_WITH(einsum("ij,jk->ik", {counting({2, 3}), counting({4, 5})}),
                    "[einsum] label 'j' has size 4 in operand 2 but size 3 in operand 1 (sizes must be equal or 1)");
  CHECK_THROWS_WITH(einsum("ii", {counting({2, 3})}),
                    "[einsum] label 'i' is repeated in operand 1 but its dims have sizes 2 and 3 (size 2x3)");
  CHECK_THROWS_WITH(einsum("i", {}), "[einsum] expected at least one operand for 'i'");
}

TEST_CASE("einsum contracts like mm and matmul", "[einsum]") {
  Tensor a = counting({3, 4}), b = counting({4, 5});
  CHECK(equal(einsum("ij,jk->ik", {a, b}), mm(a, b)));
  CHECK(equal(einsum("ij,jk", {a, b}), mm(a, b)));
  Tensor x = counting({6, 1, 3, 4}), y = counting({5, 4, 2});
  Tensor r = einsum("...ij,...jk->...ik", {x, y});
  CHECK(r.sizes() == DimVec{6, 5, 3, 2});
  CHECK(equal(r, matmul(x, y)));
  CHECK(equal(tensordot(a, b, 1), mm(a, b)));
}
