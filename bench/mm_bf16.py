# PyTorch twin of bench/mm_bf16.lua: ms per bf16 torch.mm into an existing result, same sizes,
# same thread count. Run with Debian's python3-torch: /usr/bin/python3 bench/mm_bf16.py [threads]
import pin_blas_threads  # noqa: F401 (first: OpenBLAS threads as argv[1])
import sys, time, torch

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
torch.set_num_threads(threads)
torch.manual_seed(0)

def bench(fn, n):
    fn()
    best = float('inf')
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e3

for n in (128, 512, 1024):
    a, b = torch.randn(n, n).bfloat16(), torch.randn(n, n).bfloat16()
    r = torch.mm(a, b)
    print("bf16_%d %.4f" % (n, bench(lambda: torch.mm(a, b, out=r), 200 if n < 1024 else 10)))
