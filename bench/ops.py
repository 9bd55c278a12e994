# PyTorch twin of bench/ops.lua: microseconds per call of the same single CPU ops, same ids, same
# timing (calls per round calibrated to ~30 ms, a warm-up round, best of 5 rounds), same thread
# count; dims 0-based, keepdim=True, Bool masks. Prints "id microseconds" lines.
# Run with Debian's python3-torch: /usr/bin/python3 bench/ops.py [threads] [id ...]
# (ids: only those cases; bench/ops.lua names the ids its pattern selects)
import pin_blas_threads  # noqa: F401 (first: OpenBLAS threads as argv[1])
import math, sys, time
import torch
import torch.nn.functional as F

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
wanted = set(sys.argv[2:])
torch.set_num_threads(threads)
torch.manual_seed(1)

def calls_for(fn, secs):
    fn()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n): fn()
        dt = time.perf_counter() - t0
        if dt >= 0.01 or n >= 1e6: return max(1, math.ceil(n * secs / max(dt, 1e-9)))
        n *= 4

def bench(fn):
    n = calls_for(fn, 0.03)
    for _ in range(n): fn()
    best = float('inf')
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n): fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e6

def case(ids, make):
    """Times make()'s function once and prints it under each id (a tuple names one measurement twice)."""
    ids = [i for i in ((ids,) if isinstance(ids, str) else ids) if not wanted or i in wanted]
    if not ids: return
    try:
        us, err = bench(make()), None
    except Exception as e:
        err = str(e).replace('\n', ' ')
    for i in ids:
        print('%s %.3f' % (i, us) if err is None else '%s ERR %s' % (i, err), flush=True)

r, E = torch.randn, torch.empty
def on(id, shape, f, init=None):
    """case of f(x) with x = init(*shape) (default randn)"""
    def make():
        x = (init or r)(*shape)
        return lambda: f(x)
    case(id, make)
near1 = lambda n, m: E(n, m).uniform_(0.999, 1.001)
mask = lambda n, m: r(n, m) > 0
list8 = lambda n, m: [r(n, m) for _ in range(8)]
long_ = lambda *s: torch.empty(*s, dtype=torch.long)

for n in (256, 2048):
    L = '%dx%d' % (n, n)
    for d in (1, 0):   # last, first
        tag = L + '.' + ('last' if d == 1 else 'first')
        on('max(dim).%s.alloc' % tag, (n, n), lambda x, d=d: x.max(d, keepdim=True))
        def m(d=d):
            x, v, i = r(n, n), E(0), long_(0); return lambda: torch.max(x, d, keepdim=True, out=(v, i))
        case('max(dim).%s.into' % tag, m)
        on('min(dim).%s.alloc' % tag, (n, n), lambda x, d=d: x.min(d, keepdim=True))
        on('mean(dim).%s.alloc' % tag, (n, n), lambda x, d=d: x.mean(d, keepdim=True))
        def m(d=d):
            x, o = r(n, n), E(0); return lambda: torch.mean(x, d, keepdim=True, out=o)
        case('mean(dim).%s.into' % tag, m)
        on('var(dim).%s.alloc' % tag, (n, n), lambda x, d=d: x.var(d, keepdim=True))
        on('std(dim).%s.alloc' % tag, (n, n), lambda x, d=d: x.std(d, keepdim=True))
        on('norm2(dim).%s.alloc' % tag, (n, n), lambda x, d=d: x.norm(2, d, keepdim=True))
        on('prod(dim).%s.alloc' % tag, (n, n), lambda x, d=d: x.prod(d, keepdim=True), near1)
        on('logsumexp(dim).%s.alloc' % tag, (n, n), lambda x, d=d: torch.logsumexp(x, d, keepdim=True))
        on('cumsum(dim).%s.alloc' % tag, (n, n), lambda x, d=d: torch.cumsum(x, d))
        def m(d=d):
            x, o = r(n, n), E(0); return lambda: torch.cumsum(x, d, out=o)
        case('cumsum(dim).%s.into' % tag, m)
        on('cumprod(dim).%s.alloc' % tag, (n, n), lambda x, d=d: torch.cumprod(x, d), near1)
    on('sort.%s.alloc' % L, (n, n), lambda x: x.sort(1))
    def m():
        x, v, i = r(n, n), E(0), long_(0); return lambda: torch.sort(x, 1, out=(v, i))
    case('sort.%s.into' % L, m)
    for k in (5, 100):
        on('topk%d.%s.alloc' % (k, L), (n, n), lambda x, k=k: x.topk(k, 1, True, True))
    on('kthvalue(k=10).%s.alloc' % L, (n, n), lambda x: x.kthvalue(10, 1, keepdim=True))
    on('median(dim).%s.alloc' % L, (n, n), lambda x: x.median(1, keepdim=True))
    def two(id, f):
        def m():
            a, b = r(n, n), r(n, n); return lambda: f(a, b)
        case(id, m)
    two('gt(t,t).%s.alloc' % L, torch.gt)
    def m():
        a, b, o = r(n, n), r(n, n), torch.empty(n, n, dtype=torch.bool); return lambda: torch.gt(a, b, out=o)
    case('gt(t,t).%s.into' % L, m)
    on('gt(t,0).%s.alloc' % L, (n, n), lambda a: torch.gt(a, 0))
    two('lt(t,t).%s.alloc' % L, torch.lt)
    two('eq(t,t).%s.alloc' % L, torch.eq)
    def m():
        c, a, b = mask(n, n), r(n, n), r(n, n); return lambda: torch.where(c, a, b)
    case('where.%s.alloc' % L, m)
    def m():
        c, a = mask(n, n), r(n, n); return lambda: a.masked_fill_(c, 0)
    case('maskedFill.%s.inplace' % L, m)
    def m():
        c, a = mask(n, n), r(n, n); return lambda: a.masked_select(c)
    case('maskedSelect.%s.alloc' % L, m)
    def m():
        c, a, o = mask(n, n), r(n, n), E(0); return lambda: torch.masked_select(a, c, out=o)
    case('maskedSelect.%s.into' % L, m)
    on('nonzero.%s.alloc' % L, (n, n), torch.nonzero, mask)
    on('any(full,none-set).%s' % L, (n, n), lambda c: c.any(), lambda *s: torch.zeros(*s, dtype=torch.bool))
    on('all(full,all-set).%s' % L, (n, n), lambda c: c.all(), lambda *s: torch.ones(*s, dtype=torch.bool))
    p = n // 8
    on('cat8(dim1).%s.alloc' % L, (p, n), lambda t: torch.cat(t, 0), list8)
    def m():
        t, o = list8(p, n), E(0); return lambda: torch.cat(t, 0, out=o)
    case('cat8(dim1).%s.into' % L, m)
    on('cat8(dim2).%s.alloc' % L, (n, p), lambda t: torch.cat(t, 1), list8)
    on('stack8(dim1).%s.alloc' % L, (p, n), lambda t: torch.stack(t, 0), list8)
    on('repeat(2,2).%s.alloc' % L, (n // 2, n // 2), lambda x: x.repeat(2, 2))
    on('expand(1,n)+contig.%s' % L, (1, n), lambda x: x.expand(n, n).contiguous())
    on('expand(n,1)+contig.%s' % L, (n, 1), lambda x: x.expand(n, n).contiguous())
    def m():
        x, o = r(n, 2 * n), E(n, n); return lambda: o.copy_(x.narrow(1, n // 2, n))
    case('narrow(dim2)+copy.%s.into' % L, m)
    on('flip(dim2).%s' % L, (n, n), lambda x: torch.flip(x, (1,)))
    for name, dt in (('double', torch.float64), ('half', torch.float16), ('bf16', torch.bfloat16),
                     ('long', torch.int64)):
        init = (lambda *s: r(*s) * 100) if dt == torch.int64 else r
        on('float->%s.%s.alloc' % (name, L), (n, n), lambda x, dt=dt: x.to(dt), init)
        def m(dt=dt, init=init):
            x, o = init(n, n), torch.empty(n, n, dtype=dt); return lambda: o.copy_(x)
        case('float->%s.%s.into' % (name, L), m)
    bytes_ = lambda *s: torch.randint(0, 256, s, dtype=torch.uint8)
    on('byte->float.%s.alloc' % L, (n, n), lambda x: x.float(), bytes_)
    def m():
        x, o = bytes_(n, n), E(n, n); return lambda: o.copy_(x)
    case('byte->float.%s.into' % L, m)
    on('uniform_.%s.inplace' % L, (n, n), lambda x: x.uniform_(), E)
    on('normal_.%s.inplace' % L, (n, n), lambda x: x.normal_(), E)
    case('randn.%s.alloc' % L, lambda: (lambda: r(n, n)))
    on('bernoulli_(0.5).%s.inplace' % L, (n, n), lambda x: x.bernoulli_(0.5), E)
    for nm, f in (('sigmoid', torch.sigmoid), ('tanh', torch.tanh)):
        on('%s.%s.alloc' % (nm, L), (n, n), f)
        def m(f=f):
            x, o = r(n, n), E(n, n); return lambda: f(x, out=o)
        case('%s.%s.into' % (nm, L), m)
    on('relu.%s.alloc' % L, (n, n), torch.relu)
    on('cmax(x,0)~clamp(min=0).%s.alloc' % L, (n, n), lambda x: torch.clamp(x, min=0))
    def m():
        x, o = r(n, n), E(n, n); return lambda: torch.clamp(x, min=0, out=o)
    case('cmax(x,0)~clamp(min=0).%s.into' % L, m)
    on('clamp(0,inf).%s.alloc' % L, (n, n), lambda x: torch.clamp(x, 0, math.inf))
    on('logSoftmax(dim2).%s.alloc' % L, (n, n), lambda x: torch.log_softmax(x, 1))

on('logSoftmax(dim2).64x1000.alloc', (64, 1000), lambda x: torch.log_softmax(x, 1))
on('logSoftmax(dim2).64x10.alloc', (64, 10), lambda x: torch.log_softmax(x, 1))
on('max(dim).64x10.last.alloc', (64, 10), lambda x: x.max(1, keepdim=True))
on('max(dim).64x1000.last.alloc', (64, 1000), lambda x: x.max(1, keepdim=True))
on('topk5.64x10.alloc', (64, 10), lambda x: x.topk(5, 1, True, True))
on('topk5.64x1000.alloc', (64, 1000), lambda x: x.topk(5, 1, True, True))
on('sort.64x10.alloc', (64, 10), lambda x: x.sort(1))
def m():
    a, b = torch.randint(1, 11, (64,)), torch.randint(1, 11, (64,)); return lambda: torch.eq(a, b)
case('eq(long).64.alloc', m)
on('sigmoid.64x10.alloc', (64, 10), torch.sigmoid)
on('cumsum(dim).64x10.last.alloc', (64, 10), lambda x: torch.cumsum(x, 1))
on('mean(dim).64x10.last.alloc', (64, 10), lambda x: x.mean(1, keepdim=True))

for mm in (64, 128):
    def m(mm=mm):
        a, b = r(mm, mm), r(mm, mm); return lambda: torch.mm(a, b)
    case('mm.%dx%d.alloc' % (mm, mm), m)
    def m(mm=mm):
        a, b, o = r(mm, mm), r(mm, mm), E(mm, mm); return lambda: torch.mm(a, b, out=o)
    case('mm.%dx%d.into' % (mm, mm), m)
def m():
    a, b = r(32, 64, 64), r(32, 64, 64); return lambda: torch.bmm(a, b)
case('bmm.32x64x64.alloc', m)
def m():
    a, b, o = r(32, 64, 64), r(32, 64, 64), E(32, 64, 64); return lambda: torch.bmm(a, b, out=o)
case('bmm.32x64x64.into', m)
def m():
    x, w, b = r(128, 784), r(256, 784), r(256); return lambda: torch.addmm(b, x, w.t())
case('addmm(linear).128x784x256.alloc', m)
def m():
    x, w, b, o = r(128, 784), r(256, 784), r(256), E(128, 256); return lambda: torch.addmm(b, x, w.t(), out=o)
case('addmm(linear).128x784x256.into', m)

torch.set_grad_enabled(False)
# Torch7's TemporalConvolution takes (N, T, C), conv1d (N, C, T): both ids are conv1d on (32, 64, 128).
def m():
    x, w, b = r(32, 64, 128), r(64, 64, 5), r(64); return lambda: F.conv1d(x, w, b)
case(('conv1d(64->64,k5).32x64x128', 'TemporalConvolution(64->64,k5).32x128x64'), m)
on('SpatialAveragePooling(2x2s2).64x32x28x28', (64, 32, 28, 28), torch.nn.AvgPool2d(2, 2))
on('SpatialAveragePooling(3x3s1p1).64x32x28x28', (64, 32, 28, 28), torch.nn.AvgPool2d(3, 1, 1))

torch.set_grad_enabled(True)
# PyTorch's functions of the second round (docs/pytorch_functions.md) at 256x256, dims dropped
N = 256
long_in = lambda n, m: torch.randint(1, 1001, (n, m))
on('amax(dim).256x256.last.alloc', (N, N), lambda x: torch.amax(x, 1))
on('amax(dim).256x256.first.alloc', (N, N), lambda x: torch.amax(x, 0))
on('nansum(dim).256x256.last.alloc', (N, N), lambda x: torch.nansum(x, 1))
on('logcumsumexp(dim).256x256.last.alloc', (N, N), lambda x: torch.logcumsumexp(x, 1))
on('cummax(dim).256x256.last.alloc', (N, N), lambda x: torch.cummax(x, 1))
on('quantile(0.5,dim).256x256.last.alloc', (N, N), lambda x: torch.quantile(x, 0.5, 1))
for f in ('hypot', 'logaddexp', 'xlogy'):
    def m(f=f):
        a, b = torch.rand(N, N), torch.rand(N, N); fn = getattr(torch, f); return lambda: fn(a, b)
    case(f + '.256x256.alloc', m)
for f, g in (('bitwiseAnd', torch.bitwise_and), ('gcd', torch.gcd)):
    def m(g=g):
        a, b = long_in(N, N), long_in(N, N); return lambda: g(a, b)
    case(f + '(long).256x256.alloc', m)
def m():
    x, src, idx = r(N, N), r(N, N), torch.randint(0, N, (N, N))
    return lambda: torch.scatter_reduce(x, 1, idx, src, 'amax')
case('scatterReduce(amax).256x256.alloc', m)
def m():
    a, b = long_in(256, 256), torch.randint(1, 2001, (1000,)); return lambda: torch.isin(a, b)
case('isin.65536in1000.alloc', m)
def m():
    a, b = r(N, 64), r(N, 64); return lambda: torch.cdist(a, b)
case('cdist(p2).256x64,256x64.alloc', m)
on('repeatInterleave(3,dim1).256x256.alloc', (N, N), lambda x: torch.repeat_interleave(x, 3, 0))
torch.set_grad_enabled(False)
for f, g in (('svd', torch.linalg.svd), ('eigh', torch.linalg.eigh), ('cholesky', torch.linalg.cholesky),
             ('matrixExp', torch.linalg.matrix_exp)):
    def m(g=g):
        a = r(64, 64); spd = a @ a.t() + 64 * torch.eye(64); return lambda: g(spd)
    case('linalg.%s.64x64' % f, m)
def m():
    a, b = r(8, 32, 32) + 32 * torch.eye(32), r(8, 32, 4); return lambda: torch.linalg.solve(a, b)
case('linalg.solve.8x32x32,8x32x4', m)
def m():
    a, b = torch.triu(r(512, 512)) + 512 * torch.eye(512), r(512, 4)
    return lambda: torch.linalg.solve_triangular(a, b, upper=True)
case('linalg.solveTriangular.512x512,512x4', m)
torch.set_grad_enabled(True)
def m():
    a, b = r(32, 32), r(32, 32); return lambda: torch.kron(a, b)
case('kron.32x32,32x32.alloc', m)
