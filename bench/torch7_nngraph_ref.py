# PyTorch twin of bench/torch7_nngraph.lua: char-rnn's 2-layer LSTM cell (rnn_size 128, vocab 65,
# batch 50, seq 50) in eager PyTorch (one-hot input, nn.Linear i2h/h2h per layer, gates, a Python
# loop over time, log-softmax decoder, NLL loss per step), one training step with loss.backward(),
# gradient clamp and torch.optim.RMSprop / Adam. Run with Debian's python3-torch:
# /usr/bin/python3 bench/torch7_nngraph_ref.py [threads] [steps]
import pin_blas_threads  # noqa: F401 (first: OpenBLAS threads as argv[1])
import sys, time, torch
import torch.nn.functional as F

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 4
torch.set_num_threads(threads)
torch.manual_seed(123)
V, R, L, B, T = 65, 128, 2, 50, 50


class LSTM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.i2h = torch.nn.ModuleList([torch.nn.Linear(V if l == 0 else R, 4 * R) for l in range(L)])
        self.h2h = torch.nn.ModuleList([torch.nn.Linear(R, 4 * R) for _ in range(L)])
        self.decoder = torch.nn.Linear(R, V)
        self.register_buffer('eye', torch.eye(V))

    def forward(self, x, state):
        new = []
        inp = self.eye.index_select(0, x)
        for l in range(L):
            prev_c, prev_h = state[2 * l], state[2 * l + 1]
            sums = (self.i2h[l](inp) + self.h2h[l](prev_h)).view(B, 4, R)
            n1, n2, n3, n4 = sums.unbind(1)
            in_gate, forget_gate, out_gate = torch.sigmoid(n1), torch.sigmoid(n2), torch.sigmoid(n3)
            in_transform = torch.tanh(n4)
            next_c = forget_gate * prev_c + in_gate * in_transform
            next_h = out_gate * torch.tanh(next_c)
            new += [next_c, next_h]
            inp = next_h
        return new, F.log_softmax(self.decoder(inp), dim=1)


model = LSTM()
for p in model.parameters():
    torch.nn.init.uniform_(p, -0.08, 0.08)
x = torch.randint(0, V, (B, T))
y = torch.randint(0, V, (B, T))
xs = [x[:, t].contiguous() for t in range(T)]
ys = [y[:, t].contiguous() for t in range(T)]
init_state = [torch.zeros(B, R) for _ in range(2 * L)]


def step(opt):
    opt.zero_grad()
    state, loss = init_state, 0
    for t in range(T):
        state, pred = model(xs[t], state)
        loss = loss + F.nll_loss(pred, ys[t])
    loss.backward()
    for p in model.parameters():
        p.grad.clamp_(-5, 5)
    opt.step()


def forward():
    state = init_state
    for t in range(T):
        state, pred = model(xs[t], state)
        F.nll_loss(pred, ys[t])


def forward_nograd():
    with torch.no_grad():
        forward()


def bench(fn):
    fn()
    best = float('inf')
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(steps):
            fn()
        best = min(best, (time.perf_counter() - t0) / steps)
    return best * 1e3


rms = torch.optim.RMSprop(model.parameters(), lr=2e-3, alpha=0.95, eps=1e-8)
adam = torch.optim.Adam(model.parameters(), lr=2e-3)
print("step_rmsprop %.3f" % bench(lambda: step(rms)))
print("step_adam %.3f" % bench(lambda: step(adam)))
print("autograd_rmsprop %.3f" % bench(lambda: step(rms)))
print("forward %.3f" % bench(forward))
print("forward_nograd %.3f" % bench(forward_nograd))
