"""Writes into argv[1] a data set for mpt-run's --data in which the loss
ignores some labels (-100, PyTorch's ignore_index): train_x.npy and
train_y.npy (256 samples, every other label -100), other_x.npy (the same but
the ignored samples' pixels drawn again), and test_x.npy, test_y.npy (128
samples, the first 96 labels -100)."""

import os
import sys

import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(11)


def save(name, array):
    np.save(os.path.join(out, name), array)


x = rng.random((256, 784), dtype=np.float32)
y = rng.integers(0, 10, 256).astype(np.int32)
y[1::2] = -100
other = x.copy()
other[1::2] = rng.random((128, 784), dtype=np.float32)
save("train_x.npy", x)
save("train_y.npy", y)
save("other_x.npy", other)
test_y = rng.integers(0, 10, 128).astype(np.int32)
test_y[:96] = -100
save("test_x.npy", rng.random((128, 784), dtype=np.float32))
save("test_y.npy", test_y)
