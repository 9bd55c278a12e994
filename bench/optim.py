# PyTorch twin of bench/optim.lua: microseconds per optimizer step, same sizes, same thread count.
# Run with Debian's python3-torch: /usr/bin/python3 bench/optim.py [threads]
import pin_blas_threads  # noqa: F401 (first: OpenBLAS threads as argv[1])
import sys, time, torch

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
torch.set_num_threads(threads)
torch.manual_seed(1)

def bench(fn, n):
    fn()
    best = float('inf')
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e6

N = 4 * 1024 * 1024
x = torch.empty(N).uniform_(-1, 1).requires_grad_()
x.grad = torch.empty(N).uniform_(-1, 1)
flat = torch.optim.Adam([x], lr=1e-3)
m, v, denom = torch.zeros(N), torch.zeros(N), torch.zeros(N)
g = x.grad
state = {'t': 0}
def composed():
    with torch.no_grad():
        state['t'] += 1
        t = state['t']
        m.mul_(0.9).add_(g, alpha=0.1)
        v.mul_(0.999).addcmul_(g, g, value=0.001)
        denom.copy_(v).sqrt_().add_(1e-8)
        x.addcdiv_(m, denom, value=-1e-3 * (1 - 0.999 ** t) ** 0.5 / (1 - 0.9 ** t))
params = []
for i in range(1, 41):
    n = 64 * i if i % 2 == 0 else 12800 * i
    p = torch.empty(n).uniform_(-1, 1).requires_grad_()
    p.grad = torch.empty(n).uniform_(-1, 1)
    params.append(p)
adam = torch.optim.Adam(params, lr=1e-3)
sgd = torch.optim.SGD(params, lr=1e-3, momentum=0.9)
print("adam_flat %.1f" % bench(flat.step, 20))
print("adam_composed %.1f" % bench(composed, 20))
print("adam_list %.1f" % bench(adam.step, 20))
print("sgd_list %.1f" % bench(sgd.step, 20))
