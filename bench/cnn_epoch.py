# PyTorch twin of bench/cnn_epoch.lua: one training epoch of examples/fashion_mnist_cnn.lua's model
# over the Fashion-MNIST training images (shuffled batches of 64, Adam, NLL of log-softmax),
# read from the same IDX files. Prints "epoch <wall seconds>", "cpu <CPU seconds>" and
# "samples <n>".
# Run with Debian's python3-torch: /usr/bin/python3 bench/cnn_epoch.py [threads [bn [n [dir]]]]
import pin_blas_threads  # noqa: F401 (first: OpenBLAS threads as argv[1])
import gzip, sys, time
import numpy as np
import torch
import torch.nn as nn

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
bn = len(sys.argv) > 2 and sys.argv[2] in ('1', 'true')
n = int(sys.argv[3]) if len(sys.argv) > 3 else 60000
root = sys.argv[4] if len(sys.argv) > 4 else '/usr/share/datasets/fashion-mnist'
torch.set_num_threads(threads)
torch.manual_seed(1)

def idx(path, offset):
    with gzip.open(path, 'rb') as f:
        return np.frombuffer(f.read(), dtype=np.uint8, offset=offset)

x = torch.from_numpy(idx(root + '/train-images-idx3-ubyte.gz', 16).copy()).view(-1, 1, 28, 28)[:n].float() / 255
y = torch.from_numpy(idx(root + '/train-labels-idx1-ubyte.gz', 8).copy()).long()[:n]

def block(c_in, c_out):
    layers = [nn.Conv2d(c_in, c_out, 3, padding=1)]
    if bn:
        layers.append(nn.BatchNorm2d(c_out))
    return layers + [nn.ReLU(), nn.MaxPool2d(2)]

layers = block(1, 32) + block(32, 64) + [nn.Flatten(), nn.Linear(3136, 128)]
if bn:
    layers.append(nn.BatchNorm1d(128))
layers += [nn.ReLU(), nn.Dropout(0.3), nn.Linear(128, 10), nn.LogSoftmax(dim=1)]
model = nn.Sequential(*layers)
crit = nn.NLLLoss()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=64, shuffle=True)

model.train()
t0, c0 = time.perf_counter(), time.process_time()
for xb, yb in loader:
    opt.zero_grad()
    loss = crit(model(xb), yb)
    loss.backward()
    opt.step()
print('epoch', time.perf_counter() - t0)
print('cpu', time.process_time() - c0)
print('samples', n)
