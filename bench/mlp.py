# PyTorch twin of bench/mlp.lua: one SGD training step of a ReLU MLP (CrossEntropyLoss) per
# configuration "784,256,128,10:64" (layer sizes:batch). Prints "<config> <seconds/step>".
# Run with Debian's python3-torch: /usr/bin/python3 bench/mlp.py threads steps config...
import pin_blas_threads  # noqa: F401 (first: OpenBLAS threads as argv[1])
import sys, time, torch

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 30
configs = sys.argv[3:] or ["784,256,128,10:64"]

torch.set_num_threads(threads)


def setup(config):
    sizes, batch = config.split(':')
    sizes, batch = [int(s) for s in sizes.split(',')], int(batch)
    torch.manual_seed(0)
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers)
    crit = torch.nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.rand(batch, sizes[0])
    y = torch.randint(0, sizes[-1], (batch,))

    def step():
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
    return step


def best_step(fn, n):
    for _ in range(max(1, n // 10)):
        fn()
    best = float('inf')
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best


for config in configs:
    print("%s %.9f" % (config, best_step(setup(config), steps)), flush=True)
