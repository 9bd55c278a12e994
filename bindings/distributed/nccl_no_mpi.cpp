// nccl_no_mpi.cpp -- the process-group half of libtocha_nccl.so in a build without MPI: NCCL's
// unique id is bootstrapped over MPI, so init says why it cannot start (the single-process
// communicator of nn.DataParallelTable, nccl_local.cpp, works without MPI).
#include "distributed/nccl_common.h"

using namespace tocha::nccl;

TOCHA_NCCL_API int tocha_nccl_init(int, double) noexcept {
  set_error("[distributed.init] backend 'nccl' bootstraps over MPI, and this build found no MPI "
            "(Debian: libopenmpi-dev openmpi-bin)");
  return -1;
}
TOCHA_NCCL_API int tocha_nccl_initialized(void) noexcept { return 0; }
TOCHA_NCCL_API int tocha_nccl_device(void) noexcept { return -1; }
TOCHA_NCCL_API int tocha_nccl_finalize(void) noexcept { return 0; }
