#!/usr/bin/python3
"""Writes the PyTorch checkpoints that tests/lua/test_pt_checkpoint.lua reads (PyTorch 1.13).

Run from anywhere: /usr/bin/python3 tests/data/pt/make_fixtures.py. The files are small (a few KB)
and committed; the Lua tests never call Python.
"""
import io
import os
import pickle
import zipfile
from collections import OrderedDict

import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(HERE, name)


def values():
    """Every dtype Tocha reads, views sharing storages, and plain Python values."""
    base = torch.arange(12, dtype=torch.float32).view(3, 4)
    return {
        'f32': torch.tensor([[1.5, -2.25, 3.0], [4.0, 0.5, -1.0]], dtype=torch.float32),
        'f64': torch.tensor([1.0 / 3, -2.5e300], dtype=torch.float64),
        'f16': torch.tensor([0.5, -65504.0, 1.0 / 1024], dtype=torch.float16),
        'bf16': torch.tensor([1.5, -3.0e38], dtype=torch.bfloat16),
        'i64': torch.tensor([-(2 ** 62), 7, 2 ** 40], dtype=torch.int64),
        'i32': torch.tensor([-(2 ** 31), 5], dtype=torch.int32),
        'i16': torch.tensor([-32768, 300], dtype=torch.int16),
        'i8': torch.tensor([-128, 127], dtype=torch.int8),
        'u8': torch.tensor([0, 255, 7], dtype=torch.uint8),
        'bool': torch.tensor([True, False, True]),
        'scalar': torch.tensor(2.5),
        'empty': torch.zeros(0, 3),
        'base': base,
        'row': base[1],                  # storage offset 4
        'col': base[:, 2],               # stride 4
        'tr': base.t(),                  # strides (1, 4)
        'param': torch.nn.Parameter(torch.tensor([1.0, 2.0])),
        'int': 2 ** 40,
        'neg': -5,
        'float': 0.125,
        'str': 'héllo',
        'yes': True,
        'none': None,
        'list': [1, 'two', 3.5],
        'tuple': (4, 5),
        'nested': {'a': {'b': 1}, 3: 'three'},
        'size': torch.Size([2, 3]),
        'dtype': torch.float16,
    }


def seq_model():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    x = torch.randn(5, 4)
    with torch.no_grad():
        y = model(x)
    return {'state': model.state_dict(), 'input': x, 'output': y}


def rezip(src, dst, transform=None, extra=None, deflate=False):
    """Copies a zip checkpoint, optionally deflating it or rewriting its entries."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, 'w') as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if transform:
                data = transform(info.filename, data)
            zout.writestr(info.filename, data, zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED)
        for name, data in (extra or {}).items():
            zout.writestr(name, data)


def element_sizes(src):
    """Storage key -> element size, from the checkpoint's own pickle."""
    sizes = {}

    class Probe(pickle.Unpickler):
        def persistent_load(self, pid):
            _, storage_type, key, _, numel = pid
            sizes[key] = storage_type(0).element_size()
            return storage_type(numel)
    with zipfile.ZipFile(src) as z:
        name = [n for n in z.namelist() if n.endswith('/data.pkl')][0]
        Probe(io.BytesIO(z.read(name))).load()
    return sizes


class Evil:
    """Pickles as a call of os.system: a safe loader must refuse it, not run it."""

    def __reduce__(self):
        return (os.system, ('echo this must never run',))


def main():
    torch.save(values(), path('values.pt'))
    torch.save(values(), path('values_legacy.pt'), _use_new_zipfile_serialization=False)
    torch.save(seq_model(), path('seq_model.pt'))
    torch.save({'c': torch.tensor([1 + 2j], dtype=torch.complex64)}, path('complex.pt'))
    torch.save({'x': torch.ones(2), 'evil': Evil()}, path('evil.pt'))
    rezip(path('values.pt'), path('values_deflated.pt'), deflate=True)

    # The same checkpoint with big-endian storages and a byteorder record, as a big-endian
    # machine writes it (PyTorch >= 2.0 reads the record; 1.13 writes none).
    sizes = element_sizes(path('values.pt'))
    prefix = zipfile.ZipFile(path('values.pt')).namelist()[0].split('/')[0]

    def swap(name, data):
        if '/data/' not in name:
            return data
        el = sizes[name.rsplit('/', 1)[1]]
        return b''.join(data[i:i + el][::-1] for i in range(0, len(data), el))
    rezip(path('values.pt'), path('values_big.pt'), transform=swap, extra={prefix + '/byteorder': 'big'})


if __name__ == '__main__':
    main()
