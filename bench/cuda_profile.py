# PyTorch twin of bench/cuda_profile.lua: the per-kernel GPU time of one training step of each
# bench/cuda_models.py case, appended to the same file by the same CUPTI injection library
# (CUDA_INJECTION64_PATH, which this process inherits). Usage: cuda_profile.py out.txt [case]
import ctypes
import os
import sys
import time

import torch
from cuda_models import cases

kprof = ctypes.CDLL(os.environ['CUDA_INJECTION64_PATH'])
kprof.tocha_kprof_report.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
out = sys.argv[1].encode()
only = sys.argv[2] if len(sys.argv) > 2 else ''
for name, steps, step in cases():
    if only and only.split('_')[0] != name:
        continue
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    kprof.tocha_kprof_reset()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    torch.cuda.synchronize()
    ms = (time.perf_counter() - t0) / steps * 1e3
    kprof.tocha_kprof_report(out, ('pytorch %s (host wall %.3f ms/step)' % (name, ms)).encode(), steps)
