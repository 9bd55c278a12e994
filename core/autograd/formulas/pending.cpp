// TEMPORARY (autograd branch only): formulas of op families still being written.
#include "core/autograd/vjp.h"
#include "core/error.h"
namespace tocha {
namespace autograd {
Grads vjp_sum(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_prod(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_mean(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_var(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_std(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_norm(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_max(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_min(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_logsumexp(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_median(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_mode(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_kthvalue(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_cumsum(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_cumprod(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_sort(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_topk(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_dist(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_cross(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_asStrided(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_index(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_indexCopy(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_indexAdd(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_indexFill(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_gather(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_scatter(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_scatterAdd(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_maskedSelect(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_maskedCopy(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_maskedFill(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_cat(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_dot(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_mv(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_mm(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_bmm(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_ger(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_addmm(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_addmv(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_addr(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_addbmm(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_baddbmm(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_gesv(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_inverse(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_diag(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_tril(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_triu(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
Grads vjp_trace(Node& n, const Grads&) { fail("backward", n.name(), " has no formula yet"); }
}  // namespace autograd
}  // namespace tocha
