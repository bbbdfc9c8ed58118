"""Writes one small random 28x28 data set three ways into the directory argv[1]:
Fashion-MNIST's gzip'd IDX files (idx/), .npy files as mpt-run's --data reads
them (pixels / 255 as f32, labels as i32; also as f64 and i64, which mpt-run
converts exactly), a safetensors file of both, and files that are wrong in one
way each."""

import gzip
import json
import os
import struct
import sys

import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(7)
os.makedirs(os.path.join(out, "idx"), exist_ok=True)


def write_idx(prefix, images, labels):
    with gzip.open(os.path.join(out, "idx", prefix + "-images-idx3-ubyte.gz"), "wb") as f:
        f.write(struct.pack(">IIII", 0x803, len(images), 28, 28) + images.tobytes())
    with gzip.open(os.path.join(out, "idx", prefix + "-labels-idx1-ubyte.gz"), "wb") as f:
        f.write(struct.pack(">II", 0x801, len(labels)) + labels.tobytes())


def write_safetensors(path, tensors):
    header, data = {}, b""
    for name, (dtype, array) in tensors.items():
        raw = array.tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


for split, prefix, count in (("train", "train", 256), ("test", "t10k", 128)):
    pixels = rng.integers(0, 256, size=(count, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, size=count, dtype=np.uint8)
    write_idx(prefix, pixels, labels)
    # As loadIdxDataset makes them: f32 division by 255.
    x = pixels.reshape(count, 784).astype(np.float32) / np.float32(255)
    y = labels.astype(np.int32)
    np.save(os.path.join(out, split + "_x.npy"), x)
    np.save(os.path.join(out, split + "_y.npy"), y)
    np.save(os.path.join(out, split + "_x64.npy"), x.astype(np.float64))
    np.save(os.path.join(out, split + "_y64.npy"), y.astype(np.int64))
    write_safetensors(os.path.join(out, split + ".safetensors"),
                      {"x": ("F32", x), "y": ("I64", y.astype(np.int64))})
    if split == "train":
        np.save(os.path.join(out, "images_28x28.npy"), x.reshape(count, 28, 28))
        np.save(os.path.join(out, "pixels_u8.npy"), pixels.reshape(count, 784))
        np.save(os.path.join(out, "fortran_x.npy"), np.asfortranarray(x))
        np.save(os.path.join(out, "big_endian_x.npy"), x.astype(">f4"))
        np.save(os.path.join(out, "float_y.npy"), y.astype(np.float32))
        np.save(os.path.join(out, "short_y.npy"), y[:200])
        bad = y.copy()
        bad[5] = 10
        np.save(os.path.join(out, "class10_y.npy"), bad)
        with open(os.path.join(out, "train_x.npy"), "rb") as f:
            whole = f.read()
        with open(os.path.join(out, "truncated_x.npy"), "wb") as f:
            f.write(whole[:-4])
