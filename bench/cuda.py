# PyTorch twin of bench/cuda.lua: the same ops, sizes and timing loops on the same GPU.
# Prints "name ms" lines. TF32 is off, as in Tocha's default.
import torch
from gpu_timing import best_ms, host_ms  # bench/ is on sys.path as the script's folder

torch.backends.cuda.matmul.allow_tf32 = False

def bench(fn, n):
    return best_ms(fn, n)

for n in (4096, 8192):
    a = torch.empty(n, n, device='cuda').uniform_(-1, 1)
    b = torch.empty(n, n, device='cuda').uniform_(-1, 1)
    c = torch.empty(n, n, device='cuda')
    print('sgemm%d %.6f' % (n, bench(lambda: torch.mm(a, b, out=c), 20 if n == 4096 else 5)))
    ah, bh = a.bfloat16(), b.bfloat16()
    ch = torch.empty(n, n, device='cuda', dtype=torch.bfloat16)
    print('bf16gemm%d %.6f' % (n, bench(lambda: torch.mm(ah, bh, out=ch), 50 if n == 4096 else 10)))
    del a, b, c, ah, bh, ch
x = torch.ones(2 ** 26, device='cuda')
y = torch.ones(2 ** 26, device='cuda') * 2
z = torch.empty(2 ** 26, device='cuda')
print('add_256MiB %.6f' % bench(lambda: torch.add(x, y, out=z), 20))
print('sum_256MiB %.6f' % bench(lambda: x.sum(0), 20))
del x, y, z
bn = torch.nn.BatchNorm2d(32).cuda()
bn_in = torch.randn(1024, 32, 28, 28, device='cuda', requires_grad=True)
bn_grad = torch.randn(1024, 32, 28, 28, device='cuda')


def bn_step():
    bn.zero_grad()
    bn_in.grad = None
    bn(bn_in).backward(bn_grad)


print('batchnorm_1024x32x28x28 %.6f' % bench(bn_step, 20))
del bn, bn_in, bn_grad
ln = torch.nn.LayerNorm(512).cuda()
ln_in = torch.randn(8192, 512, device='cuda', requires_grad=True)
ln_grad = torch.randn(8192, 512, device='cuda')


def ln_step():
    ln.zero_grad()
    ln_in.grad = None
    ln(ln_in).backward(ln_grad)


print('layernorm_8192x512 %.6f' % bench(ln_step, 50))
ce = torch.nn.CrossEntropyLoss()
scores = torch.randn(256, 1000, device='cuda', requires_grad=True)
target = torch.randint(0, 1000, (256,), device='cuda')


def ce_step():
    scores.grad = None
    loss = ce(scores, target)
    loss.item()  # Torch7's criterion:forward returns the loss as a number
    loss.backward()


print('crossentropy_256x1000 %.6f' % bench(ce_step, 200))
del ln, ln_in, ln_grad, ce, scores, target
t1, t2 = torch.ones(1, device='cuda'), torch.ones(1, device='cuda') * 2
print('tiny_add_launch %.6f' % bench(lambda: t1 + t2, 20000))
t3 = torch.empty(1, device='cuda')
print('tiny_add_out %.6f' % bench(lambda: torch.add(t1, t2, out=t3), 20000))
print('tiny_add_launch_host %.6f' % host_ms(lambda: t1 + t2))
print('tiny_add_out_host %.6f' % host_ms(lambda: torch.add(t1, t2, out=t3)))
