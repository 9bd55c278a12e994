# Development-time checker of torch.onnx.export's files (not run by the tests; needs /usr/bin/python3
# with onnx 1.12, numpy and PyTorch): onnx.load, onnx.checker full_check, strict shape inference, a
# numpy/torch evaluator written from the ONNX operator spec (opsets 13-17; pools use the spec's
# output-size formula, with no "last window" rule), the file's outputs against the model's own
# forward, and, for a symbolic batch dim, the input tiled twice. Files come from export_hook.lua:
#   cd tests/lua && OUTDIR=/tmp/x TAG=t ../../build/tocha -e "dofile('../data/onnx_review/export_hook.lua')" ./test_onnx_eval.lua
#   /usr/bin/python3 ../data/onnx_review/check_onnx.py /tmp/x/
# prints each file with a problem (CHECKER, SHAPE, VALUE, DECLARED, DYN ...). The reference values of
# tests/lua/test_onnx_regressions.lua come from ref_values.py.
import sys, glob, math, numpy as np, onnx, torch, torch.nn.functional as F
from onnx import numpy_helper, helper, shape_inference
torch.set_default_dtype(torch.float64)

def rd(path):
    with open(path) as f:
        n = int(f.readline()); out = []
        for _ in range(n):
            hdr = [int(v) for v in f.readline().split()]
            vals = [float(v) for v in f.readline().split()]
            out.append(np.array(vals, dtype=np.float64).reshape(hdr[1:]))
    return out

def attrs(node): return {a.name: helper.get_attribute_value(a) for a in node.attribute}

def pool(x, k, s, pads, ceil, dil, kind, cip):
    # ONNX spec: out = floor/ceil((in + pb + pe - ((k-1)d+1)) / s + 1); windows over the padded input
    nd = len(k); N, C = x.shape[:2]; sp = x.shape[2:]
    outs = []
    for i in range(nd):
        eff = (k[i]-1)*dil[i]+1
        v = (sp[i] + pads[i] + pads[nd+i] - eff) / s[i] + 1
        outs.append(int(math.ceil(v) if ceil else math.floor(v)))
    y = np.zeros((N, C) + tuple(outs))
    for idx in np.ndindex(*outs):
        sl = []; cnt_in = 1; cnt_pad = 1
        coords = []
        for i in range(nd):
            start = idx[i]*s[i] - pads[i]
            cs = [start + j*dil[i] for j in range(k[i])]
            inb = [c for c in cs if 0 <= c < sp[i]]
            padb = [c for c in cs if -pads[i] <= c < sp[i] + pads[nd+i]]
            coords.append(inb); cnt_in *= len(inb); cnt_pad *= len(padb)
        if any(len(c) == 0 for c in coords):
            y[(slice(None), slice(None)) + idx] = np.nan; continue
        win = x[np.ix_(range(N), range(C), *coords)].reshape(N, C, -1)
        if kind == 'max': y[(slice(None), slice(None)) + idx] = win.max(-1)
        else: y[(slice(None), slice(None)) + idx] = win.sum(-1) / (cnt_pad if cip else cnt_in)
    return y.astype(x.dtype)

def conv(x, w, b, a, transposed):
    nd = w.ndim - 2
    k = a.get('kernel_shape', list(w.shape[2:])); s = a.get('strides', [1]*nd); d = a.get('dilations', [1]*nd)
    p = a.get('pads', [0]*(2*nd)); g = a.get('group', 1)
    X, W = torch.tensor(x), torch.tensor(w); B = None if b is None else torch.tensor(b)
    fn = {1: (F.conv1d, F.conv_transpose1d), 2: (F.conv2d, F.conv_transpose2d), 3: (F.conv3d, F.conv_transpose3d)}[nd]
    if not transposed:
        fp = []
        for i in reversed(range(nd)): fp += [p[i], p[nd+i]]
        X = F.pad(X, fp)
        return fn[0](X, W, B, stride=s, dilation=d, groups=g).numpy()
    op = a.get('output_padding', [0]*nd)
    Y = fn[1](X, W, B, stride=s, dilation=d, groups=g, output_padding=op)  # full, then crop pads
    sl = [slice(None), slice(None)]
    for i in range(nd):
        # output_padding adds at the end; pads remove begin/end
        sl.append(slice(p[i], Y.shape[2+i] - p[nd+i]))
    return Y[tuple(sl)].numpy()

def run(model, inputs):
    env = {}
    for t in model.graph.initializer: env[t.name] = numpy_helper.to_array(t)
    for vi, x in zip(model.graph.input, inputs):
        et = vi.type.tensor_type.elem_type
        env[vi.name] = x.astype(helper.tensor_dtype_to_np_dtype(et)) if hasattr(helper, 'tensor_dtype_to_np_dtype') else x.astype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[et])
    for n in model.graph.node:
        I = [env[i] if i else None for i in n.input]; a = attrs(n); op = n.op_type
        x = I[0] if I else None
        if op == 'Gemm':
            A = x.T if a.get('transA', 0) else x; B = I[1].T if a.get('transB', 0) else I[1]
            y = a.get('alpha', 1.0) * A @ B
            if len(I) > 2 and I[2] is not None: y = y + a.get('beta', 1.0) * I[2]
        elif op == 'MatMul': y = x @ I[1]
        elif op in ('Add', 'Sub', 'Mul', 'Div', 'Pow'):
            y = {'Add': np.add, 'Sub': np.subtract, 'Mul': np.multiply, 'Div': np.divide, 'Pow': np.power}[op](x, I[1])
        elif op == 'Greater': y = x > I[1]
        elif op == 'Where': y = np.where(x, I[1], I[2])
        elif op == 'Relu': y = np.maximum(x, 0)
        elif op == 'Sigmoid': y = 1 / (1 + np.exp(-x))
        elif op == 'Tanh': y = np.tanh(x)
        elif op == 'LeakyRelu': y = np.where(x >= 0, x, a.get('alpha', 0.01) * x)
        elif op == 'Elu': al = a.get('alpha', 1.0); y = np.where(x >= 0, x, al * (np.exp(x) - 1))
        elif op == 'Selu':
            al = a.get('alpha', 1.67326319217681884765625); ga = a.get('gamma', 1.05070102214813232421875)
            y = np.where(x > 0, ga * x, ga * (al * np.exp(x) - al))
        elif op == 'Celu': al = a.get('alpha', 1.0); y = np.maximum(0, x) + np.minimum(0, al * (np.exp(x / al) - 1))
        elif op == 'Clip':
            y = x
            if len(I) > 1 and I[1] is not None: y = np.maximum(y, I[1])
            if len(I) > 2 and I[2] is not None: y = np.minimum(y, I[2])
        elif op in ('Softmax', 'LogSoftmax'):
            ax = a.get('axis', -1); m = x.max(ax, keepdims=True); e = np.exp(x - m); s = e.sum(ax, keepdims=True)
            y = e / s if op == 'Softmax' else (x - m) - np.log(s)
        elif op == 'Softplus': y = np.log1p(np.exp(x))
        elif op == 'Softsign': y = x / (1 + np.abs(x))
        elif op == 'HardSigmoid': y = np.clip(a.get('alpha', 0.2) * x + a.get('beta', 0.5), 0, 1)
        elif op == 'Shrink':
            bi, la = a.get('bias', 0.0), a.get('lambd', 0.5)
            y = np.where(x < -la, x + bi, np.where(x > la, x - bi, 0))
        elif op in ('Abs', 'Exp', 'Log', 'Sqrt', 'Neg'):
            y = {'Abs': np.abs, 'Exp': np.exp, 'Log': np.log, 'Sqrt': np.sqrt, 'Neg': np.negative}[op](x)
        elif op == 'Erf': y = torch.erf(torch.tensor(x)).numpy()
        elif op == 'Identity': y = x
        elif op == 'Conv': y = conv(x, I[1], I[2] if len(I) > 2 else None, a, False)
        elif op == 'ConvTranspose': y = conv(x, I[1], I[2] if len(I) > 2 else None, a, True)
        elif op == 'BatchNormalization':
            sh = (1, -1) + (1,) * (x.ndim - 2)
            y = (x - I[3].reshape(sh)) / np.sqrt(I[4].reshape(sh) + a.get('epsilon', 1e-5)) * I[1].reshape(sh) + I[2].reshape(sh)
        elif op == 'InstanceNormalization':
            ax = tuple(range(2, x.ndim)); mu = x.mean(ax, keepdims=True); var = x.var(ax, keepdims=True)
            sh = (1, -1) + (1,) * (x.ndim - 2)
            y = (x - mu) / np.sqrt(var + a.get('epsilon', 1e-5)) * I[1].reshape(sh) + I[2].reshape(sh)
        elif op == 'LayerNormalization':
            ax = a.get('axis', -1); ax = ax % x.ndim; axes = tuple(range(ax, x.ndim))
            mu = x.mean(axes, keepdims=True); var = ((x - mu) ** 2).mean(axes, keepdims=True)
            y = (x - mu) / np.sqrt(var + a.get('epsilon', 1e-5)) * I[1]
            if len(I) > 2 and I[2] is not None: y = y + I[2]
        elif op in ('MaxPool', 'AveragePool'):
            nd = x.ndim - 2
            y = pool(x, a['kernel_shape'], a.get('strides', [1]*nd), a.get('pads', [0]*2*nd), a.get('ceil_mode', 0),
                     a.get('dilations', [1]*nd), 'max' if op == 'MaxPool' else 'avg', a.get('count_include_pad', 0))
        elif op == 'GlobalAveragePool': y = x.mean(tuple(range(2, x.ndim)), keepdims=True)
        elif op == 'GlobalMaxPool': y = x.max(tuple(range(2, x.ndim)), keepdims=True)
        elif op == 'Reshape':
            sh = list(I[1]); az = a.get('allowzero', 0)
            for i, v in enumerate(sh):
                if v == 0 and not az: sh[i] = x.shape[i]
            y = x.reshape(sh)
        elif op == 'Flatten':
            ax = a.get('axis', 1); y = x.reshape(int(np.prod(x.shape[:ax])), -1)
        elif op == 'Concat': y = np.concatenate(I, a['axis'])
        elif op == 'Gather': y = np.take(x, I[1], axis=a.get('axis', 0))
        elif op == 'Pad':
            p = list(I[1]); r = x.ndim; mode = a.get('mode', b'constant').decode()
            pw = [(p[i], p[r+i]) for i in range(r)]
            if mode == 'constant': y = np.pad(x, pw, constant_values=(I[2] if len(I) > 2 and I[2] is not None else 0))
            else: y = np.pad(x, pw, mode={'reflect': 'reflect', 'edge': 'edge'}[mode])
        elif op == 'Cast': y = x.astype(helper.tensor_dtype_to_np_dtype(a['to']) if hasattr(helper, 'tensor_dtype_to_np_dtype') else onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[a['to']])
        elif op == 'Unsqueeze': y = np.expand_dims(x, tuple(int(v) for v in I[1]))
        elif op == 'Squeeze': y = np.squeeze(x, tuple(int(v) for v in I[1])) if len(I) > 1 else np.squeeze(x)
        elif op == 'Expand': y = x * np.ones(I[1], dtype=x.dtype)
        elif op == 'Shape': y = np.array(x.shape, dtype=np.int64)
        elif op == 'Transpose': y = np.transpose(x, a.get('perm'))
        elif op == 'Slice':
            axes = I[3] if len(I) > 3 else range(len(I[1])); sl = [slice(None)] * x.ndim
            steps = I[4] if len(I) > 4 else [1] * len(I[1])
            for st, en, ax, sp in zip(I[1], I[2], axes, steps): sl[ax] = slice(int(st), int(en), int(sp))
            y = x[tuple(sl)]
        elif op == 'ReduceMean':
            ax = a.get('axes'); y = x.mean(tuple(ax) if ax is not None else None, keepdims=bool(a.get('keepdims', 1)))
        elif op == 'PRelu': y = np.where(x < 0, x * I[1], x)
        else: raise Exception('op not in evaluator: ' + op)
        env[n.output[0]] = np.asarray(y)
    return [env[o.name] for o in model.graph.output]

def check(base, verbose=True):
    msgs = []
    try:
        m = onnx.load(base + '.onnx')
    except Exception as e:
        return ['LOAD: %s' % e]
    try: onnx.checker.check_model(m, full_check=True)
    except Exception as e: msgs.append('CHECKER: %s' % str(e).split('\n')[0][:300])
    try: shape_inference.infer_shapes(m, check_type=True, strict_mode=True)
    except Exception as e: msgs.append('SHAPE: %s' % str(e).replace('\n', ' ')[:400])
    names = [t.name for t in m.graph.initializer]
    if len(names) != len(set(names)): msgs.append('DUP initializer names')
    try:
        got = run(m, rd(base + '.in')); want = rd(base + '.out')
        if len(got) != len(want): msgs.append('NOUT %d vs %d' % (len(got), len(want)))
        for i, (g, w) in enumerate(zip(got, want)):
            if tuple(g.shape) != tuple(w.shape): msgs.append('SHAPE out %d: %s vs %s' % (i, g.shape, w.shape)); continue
            err = np.nanmax(np.abs(g.astype(np.float64) - w)) if g.size else 0
            if np.isnan(g.astype(np.float64)).any() or err > 1e-4 * max(1, np.abs(w).max() if w.size else 1):
                msgs.append('VALUE out %d: err %g' % (i, err))
        # declared output shape vs actual
        for o, w in zip(m.graph.output, want):
            d = [x.dim_value if x.HasField('dim_value') else x.dim_param for x in o.type.tensor_type.shape.dim]
            if [v for v in d if isinstance(v, int)] and any(isinstance(v, int) and v != s for v, s in zip(d, w.shape)):
                msgs.append('DECLARED %s vs %s' % (d, w.shape))
        ins = rd(base + '.in')
        dynb = [i for i, vi in enumerate(m.graph.input) if vi.type.tensor_type.shape.dim and vi.type.tensor_type.shape.dim[0].dim_param]
        if dynb:
            ins2 = [np.concatenate([x, x[::-1] if False else x], 0) if i in dynb else x for i, x in enumerate(ins)]
            got2 = run(m, ins2)
            for i, (g, w) in enumerate(zip(got2, want)):
                w2 = np.concatenate([w, w], 0)
                if tuple(g.shape) != tuple(w2.shape): msgs.append('DYN SHAPE out %d: %s vs %s' % (i, g.shape, w2.shape)); continue
                err = np.abs(g - w2).max()
                if err > 1e-4 * max(1, np.abs(w2).max()): msgs.append('DYN VALUE out %d: err %g' % (i, err))
            msgs.append('(dyn batch checked)') if not msgs else None
    except Exception as e:
        msgs.append('EVAL: %s' % str(e)[:300])
    return [x for x in msgs if x != '(dyn batch checked)'] if any(x != '(dyn batch checked)' for x in msgs) else msgs

if __name__ == '__main__':
    for f in sorted(glob.glob(sys.argv[1] + '*.onnx')):
        base = f[:-5]; msgs = [x for x in check(base) if x != '(dyn batch checked)']
        if msgs:
            where = open(base + '.where').read().strip()
            print(base.split('/')[-1], where, *msgs, sep='\n   ')
