# PyTorch twin of bench/autograd.lua: forward+backward of a tiny graph and of a 3-layer MLP.
# Run with Debian's python3-torch: /usr/bin/python3 bench/autograd.py [threads]
import pin_blas_threads  # noqa: F401 (first: OpenBLAS threads as argv[1])
import sys, time, torch

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
torch.set_num_threads(threads)
torch.manual_seed(0)

def bench(fn, n):
    for _ in range(max(1, n // 10)):
        fn()
    best = float('inf')
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e6

x = torch.rand(10)
w = torch.rand(10, requires_grad=True)
b = torch.rand(10, requires_grad=True)
def tiny():
    y = (x * w + b).relu().sum()
    y.backward()
print("tiny %.3f" % bench(tiny, 20000))

W = [torch.randn(784, 256).mul_(0.05).requires_grad_(), torch.randn(256, 128).mul_(0.05).requires_grad_(),
     torch.randn(128, 10).mul_(0.05).requires_grad_()]
B = [torch.zeros(256, requires_grad=True), torch.zeros(128, requires_grad=True), torch.zeros(10, requires_grad=True)]
def mlp(inp):
    def step():
        h = inp
        for i in range(3):
            h = torch.addmm(B[i], h, W[i])
            if i < 2:
                h = h.relu()
        loss = (h * h).mean()
        loss.backward()
    return step
x1, x128 = torch.rand(1, 784), torch.rand(128, 784)
print("mlp1 %.3f" % bench(mlp(x1), 2000))
print("mlp128 %.3f" % bench(mlp(x128), 200))
