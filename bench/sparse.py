# The PyTorch twin of bench/sparse.lua (run by it through bench/harness.lua's H.reference):
# the same cases, printed as 'key milliseconds' lines.
import os, sys, time
os.environ.setdefault('OPENBLAS_NUM_THREADS', sys.argv[1])
import torch
torch.set_num_threads(int(sys.argv[1]))
torch.manual_seed(0)
def best(fn, n):
    fn()
    b = float('inf')
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        b = min(b, (time.perf_counter() - t0) / n)
    return b * 1e3
N, P, NNZ = 10000, 64, 100000
S = torch.sparse_coo_tensor(torch.randint(0, N, (2, NNZ)), torch.randn(NNZ), (N, N))
Sc = S.coalesce()
D = torch.randn(N, P)
A = Sc.to_dense()
print('sparse_mm_uncoalesced', best(lambda: torch.sparse.mm(S, D), 5))
print('sparse_mm_coalesced', best(lambda: torch.sparse.mm(Sc, D), 5))
print('dense_mm', best(lambda: torch.mm(A, D), 2))
