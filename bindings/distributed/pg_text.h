// pg_text.h -- the text both process-group plugins (libtocha_mpi.so, libtocha_nccl.so) put in
// their error messages: the names of operations and dtypes, and a descriptor described and
// compared, and the verdict on every rank's descriptor. Header-only: each plugin has its own copy.
#pragma once
#include <string>

#include "distributed/tocha_dist.h"

namespace tocha::pg {

inline const char *kind_name(int kind) {
  static const char *names[] = {"?",      "allReduce", "broadcast", "reduce", "allGather", "reduceScatter",
                                "gather", "scatter",   "barrier",   "send",   "recv"};
  return kind >= 1 && kind <= TOCHA_DIST_RECV ? names[kind] : "?";
}

inline const char *dtype_name(int dtype) {
  static const char *names[] = {"f32", "f64", "f16", "bf16", "i64", "i32", "u8", "bool"};
  return dtype >= 0 && dtype < 8 ? names[dtype] : "?";
}

// Desc: the plugin's descriptor (kind, dtype, op, root, count).
template <class Desc>
std::string describe(const Desc &d) {
  static const char *ops[] = {"sum", "prod", "max", "min"};
  std::string s = kind_name(d.kind);
  if (d.kind == TOCHA_DIST_BARRIER) return s;
  s += "(";
  if (d.op >= 0 && d.op < 4) s += ops[d.op];
  if (d.root >= 0) s += std::string(d.op >= 0 ? ", " : "") + "root " + std::to_string(d.root);
  return s + ") of " + std::to_string(d.count) + " " + dtype_name(d.dtype) + " elements";
}

template <class Desc>
bool same(const Desc &a, const Desc &b) {
  return a.kind == b.kind && a.dtype == b.dtype && a.op == b.op && a.root == b.root && a.count == b.count;
}

// The verdict on the descriptors of the `size` ranks (all[r] is rank r's) of a collective `kind`:
// empty when they agree, else the error every rank reports (Note [Descriptor exchange]).
template <class Desc>
std::string verdict(int kind, const Desc *all, int size) {
  std::string bad;
  for (int r = 0; r < size; ++r)
    if (all[r].invalid) bad += (bad.empty() ? "" : ", ") + std::to_string(r);
  if (!bad.empty())
    return std::string("[") + kind_name(kind) + "] rank(s) " + bad +
           " passed invalid arguments to this collective (see the error on those ranks)";
  bool agree = true;
  for (int r = 1; r < size; ++r) agree = agree && same(all[0], all[r]);
  if (agree) return std::string();
  std::string msg = std::string("[") + kind_name(kind) + "] ranks disagree on the collective:";
  for (int r = 0; r < size; ++r) {
    if (size > 8 && r > 0 && same(all[0], all[r])) continue;
    msg += std::string(r ? ";" : "") + " rank " + std::to_string(r) + " called " + describe(all[r]);
  }
  return msg;
}

}  // namespace tocha::pg
