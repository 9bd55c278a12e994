# Writes the safetensors fixtures of tests/lua/test_formats_regressions.lua the way the reference
# writer (huggingface/safetensors) lays them out: u64 LE header length, JSON header padded with
# spaces to 8 bytes, tensors sorted by dtype (widest first) then name, contiguous offsets.
# Run with /usr/bin/python3 (PyTorch 1.13); the tests never call Python.
import json, struct, torch

def write(path, tensors, metadata=None):
    order = {'F64': 0, 'I64': 0, 'F32': 1, 'I32': 1, 'F16': 2, 'BF16': 2, 'I16': 2, 'I8': 3, 'U8': 3, 'BOOL': 3}
    names = sorted(tensors, key=lambda k: (order[tensors[k][0]], k))
    header, data = {}, b''
    if metadata is not None:
        header['__metadata__'] = metadata
    for k in names:
        dtype, shape, raw = tensors[k]
        header[k] = {'dtype': dtype, 'shape': shape, 'data_offsets': [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(header, separators=(',', ':'), ensure_ascii=False).encode('utf-8')
    h += b' ' * ((8 - len(h) % 8) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(h)) + h + data)

def raw(t):
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().tobytes()
    return t.numpy().tobytes()

inf, nan = float('inf'), float('nan')
t = {
    'f64': ('F64', [2, 2], raw(torch.tensor([[1.5, -0.0], [1e-310, 1.7976931348623157e308]], dtype=torch.float64))),
    'f32': ('F32', [4], raw(torch.tensor([0.1, -inf, 1e-45, 3.4028234663852886e38], dtype=torch.float32))),
    'f16': ('F16', [4], raw(torch.tensor([0.1, -65504, 6e-08, inf], dtype=torch.float16))),
    'bf16': ('BF16', [3], raw(torch.tensor([0.1, -3.0e38, 1e-40], dtype=torch.bfloat16))),
    'i64': ('I64', [3], raw(torch.tensor([-2**63, 2**63 - 1, 2**53 + 1], dtype=torch.int64))),
    'i32': ('I32', [2], raw(torch.tensor([-2**31, 2**31 - 1], dtype=torch.int32))),
    'i16': ('I16', [2], raw(torch.tensor([-32768, 32767], dtype=torch.int16))),
    'i8': ('I8', [2], raw(torch.tensor([-128, 127], dtype=torch.int8))),
    'u8': ('U8', [2], raw(torch.tensor([0, 255], dtype=torch.uint8))),
    'b': ('BOOL', [3], raw(torch.tensor([True, False, True]))),
    'scalar': ('F32', [], raw(torch.tensor(2.5, dtype=torch.float32))),
    'empty': ('F32', [0, 3], b''),
    'caf\u00e9.\u03c0': ('F64', [1], raw(torch.tensor([3.0], dtype=torch.float64))),
}
write('all_dtypes.safetensors', t, {'format': 'pt', 'note': '\u00e9\u00e8 "q"'})
