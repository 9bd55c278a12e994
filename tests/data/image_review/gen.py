#!/usr/bin/python3
# Generates the image fixtures of tests/lua/test_image_io_regressions.lua and expected.lua, the
# reference decodings: torchvision 0.14's io.read_image (ImageReadMode.UNCHANGED; RGB / RGB_ALPHA
# for the palettes) where it reads the file, else (16-bit PNGs, which torchvision 0.14 refuses) Pillow's 16-bit samples, stored
# as is (the test compares them with 8-bit values / 257 within 1).
# Pillow 9.4 writes the ordinary files; the PNGs it cannot write (2/4-bit gray, 16-bit RGB,
# Adam7 interlaced, a gAMA chunk, 16-bit gray + alpha) come from the small writer below, and
# each is checked against Pillow's decoding. Run: cd tests/data/image_review && /usr/bin/python3 gen.py
import io
import os
import struct
import zlib

import numpy as np
from PIL import Image
import torch
from torchvision.io import ImageReadMode, read_image

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.RandomState(1234)


def chunk(kind, payload):
    return struct.pack('>I', len(payload)) + kind + payload + struct.pack('>I', zlib.crc32(kind + payload))


def pack_row(row, depth):
    """row: 1-D array of samples -> bytes at bit depth `depth` (1, 2, 4, 8, 16)."""
    if depth == 16:
        return row.astype('>u2').tobytes()
    if depth == 8:
        return row.astype(np.uint8).tobytes()
    per = 8 // depth
    out = bytearray()
    for i in range(0, len(row), per):
        b = 0
        for j in range(per):
            v = int(row[i + j]) if i + j < len(row) else 0
            b |= v << (8 - depth * (j + 1))
        out.append(b)
    return bytes(out)


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def raw_png(samples, color_type, depth, interlace=False, extra=b'', width=None, height=None):
    """samples: H x W x C array of sample values. extra: chunks placed before IDAT."""
    h, w = samples.shape[:2]
    flat = samples.reshape(h, w, -1)
    data = bytearray()
    if not interlace:
        for y in range(h):
            data += b'\x00' + pack_row(flat[y].reshape(-1), depth)
    else:
        for x0, y0, dx, dy in ADAM7:
            sub = flat[y0::dy, x0::dx]
            if sub.shape[0] == 0 or sub.shape[1] == 0:
                continue  # an empty pass has no rows at all
            for y in range(sub.shape[0]):
                data += b'\x00' + pack_row(sub[y].reshape(-1), depth)
    ihdr = struct.pack('>IIBBBBB', width or w, height or h, depth, color_type, 0, 0, 1 if interlace else 0)
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) + extra + chunk(b'IDAT', zlib.compress(bytes(data), 9))
            + chunk(b'IEND', b''))


def write(name, blob):
    with open(os.path.join(HERE, name), 'wb') as f:
        f.write(blob)


def pil_save(name, img, **kw):
    img.save(os.path.join(HERE, name), **kw)


expected = {}  # name -> (kind, array)


def ref_torchvision(name, mode=ImageReadMode.UNCHANGED):
    t = read_image(os.path.join(HERE, name), mode)
    assert t.dtype == torch.uint8
    expected[name] = ('u8', t.numpy())


def ref_16(name, chw):
    expected[name] = ('u16', chw)


def check_pil(name, hwc):
    a = np.asarray(Image.open(os.path.join(HERE, name)))
    assert np.array_equal(a.reshape(hwc.shape), hwc), name


H, W = 5, 7
gray8 = rng.randint(0, 256, (H, W)).astype(np.uint8)
rgb8 = rng.randint(0, 256, (H, W, 3)).astype(np.uint8)
rgba8 = rng.randint(0, 256, (H, W, 4)).astype(np.uint8)
rgba8[0, 0, 3] = 0
rgba8[0, 1, 3] = 255

# PNG through Pillow.
pil_save('gray8.png', Image.fromarray(gray8, 'L')); ref_torchvision('gray8.png')
pil_save('gray1.png', Image.fromarray(gray8 > 127)); ref_torchvision('gray1.png')
pil_save('rgb8.png', Image.fromarray(rgb8, 'RGB')); ref_torchvision('rgb8.png')
pil_save('rgba8.png', Image.fromarray(rgba8, 'RGBA')); ref_torchvision('rgba8.png')
pil_save('graya8.png', Image.fromarray(rgba8[:, :, [0, 3]], 'LA')); ref_torchvision('graya8.png')
pal = Image.fromarray(rgb8 // 64 * 64, 'RGB').quantize(colors=16)
# torchvision 0.14's UNCHANGED mode gives one channel for a palette (neither the indices nor the
# colors), so the palette references read as RGB and RGB_ALPHA (equal to Pillow's convert()).
pil_save('palette.png', pal); ref_torchvision('palette.png', ImageReadMode.RGB)
pal_t = pal.copy()
pil_save('palette_trns.png', pal_t, transparency=int(np.asarray(pal)[0, 0])); ref_torchvision('palette_trns.png', ImageReadMode.RGB_ALPHA)
pil_save('rgb_1x1.png', Image.fromarray(rgb8[:1, :1], 'RGB')); ref_torchvision('rgb_1x1.png')
pil_save('gray_1x13.png', Image.fromarray(rng.randint(0, 256, (1, 13)).astype(np.uint8), 'L')); ref_torchvision('gray_1x13.png')
pil_save('rgb_13x1.png', Image.fromarray(rng.randint(0, 256, (13, 1, 3)).astype(np.uint8), 'RGB')); ref_torchvision('rgb_13x1.png')
gray16 = rng.randint(0, 65536, (H, W)).astype(np.uint16)
gray16[0, :4] = [0, 255, 256, 65535]
pil_save('gray16.png', Image.fromarray(gray16))  # mode I;16
check_pil('gray16.png', gray16); ref_16('gray16.png', gray16[None])

# PNG Pillow cannot write (checked against Pillow's reading).
for depth in (2, 4):
    g = rng.randint(0, 1 << depth, (H, W)).astype(np.uint8)
    write('gray%d.png' % depth, raw_png(g[:, :, None], 0, depth))
    scaled = np.asarray(Image.open(os.path.join(HERE, 'gray%d.png' % depth)).convert('L'))
    assert np.array_equal(scaled, (g.astype(int) * 255 // ((1 << depth) - 1)).astype(np.uint8))
    ref_torchvision('gray%d.png' % depth)
rgb16 = rng.randint(0, 65536, (H, W, 3)).astype(np.uint16)
rgb16[0, 0] = [0, 65535, 32768]
write('rgb16.png', raw_png(rgb16, 2, 16)); ref_16('rgb16.png', rgb16.transpose(2, 0, 1))
ga16 = rng.randint(0, 65536, (H, W, 2)).astype(np.uint16)
ga16[:, :, 1] = 65535  # opaque: no compositing question
write('graya16.png', raw_png(ga16, 4, 16)); ref_16('graya16.png', ga16.transpose(2, 0, 1))
big = rng.randint(0, 256, (10, 9, 3)).astype(np.uint8)
write('rgb_adam7.png', raw_png(big, 2, 8, interlace=True)); check_pil('rgb_adam7.png', big); ref_torchvision('rgb_adam7.png')
small = rng.randint(0, 256, (2, 3)).astype(np.uint8)  # passes 2, 3, 5 and 7 are empty
write('gray_adam7_3x2.png', raw_png(small[:, :, None], 0, 8, interlace=True)); check_pil('gray_adam7_3x2.png', small)
ref_torchvision('gray_adam7_3x2.png')
write('gray_adam7_1x1.png', raw_png(small[:1, :1, None], 0, 8, interlace=True)); ref_torchvision('gray_adam7_1x1.png')
# gAMA 1.0 (linear samples): torchvision and Pillow ignore gAMA and return the stored samples.
write('rgb_gama1.png', raw_png(rgb8, 2, 8, extra=chunk(b'gAMA', struct.pack('>I', 100000))))
check_pil('rgb_gama1.png', rgb8); ref_torchvision('rgb_gama1.png')

# JPEG through Pillow (libjpeg in Pillow; torchvision's own libjpeg gives the reference).
smooth = np.zeros((16, 24, 3), np.uint8)
yy, xx = np.mgrid[0:16, 0:24]
smooth[:, :, 0] = xx * 10
smooth[:, :, 1] = yy * 15
smooth[:, :, 2] = 128
pil_save('rgb.jpg', Image.fromarray(smooth), quality=90); ref_torchvision('rgb.jpg')
pil_save('rgb_progressive.jpg', Image.fromarray(smooth), quality=90, progressive=True); ref_torchvision('rgb_progressive.jpg')
pil_save('gray.jpg', Image.fromarray(smooth[:, :, 0]), quality=90); ref_torchvision('gray.jpg')
pil_save('rgb_1x1.jpg', Image.fromarray(smooth[:1, :1]), quality=90); ref_torchvision('rgb_1x1.jpg')
pil_save('rgb_1x13.jpg', Image.fromarray(smooth[:1, :13]), quality=90); ref_torchvision('rgb_1x13.jpg')
pil_save('gray_13x1.jpg', Image.fromarray(smooth[:13, :1, 1].copy()), quality=90); ref_torchvision('gray_13x1.jpg')
# EXIF Orientation 6 (rotate 90 CW to display): torchvision 0.14 ignores it (stored pixels).
exif = Image.Exif()
exif[0x0112] = 6
pil_save('rgb_exif6.jpg', Image.fromarray(smooth[:, :20]), quality=90, exif=exif.tobytes()); ref_torchvision('rgb_exif6.jpg')
# CMYK (Adobe, inverted as Pillow writes it): torchvision 0.14 returns the 4 stored components.
pil_save('cmyk.jpg', Image.fromarray(smooth).convert('CMYK'), quality=90); ref_torchvision('cmyk.jpg')

# Broken headers: huge declared sizes with a few bytes of data.
write('huge.png', raw_png(np.zeros((1, 1, 4), np.uint8), 6, 8, width=60000, height=60000))
write('huge_max.png', raw_png(np.zeros((1, 1, 4), np.uint8), 6, 8, width=1000000, height=1000000))
j = bytearray(open(os.path.join(HERE, 'rgb.jpg'), 'rb').read())
sof = j.index(b'\xff\xc0')
j[sof + 5:sof + 9] = struct.pack('>HH', 65500, 65500)
write('huge.jpg', bytes(j)[:len(j) * 2 // 3])
p = bytearray(open(os.path.join(HERE, 'rgb_progressive.jpg'), 'rb').read())
sof = p.index(b'\xff\xc2')
p[sof + 5:sof + 9] = struct.pack('>HH', 65500, 65500)
write('huge_progressive.jpg', bytes(p))

# Conversions (opts.channels): torchvision 0.14's ImageReadMode GRAY, GRAY_ALPHA, RGB, RGB_ALPHA.
MODES = {1: ImageReadMode.GRAY, 2: ImageReadMode.GRAY_ALPHA, 3: ImageReadMode.RGB, 4: ImageReadMode.RGB_ALPHA}
for name, channels in [('gray8.png', 3), ('gray8.png', 4), ('graya8.png', 1), ('graya8.png', 4), ('rgb8.png', 1),
                       ('rgb8.png', 4), ('rgba8.png', 3), ('rgba8.png', 1), ('palette_trns.png', 3),
                       ('rgb.jpg', 1), ('gray.jpg', 3)]:  # JPEG: GRAY and RGB only
    t = read_image(os.path.join(HERE, name), MODES[channels])
    expected['%s@%d' % (name, channels)] = ('u8', t.numpy())

with open(os.path.join(HERE, 'expected.lua'), 'w') as f:
    f.write('-- Generated by gen.py: reference decodings, channels x height x width, row-major.\n'
            '-- u8: torchvision 0.14 io.read_image (UNCHANGED; RGB, RGB_ALPHA for palettes); u16: the 16-bit samples\n'
            '-- (Pillow 9.4), torchvision 0.14 refuses 16-bit PNGs. name@c: read with c channels\n'
            '-- (torchvision: ImageReadMode GRAY, GRAY_ALPHA, RGB, RGB_ALPHA for c = 1, 2, 3, 4).\nreturn {\n')
    for name in sorted(expected):
        kind, a = expected[name]
        f.write('  [%r] = { kind = %r, shape = { %s }, values = { %s } },\n'
                % (name, kind, ', '.join(str(s) for s in a.shape), ', '.join(str(int(v)) for v in a.reshape(-1))))
    f.write('}\n')
print('ok', len(expected), 'references')
