# PyTorch twin of bench/cuda_train.lua: one SGD step of each case of bench/cuda_models.py, eager
# mode, on the GPU. Prints "<name>_step <ms/step>", then the CNN with cudnn.benchmark on as cnn_bm.
from gpu_timing import best_ms  # bench/ is on sys.path as the script's folder
from cuda_models import cases

import torch

for name, steps, step in cases():
    print('%s_step %.6f' % (name, best_ms(step, steps, warm=3)), flush=True)
torch.backends.cudnn.benchmark = True
for name, steps, step in cases():
    if name == 'cnn':
        print('cnn_bm_step %.6f' % best_ms(step, steps, warm=3), flush=True)
