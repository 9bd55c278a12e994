# PyTorch twin of bench/torch7_threads.lua: a Dataset of random uint8 3x256x256 images whose
# __getitem__ takes a random 224 crop, flips it half the time and normalizes it per channel as
# floats; DataLoader(batch_size 32, shuffle, num_workers N, persistent workers), images/s; and the
# same samples made in the main process. Run with Debian's python3-torch:
# /usr/bin/python3 bench/torch7_threads_ref.py [batches] [workers]
import sys, time, random, torch

nb = int(sys.argv[1]) if len(sys.argv) > 1 else 24
W = int(sys.argv[2]) if len(sys.argv) > 2 else 2
N, S, C, BS = 256, 256, 224, 32
torch.set_num_threads(1)
torch.manual_seed(0)
images = torch.randint(0, 256, (N, 3, S, S), dtype=torch.uint8)
labels = torch.randint(0, 1000, (N,))
mean = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1) * 255
std = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1) * 255


class Images(torch.utils.data.Dataset):
    def __len__(self):
        return N

    def __getitem__(self, i):
        x, y = random.randint(0, S - C), random.randint(0, S - C)
        crop = images[i, :, y:y + C, x:x + C]
        if random.random() < 0.5:
            crop = crop.flip(2)
        return (crop.float() - mean) / std, labels[i]


def main_process():
    ds = Images()
    collate = torch.utils.data.default_collate
    seen, t0 = 0, time.perf_counter()
    for _ in range(max(2, nb // 4)):
        batch = collate([ds[random.randrange(N)] for _ in range(BS)])
        seen += batch[0].shape[0]
    return seen / (time.perf_counter() - t0)


def loader():
    dl = torch.utils.data.DataLoader(Images(), batch_size=BS, shuffle=True, drop_last=True, num_workers=W,
                                     persistent_workers=W > 0)
    for _ in dl:  # starts the workers; not timed
        pass
    seen, t0 = 0, time.perf_counter()
    while seen < nb * BS:
        for x, _ in dl:
            seen += x.shape[0]
            if seen >= nb * BS:
                break
    return seen / (time.perf_counter() - t0)


if __name__ == '__main__':
    print("pytorch_main %.1f" % main_process())
    print("pytorch_dataloader %.1f" % loader())
