// mpi_work.h -- internal state of the MPI plugin (libtocha_mpi.so): the work handle of one
// asynchronous operation, the descriptor ranks exchange before it, and the process-wide state.
#pragma once
// Only the C API: the C++ bindings would pull in libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "distributed/pg_text.h"
#include "distributed/tocha_dist.h"

// The prefix of this plugin's exported names, for the entry points shared with the other
// process-group plugin (collective_entries.inc, backend_entries.inc).
#define TOCHA_PG_API TOCHA_DIST_API
#define TOCHA_PG(name) tocha_dist_##name
#define TOCHA_PG_WORK tocha_dist_work

namespace tocha::dist {

// What each rank says about the collective it is about to run (Note [Descriptor exchange]).
struct Desc {
  int32_t kind = 0, dtype = -1, op = -1, root = -1, invalid = 0;
  int32_t blocking = 0;  // this rank will wait for it at once (Note [Blocking fast path])
  int64_t count = 0;
};

enum class Stage { Desc, Queued, Data, Done, Failed };

struct State {
  bool initialized = false, finalized = false, broken = false;
  int rank = 0, size = 1, local_rank = 0, local_size = 1;
  // Note [Three communicators]: data, descriptors and send acknowledgements travel on separate
  // duplicates of MPI_COMM_WORLD, so a descriptor can never match a data message.
  MPI_Comm data = MPI_COMM_NULL, desc = MPI_COMM_NULL, ack = MPI_COMM_NULL;
  double timeout = 300;
  bool checks = true;
  std::deque<tocha_dist_work *> order;    // collectives not yet posted, in the order they were issued
  std::vector<tocha_dist_work *> active;  // every work not yet completed (freed ones included)
  bool issue_blocking = false;  // the next collective is waited for at once (Note [Blocking fast path])
  int64_t chunk_bytes = 4 << 20;  // Note [All-reduce in chunks]; TOCHA_MPI_CHUNK_BYTES at init
};
State &state();
void set_error(std::string msg);
using tocha::pg::kind_name;  // pg_text.h
using tocha::pg::dtype_name;
int64_t dtype_size(int dtype);
MPI_Datatype mpi_dtype(int dtype);

}  // namespace tocha::dist

struct tocha_dist_work {
  int kind = 0, op = -1, root = -1, peer = -1, tag = 0;
  tocha_tensor *out = nullptr, *in = nullptr;  // retained references (either may be null)
  tocha::dist::Stage stage = tocha::dist::Stage::Desc;
  tocha::dist::Desc mine;
  std::vector<tocha::dist::Desc> all;
  MPI_Request reqs[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  int64_t ack[3] = {0, 0, 0};  // send/recv: ok flag, the receiver's count and dtype
  std::vector<char> scratch;   // a rejected message is received here
  std::string error;
  bool freed = false;  // the owner let go; destroyed once MPI is done with it
  bool stuck = false;  // timed out with requests still posted
  bool blocking = false;  // every rank agreed to run it as a blocking call
};
