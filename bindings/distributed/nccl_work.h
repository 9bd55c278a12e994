// nccl_work.h -- internal state of the NCCL plugin's process-group backend (libtocha_nccl.so
// built with MPI): the work handle of one operation and the process-wide communicator state.
#pragma once
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "distributed/nccl_common.h"

// The prefix of this plugin's exported names, for the entry points shared with the other
// process-group plugin (collective_entries.inc, backend_entries.inc).
#define TOCHA_PG_API TOCHA_NCCL_API
#define TOCHA_PG(name) tocha_nccl_##name
#define TOCHA_PG_WORK tocha_nccl_work

namespace tocha::nccl {

// What each rank says about the operation it is about to run (as the MPI plugin's Desc).
struct Desc {
  int32_t kind = 0, dtype = -1, op = -1, root = -1, invalid = 0, pad = 0;
  int64_t count = 0;
};

// Desc: the descriptor exchange runs over MPI; Queued: checked, waiting for its turn to launch
// (Note [NCCL launch order]); Launched: on the NCCL stream, done once its event fires.
enum class Stage { Desc, Queued, Launched, Done, Failed };

struct State {
  bool initialized = false, broken = false;
  int rank = 0, size = 1, device = -1;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;  // the NCCL stream (Note [NCCL streams])
  cudaStream_t compute = nullptr; // Tocha's compute stream of `device`
  // Descriptors and send acknowledgements travel on duplicates of MPI_COMM_WORLD of their own.
  MPI_Comm desc = MPI_COMM_NULL, ack = MPI_COMM_NULL;
  double timeout = 300;
  bool checks = true;
  void *scratch = nullptr;  // one device int for barrier
  std::deque<tocha_nccl_work *> order;    // works not yet launched, in issue order
  std::vector<tocha_nccl_work *> active;  // every work not yet completed (freed ones included)
};
State &state();

}  // namespace tocha::nccl

struct tocha_nccl_work {
  int kind = 0, op = -1, root = -1, peer = -1, tag = 0;
  tocha_tensor *out = nullptr, *in = nullptr;  // retained references (either may be null)
  tocha::nccl::Stage stage = tocha::nccl::Stage::Desc;
  tocha::nccl::Desc mine;
  std::vector<tocha::nccl::Desc> all;
  MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  int64_t ack[3] = {0, 0, 0};  // send/recv: ok flag, the receiver's count and dtype
  cudaEvent_t ready = nullptr;  // recorded on the compute stream when the work was issued
  cudaEvent_t done = nullptr;   // recorded on the NCCL stream after the NCCL call
  std::string error;
  bool freed = false;  // the owner let go; destroyed once the GPU is done with it
  bool stuck = false;  // timed out: its buffers stay alive for good
};
