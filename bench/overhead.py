# PyTorch twin of bench/overhead.lua: ns per call of tiny ops, same loops, same thread count.
# Run with Debian's python3-torch: /usr/bin/python3 bench/overhead.py [threads]
import pin_blas_threads  # noqa: F401 (first: OpenBLAS threads as argv[1])
import sys, time, torch

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
torch.set_num_threads(threads)

def bench(fn, n):
    for _ in range(n // 10):
        fn()
    best = float('inf')
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e9

x1, y1 = torch.ones(1), torch.ones(1) * 2
a, b = torch.ones(100, 100), torch.ones(100, 100) * 2
m1, m2 = torch.rand(64, 64), torch.rand(64, 64)
print("add1 %.1f" % bench(lambda: x1 + y1, 200000))
print("add100x100 %.1f" % bench(lambda: a + b, 50000))
print("mm64 %.1f" % bench(lambda: torch.mm(m1, m2), 20000))
