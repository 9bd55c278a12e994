# PIL twin of bench/torch7_image.lua: on the JPEG it wrote (argv[1]), Image.open + convert('RGB'),
# resize to 341x256 and 1000x750 (BILINEAR), a 224x224 crop and transpose(FLIP_LEFT_RIGHT), us per
# call (best of 5 rounds). Run with Debian's python3: /usr/bin/python3 bench/torch7_image_ref.py FILE
import sys, time
from PIL import Image

path = sys.argv[1]


def us(fn, n):
    for _ in range(2):
        fn()
    best = float('inf')
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e6


im = Image.open(path).convert('RGB')
print("load_byte %.2f" % us(lambda: Image.open(path).convert('RGB'), 20))
print("scale_down %.2f" % us(lambda: im.resize((341, 256), Image.BILINEAR), 20))
print("scale_up %.2f" % us(lambda: im.resize((1000, 750), Image.BILINEAR), 10))
print("crop %.2f" % us(lambda: im.crop((50, 50, 274, 274)).load(), 200))
print("hflip %.2f" % us(lambda: im.transpose(Image.FLIP_LEFT_RIGHT), 50))
