/* Raw OpenMPI reference for bench/distributed.lua: the best time of MPI_Allreduce (in place, float
 * sum) on 1..256 MiB buffers, the same sizes and trial counts as the Tocha worker.
 * Run under mpirun; rank 0 prints "allreduce_<MiB> <seconds>" lines. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  static const int sizes_mib[] = {1, 4, 16, 64, 256};
  for (size_t s = 0; s < sizeof sizes_mib / sizeof sizes_mib[0]; ++s) {
    int mib = sizes_mib[s];
    int n = mib * (1 << 20) / (int)sizeof(float);
    float *buf = malloc((size_t)n * sizeof(float));
    if (!buf) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < n; ++i) buf[i] = 1.0f / (float)(i % 97 + 1);
    int trials = mib >= 256 ? 6 : mib >= 64 ? 8 : 100, warmup = 3;
    double best = 1e30;
    for (int t = 0; t < warmup + trials; ++t) {  /* the first trials warm up */
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      double dt = MPI_Wtime() - t0;
      MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (t >= warmup && dt < best) best = dt;
    }
    if (rank == 0) printf("allreduce_%d %.6f\n", mib, best);
    free(buf);
  }
  MPI_Finalize();
  return 0;
}
