# PyTorch twin of bench/lstm.lua: forward+backward of nn.LSTM (seqLen 35, batch 20, input 200,
# hidden 200; 1 and 2 layers) on CPU. Run with Debian's python3-torch: /usr/bin/python3 bench/lstm.py [threads]
import pin_blas_threads  # noqa: F401 (first: OpenBLAS threads as argv[1])
import sys, time, torch

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
torch.set_num_threads(threads)
torch.manual_seed(0)
T, B, I, H = 35, 20, 200, 200

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

x = torch.randn(T, B, I)
g = torch.randn(T, B, H)
for layers in (1, 2):
    m = torch.nn.LSTM(I, H, layers)
    def step():
        m.zero_grad()
        y, _ = m(x)
        y.backward(g)
    def fwd():
        with torch.no_grad():
            m(x)
    print("lstm%d %.3f" % (layers, bench(step, 10)))
    print("lstm%d_fwd %.3f" % (layers, bench(fwd, 10)))

g2 = torch.randn(T, B, 2 * H)
bi = torch.nn.LSTM(I, H, 2, bidirectional=True)
def bistep():
    bi.zero_grad()
    y, _ = bi(x)
    y.backward(g2)
def bifwd():
    with torch.no_grad():
        bi(x)
print("bilstm2 %.3f" % bench(bistep, 10))
print("bilstm2_fwd %.3f" % bench(bifwd, 10))
