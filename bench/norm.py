# PyTorch twin of bench/norm.lua: forward+backward of BatchNorm2d/1d, LayerNorm and Dropout (f32).
# Run with Debian's python3-torch: /usr/bin/python3 bench/norm.py [threads]
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
    return best * 1e6

def fwd_bwd(module, shape):
    x = torch.randn(*shape, requires_grad=True)
    g = torch.randn(*shape)
    def step():
        module(x).backward(g)
    return step

xs = (32, 64, 32, 32)
print("bn2d %.3f" % bench(fwd_bwd(torch.nn.BatchNorm2d(64), xs), 10))
print("bn2d_eval %.3f" % bench(fwd_bwd(torch.nn.BatchNorm2d(64).eval(), xs), 10))
print("bn2d_autograd %.3f" % bench(fwd_bwd(torch.nn.BatchNorm2d(64), xs), 10))
print("bn1d %.3f" % bench(fwd_bwd(torch.nn.BatchNorm1d(1024), (256, 1024)), 50))
print("layernorm %.3f" % bench(fwd_bwd(torch.nn.LayerNorm(512), (256, 512)), 50))
print("dropout %.3f" % bench(fwd_bwd(torch.nn.Dropout(0.5), (256, 1024)), 50))
