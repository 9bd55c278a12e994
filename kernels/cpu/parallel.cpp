// Thread settings for OpenMP and OpenBLAS. See parallel.h.
#include "kernels/cpu/parallel.h"
#include <thread>

extern "C" void openblas_set_num_threads(int);

namespace tocha {
namespace cpu {

void set_num_threads(int n) {
  if (n < 1) n = 1;
  omp_set_num_threads(n);
  openblas_set_num_threads(n);
}

int get_num_threads() { return omp_get_max_threads(); }

int num_cores() {
  unsigned n = std::thread::hardware_concurrency();
  return n ? int(n) : 1;
}

}  // namespace cpu
}  // namespace tocha
