#!/usr/bin/env python3
"""Initial weights and loss comparison for the step-for-step PyTorch reference.

  reference.py weights MODEL OUT.safetensors
      Writes the parameters of examples/MODEL.mlir (mlp or cnn_bn) in mpt's
      layout (matmul weights [in, out]), drawn uniformly in PyTorch's default
      bounds (+-1/sqrt(fan_in) of the layer, from the forward use) from a
      fixed splitmix64 stream: deterministic, pure Python, no torch. Batch-norm
      scales and shifts are drawn around 1 and 0 rather than set to them, so
      that swapping the two, or a wrong channel, shows in the losses.
  reference.py close-state A.safetensors B.safetensors --rtol R
      Every F32 tensor of A is within R of B's, relative to B's largest
      magnitude in that tensor; prints the largest such difference.
  reference.py compare GOLDEN.txt METRICS.csv --rtol R
      Compares the per-step losses of mpt-run --metrics-csv with the golden
      ones (one per line, written by pytorch_reference.py) and prints the
      largest relative difference; fails above R.
"""
import array
import csv
import json
import math
import sys

# name -> (shape, low, high); bounds as nn.Linear / nn.Conv2d reset_parameters.
def _uniform(fan_in):
    bound = 1.0 / math.sqrt(fan_in)
    return (-bound, bound)

MODELS = {
    "mlp": [
        ("w1", [784, 256], _uniform(784)), ("b1", [256], _uniform(784)),
        ("w2", [256, 128], _uniform(256)), ("b2", [128], _uniform(256)),
        ("w3", [128, 10], _uniform(128)), ("b3", [10], _uniform(128)),
    ],
    "cnn_bn": [
        ("wc1", [8, 1, 3, 3], _uniform(9)), ("g1", [8], (0.5, 1.5)),
        ("be1", [8], (-0.5, 0.5)),
        ("wc2", [16, 8, 3, 3], _uniform(72)), ("g2", [16], (0.5, 1.5)),
        ("be2", [16], (-0.5, 0.5)),
        ("wf", [784, 10], _uniform(784)), ("bf", [10], _uniform(784)),
    ],
}


def splitmix64(state):
    mask = (1 << 64) - 1
    while True:
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        yield z ^ (z >> 31)


def make_weights(model):
    """name -> (shape, array('f')) in mpt's layout."""
    stream = splitmix64(0x6D7074)
    tensors = {}
    for name, shape, (low, high) in MODELS[model]:
        count = math.prod(shape)
        values = array.array("f", (
            low + (high - low) * ((next(stream) >> 11) * 2.0**-53)
            for _ in range(count)))
        tensors[name] = (shape, values)
    return tensors


def write_safetensors(path, tensors):
    header, offset = {}, 0
    for name, (shape, values) in tensors.items():
        size = len(values) * 4
        header[name] = {"dtype": "F32", "shape": shape,
                        "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        for _, values in tensors.values():
            if sys.byteorder != "little":
                values = array.array("f", values)
                values.byteswap()
            f.write(values.tobytes())


def read_safetensors(path):
    """name -> list of floats, for the F32 tensors of a safetensors file."""
    with open(path, "rb") as f:
        data = f.read()
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + size])
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__" or entry["dtype"] != "F32":
            continue
        begin, end = entry["data_offsets"]
        values = array.array("f")
        values.frombytes(data[8 + size + begin:8 + size + end])
        if sys.byteorder != "little":
            values.byteswap()
        tensors[name] = values
    return tensors


def close_state(path_a, path_b, rtol):
    a, b = read_safetensors(path_a), read_safetensors(path_b)
    if sorted(a) != sorted(b):
        sys.exit(f"different tensors: {sorted(a)} and {sorted(b)}")
    largest, worst = 0.0, ""
    for name in sorted(a):
        scale = max(abs(v) for v in b[name]) or 1.0
        error = max(abs(x - y) for x, y in zip(a[name], b[name])) / scale
        if not error <= largest:
            largest, worst = error, name
    print(f"{len(a)} tensors: largest relative difference {largest:.1e} "
          f"({worst})")
    if not largest <= rtol:
        sys.exit(f"above the tolerance {rtol:g}")


def compare(golden_path, metrics_path, rtol):
    with open(golden_path) as f:
        golden = [float(line) for line in f
                  if line.strip() and not line.startswith("#")]
    with open(metrics_path) as f:
        losses = [float(row["loss"]) for row in csv.DictReader(f)]
    if len(losses) != len(golden):
        sys.exit(f"expected {len(golden)} steps, got {len(losses)}")
    largest, worst = 0.0, 0
    for step, (loss, expected) in enumerate(zip(losses, golden)):
        error = abs(loss - expected) / abs(expected)
        if not error <= largest:
            largest, worst = error, step
    print(f"{len(losses)} steps: largest relative difference {largest:.1e} "
          f"(step {worst}: mpt {losses[worst]:.9g}, "
          f"PyTorch {golden[worst]:.9g})")
    if not largest <= rtol:
        sys.exit(f"above the tolerance {rtol:g}")


def main():
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "weights" and len(sys.argv) == 4:
        write_safetensors(sys.argv[3], make_weights(sys.argv[2]))
    elif (command in ("compare", "close-state") and len(sys.argv) == 6
          and sys.argv[4] == "--rtol"):
        (compare if command == "compare" else close_state)(
            sys.argv[2], sys.argv[3], float(sys.argv[5]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
