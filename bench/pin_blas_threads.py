# Imported first by the PyTorch twins, before torch: Debian's torch calls a pthread OpenBLAS that
# ignores torch.set_num_threads and starts one thread per core, so at "1 thread" its GEMMs (addmm,
# Linear, the LSTM's gates) ran on every core. This pins OpenBLAS to argv[1], the twins' threads.
import os
import sys

os.environ.setdefault('OPENBLAS_NUM_THREADS', sys.argv[1] if len(sys.argv) > 1 else '1')
