# Shared timing of the GPU twins (bench/cuda.py, bench/cuda_train.py), the same loop as
# bench/harness.lua's H.best_cuda: the best mean of 5 runs of n calls after `warm` calls, in ms,
# synchronized before and after each run.
import time
import torch


def best_ms(fn, n, warm=1):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    best = float('inf')
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e3


def host_ms(fn, n=256, rounds=200):
    """Host time per call, not waiting for the GPU (bench/harness.lua's H.host_cuda): the best
    mean of `rounds` rounds of n calls, each started on an idle GPU."""
    fn()
    best = float('inf')
    for _ in range(rounds):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    torch.cuda.synchronize()
    return best * 1e3
