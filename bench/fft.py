# The PyTorch twin of bench/fft.lua (run by it through bench/harness.lua's H.reference):
# the same cases, printed as 'key milliseconds' lines.
import os, sys, time
os.environ.setdefault('OPENBLAS_NUM_THREADS', sys.argv[1])
import torch
torch.set_num_threads(int(sys.argv[1]))
torch.manual_seed(0)
def bench(fn, n):
    for _ in range(3):
        fn()
    best = float('inf')
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e3
F = torch.fft
x1 = torch.randn(256, 4096)
z1 = torch.complex(x1, torch.randn(256, 4096))
x2 = torch.randn(512, 512)
z2 = torch.complex(x2, torch.randn(512, 512))
s1 = F.rfft(x1)
print('rfft_4096x256', bench(lambda: F.rfft(x1), 20))
print('fft_4096x256', bench(lambda: F.fft(z1), 20))
print('irfft_4096x256', bench(lambda: F.irfft(s1, 4096), 20))
print('rfft2_512', bench(lambda: F.rfft2(x2), 20))
print('fft2_512', bench(lambda: F.fft2(z2), 20))
