#!/usr/bin/python3
"""Writes the PyTorch 1.13 checkpoints that tests/lua/test_pt_interop_regressions.lua reads.

Run from anywhere: /usr/bin/python3 tests/data/pt_review/gen.py. Each file is a few KB and
committed; the Lua tests never call Python. The expected values are written in the Lua test next
to each check (they are the values below, exact in their dtypes). The zip files come out byte for
byte the same on each run; the legacy ones differ in their storage keys (Python object ids), which
no test depends on.
"""
import os
from collections import OrderedDict

import torch
import torch.serialization

HERE = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(HERE, name)


def dtypes():
    """Every dtype Tocha maps, with its extreme values, as 1D, 0-dim and empty tensors."""
    out = OrderedDict()
    vals = {
        torch.float16: [65504.0, -6.103515625e-05, 5.960464477539063e-08, float('inf')],
        torch.bfloat16: [3.3895313892515355e+38, -1.1754943508222875e-38, 1.5],
        torch.float32: [3.4028234663852886e+38, 1.401298464324817e-45, -0.0],
        torch.float64: [1.7976931348623157e+308, 5e-324, -1.0 / 3],
        torch.int8: [-128, 127, 0],
        torch.int16: [-32768, 32767, -1],
        torch.int32: [-2147483648, 2147483647, -1],
        torch.int64: [-9223372036854775808, 9223372036854775807, 9007199254740993],
        torch.uint8: [0, 255, 128],
        torch.bool: [True, False, True],
    }
    for dt, v in vals.items():
        name = str(dt).split('.')[1]
        out[name] = torch.tensor(v, dtype=dt)
        out[name + '_0d'] = torch.tensor(v[1], dtype=dt)
        out[name + '_empty'] = torch.empty(2, 0, dtype=dt)
    return out


class TiedLM(torch.nn.Module):
    """An embedding whose decoder shares its weight (weight tying), and a plain linear layer."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(5, 3)
        self.lin = torch.nn.Linear(3, 3)
        self.dec = torch.nn.Linear(3, 5, bias=False)
        self.dec.weight = self.emb.weight


def views():
    """Tensors sharing storages: tied weights, a transposed view, offsets, strides, expands."""
    torch.manual_seed(0)
    m = TiedLM()
    base = torch.arange(24, dtype=torch.float64).view(4, 6)
    d = OrderedDict()
    d['model'] = m.state_dict()
    d['w'] = m.lin.weight.data
    d['wt'] = m.lin.weight.data.t()          # a weight and its transposed view
    d['base'] = base
    d['narrow'] = base[1:3, 2:5]            # offset 8, strides (6, 1)
    d['step'] = base[::2, 1::3]             # offset 1, strides (12, 3)
    d['elem'] = base[2, 3]                  # 0-dim at offset 15
    d['tail'] = base.view(-1)[24:]          # empty at the storage's end (offset 24)
    d['expand'] = torch.tensor([1, 2, 3], dtype=torch.int32).expand(2, 3)  # stride 0
    d['i16view'] = torch.arange(10, dtype=torch.int16)[3:9:2]              # widened, offset 3, stride 2
    return d


def values():
    """Python values a checkpoint may hold."""
    return {
        'nested': {'a': [1, (2, 3), {'b': None}], 'od': OrderedDict([('z', 1), ('a', 2), ('m', 3)])},
        'empty_list': [], 'empty_tuple': (), 'empty_dict': {},
        'yes': True, 'no': False, 'none': None,
        'i53': 2 ** 53 + 1, 'i63': 2 ** 63 - 1, 'neg63': -2 ** 63, 'small': -7,
        'f': 0.1, 'inf': float('inf'), 'ninf': float('-inf'), 'negzero': -0.0,
        'str': 'ünïcødé ✓', 'bytes': b'\x00\x01\xfe\xff',
        'int_keys': {1: 'one', 2: 'two'},
        'tuple_list': [(1, 'a'), (2, 'b')],
    }


def main():
    torch.save(dtypes(), path('dtypes.pt'))
    torch.save(dtypes(), path('dtypes_legacy.pt'), _use_new_zipfile_serialization=False)
    torch.save(views(), path('views.pt'))
    torch.save(views(), path('views_legacy.pt'), _use_new_zipfile_serialization=False)
    torch.save(values(), path('values.pt'))
    # A None ending pickle's first batch of 1000 APPENDS (the list is written in two batches).
    holes = list(range(1, 1002))
    holes[999] = None
    torch.save({'holes': holes, 'short': [1, None, 3]}, path('holes.pt'))
    # The legacy format with pickle protocols 4 and 5 (FRAMEs), and the zip format with protocol 5.
    small = OrderedDict([('w', torch.tensor([[1.0, 2.0], [3.0, 4.0]]).t()), ('n', 3)])
    torch.save(small, path('legacy_p4.pt'), _use_new_zipfile_serialization=False, pickle_protocol=4)
    torch.save(small, path('legacy_p5.pt'), _use_new_zipfile_serialization=False, pickle_protocol=5)
    torch.save(small, path('zip_p5.pt'), pickle_protocol=5)
    torch.save({'big': 2 ** 63}, path('int_2p63.pt'))
    torch.save({'big': 2 ** 64 - 1}, path('int_2p64m1.pt'))
    torch.save({'c': torch.tensor([1 + 2j, 3 - 4j], dtype=torch.complex128)}, path('complex128.pt'))
    q = torch.quantize_per_tensor(torch.tensor([0.5, 1.0]), 0.1, 0, torch.qint8)
    torch.save({'q': q}, path('quantized.pt'))
    torch.manual_seed(0)
    torch.save(torch.nn.Linear(2, 1), path('module.pt'))   # a whole nn.Module, not its state_dict
    torch.save(torch.nn.Linear(2, 1), path('module_legacy.pt'), _use_new_zipfile_serialization=False)

    # Files saved from CUDA tensors: PyTorch 1.13 writes the same bytes as for CPU tensors except
    # the storages' location ('cuda:0'), which is what location_tag gives a CUDA storage. This
    # machine may have no GPU, so the tag is forced; with one, .cuda() gives the same files.
    real_tag = torch.serialization.location_tag
    torch.serialization.location_tag = lambda storage: 'cuda:0'
    try:
        torch.manual_seed(0)
        sd = torch.nn.Linear(3, 2).state_dict()
        torch.save(sd, path('cuda.pt'))
        torch.save(sd, path('cuda_legacy.pt'), _use_new_zipfile_serialization=False)
    finally:
        torch.serialization.location_tag = real_tag


if __name__ == '__main__':
    main()
