# PyTorch twins of bench/cuda_models.lua: one SGD step (CrossEntropyLoss) of the MLP 784-512-256-10
# at batch 4096 and of the small CNN at batch 1024, eager mode, on the GPU.
import torch
import torch.nn as nn

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def step_of(model, x, y):
    crit = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def step():
        opt.zero_grad()
        crit(model(x), y).backward()
        opt.step()
    return step


def cases():
    """[(name, steps per timing run, step function)] in bench/cuda_models.lua's order."""
    torch.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 10)).cuda()
    cnn = nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(3136, 128), nn.ReLU(), nn.Linear(128, 10)).cuda()
    return [('mlp', 50, step_of(mlp, torch.rand(4096, 784, device='cuda'),
                                torch.randint(0, 10, (4096,), device='cuda'))),
            ('cnn', 20, step_of(cnn, torch.randn(1024, 1, 28, 28, device='cuda'),
                                torch.randint(0, 10, (1024,), device='cuda')))]
