# PyTorch twin of bench/cnn.lua: one SGD training step of the same small CNN on 64 28x28 images,
# and its two conv layers alone (forward; backward as the training step needs it: weight and bias
# gradients for conv1, input, weight and bias gradients for conv2). Prints "<case> <ms>" lines.
# Run with Debian's python3-torch: /usr/bin/python3 bench/cnn.py [threads]
import pin_blas_threads  # noqa: F401 (first: OpenBLAS threads as argv[1])
import sys, time, torch
import torch.nn as nn

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
rounds = 5  # best mean of 5 runs, as bench/harness.lua
torch.set_num_threads(threads)
torch.manual_seed(0)

model = nn.Sequential(
    nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(3136, 128), nn.ReLU(), nn.Linear(128, 10))
crit = nn.CrossEntropyLoss()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(64, 1, 28, 28)
y = torch.randint(0, 10, (64,))

def step():
    opt.zero_grad()
    loss = crit(model(x), y)
    loss.backward()
    opt.step()

def bench(fn, n):
    for _ in range(max(2, n // 2)):
        fn()
    best = float('inf')
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e3

c1, c2 = model[0], model[3]
x2 = torch.randn(64, 32, 14, 14, requires_grad=True)
g1, g2 = torch.randn(64, 32, 28, 28), torch.randn(64, 64, 14, 14)

def fwd(conv, inp):
    def run():
        with torch.no_grad():
            conv(inp)
    return run

def bwd(conv, inp, g):
    out = conv(inp)  # the graph is kept; each call runs its backward only
    def run():
        out.backward(g, retain_graph=True)
    return run

print("step %.4f" % bench(step, 10))
print("c1_fwd %.4f" % bench(fwd(c1, x), 20))
print("c1_bwd %.4f" % bench(bwd(c1, x, g1), 20))
print("c2_fwd %.4f" % bench(fwd(c2, x2), 20))
print("c2_bwd %.4f" % bench(bwd(c2, x2, g2), 20))
