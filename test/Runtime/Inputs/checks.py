#!/usr/bin/env python3
"""Numeric checks for the end-to-end tests: accuracy, state identity, scale trajectories.

Each subcommand prints what it compared and exits non-zero with the reason when a check fails.
"""
import argparse
import csv
import json
import math
import struct
import sys


def fail(message):
    print(f"FAILED: {message}")
    sys.exit(1)


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (header_len,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + header_len])
    body = data[8 + header_len:]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        tensors[name] = (info["dtype"], info["shape"], body[begin:end])
    return tensors, header.get("__metadata__", {})


def cmd_accuracy(args):
    finals = []
    for path in args.metrics:
        with open(path) as f:
            accuracy = json.load(f)["test_accuracy"][-1]
        finals.append(accuracy)
        print(f"{path}: test accuracy {accuracy:.4f}")
        if accuracy < args.min:
            fail(f"{path}: test accuracy {accuracy:.4f} < {args.min}")
    spread = max(finals) - min(finals)
    print(f"spread {spread:.4f} (allowed {args.max_diff})")
    if spread > args.max_diff:
        fail(f"accuracies differ by {spread:.4f} > {args.max_diff}")


def cmd_same_state(args):
    a, meta_a = read_safetensors(args.a)
    b, meta_b = read_safetensors(args.b)
    skip = set(filter(None, args.exclude.split(",")))
    if args.common:
        skip |= set(a) ^ set(b)
        a = {k: v for k, v in a.items() if k in b}
        b = {k: v for k, v in b.items() if k in a}
    if set(a) != set(b):
        fail(f"different tensors: {sorted(set(a) ^ set(b))}")
    compared, largest = 0, (0.0, None)
    for name in sorted(a):
        if name in skip:
            continue
        if a[name] != b[name]:
            if args.rtol is None or a[name][:2] != b[name][:2] or a[name][0] not in FLOATS:
                fail(f"tensor '{name}' differs")
            for x, y in zip(floats(a[name]), floats(b[name])):
                bound = args.atol + args.rtol * abs(y)
                if not abs(x - y) <= bound:
                    fail(f"tensor '{name}' differs beyond the tolerance: {x!r} vs {y!r}")
                largest = max(largest, (abs(x - y) / bound, name), key=lambda t: t[0])
        compared += 1
    if args.position and meta_a.get("position") != meta_b.get("position"):
        fail(f"positions differ: {meta_a.get('position')} vs {meta_b.get('position')}")
    if args.rtol is None:
        print(f"{compared} tensors bit-identical")
    else:
        print(f"{compared} tensors within rtol {args.rtol} and atol {args.atol} "
              f"(largest difference {largest[0]:.3f} of the bound, in {largest[1]})")


FLOATS = {"F32": "f", "F16": "e", "BF16": None}


def floats(tensor):
    """The values of an F32, F16 or BF16 tensor as Python floats."""
    dtype, _, data = tensor
    if dtype == "BF16":
        words = struct.unpack(f"<{len(data) // 2}H", data)
        return struct.unpack(f"<{len(words)}f", struct.pack(f"<{len(words)}I", *(w << 16 for w in words)))
    width = struct.calcsize(FLOATS[dtype])
    return struct.unpack(f"<{len(data) // width}{FLOATS[dtype]}", data)


def cmd_integer(args):
    """The value of the I64 scalar tensor `name` of a checkpoint."""
    tensors, _ = read_safetensors(args.path)
    dtype, shape, data = tensors[args.name]
    if dtype != "I64" or shape:
        fail(f"tensor '{args.name}' is {dtype} of shape {shape}, not an I64 scalar")
    print(f"{args.name} = {struct.unpack('<q', data)[0]}")


def cmd_different_state(args):
    a, _ = read_safetensors(args.a)
    b, _ = read_safetensors(args.b)
    if a[args.name] == b[args.name]:
        fail(f"tensor '{args.name}' did not change")
    print(f"tensor '{args.name}' changed")


def cmd_dtype(args):
    tensors, _ = read_safetensors(args.path)
    for name in args.names.split(","):
        dtype = tensors[name][0]
        if dtype != args.dtype:
            fail(f"tensor '{name}' is {dtype}, expected {args.dtype}")
    print(f"{args.names}: {args.dtype}")


def cmd_finite(args):
    """Every float tensor of a checkpoint is finite; prints its position."""
    tensors, metadata = read_safetensors(args.path)
    for name, (dtype, _, data) in tensors.items():
        if dtype != "F32":
            continue
        for index, value in enumerate(struct.unpack(f"<{len(data) // 4}f", data)):
            if not math.isfinite(value):
                fail(f"tensor '{name}' holds {value} at index {index}")
    print(f"position {metadata.get('position')}: finite")


def cmd_resumed(args):
    """A checkpoint holds the position after the last step of one run's
    metrics, and the run resumed from it starts there."""
    def steps(path):
        with open(path) as f:
            return [int(row["step"]) for row in csv.DictReader(f)]
    _, metadata = read_safetensors(args.checkpoint)
    position = int(metadata["position"])
    before, after = steps(args.before), steps(args.after)
    if before[-1] + 1 != position:
        fail(f"{args.before} ends at step {before[-1]}, the checkpoint is at {position}")
    if after[0] != position:
        fail(f"{args.after} starts at step {after[0]}, not at {position}")
    print(f"resumed at position {position}")


def cmd_scale_trajectory(args):
    inject = {int(s) for s in args.inject.split(",") if s}
    with open(args.metrics) as f:
        rows = list(csv.DictReader(f))
    scale, tracker, grown, backed = args.init, 0, 0, 0
    for row in rows:
        step = int(row["step"])
        skipped = int(row["skipped"])
        reported = float(row["loss_scale"])
        # The metric is the scale this step used: init * growth^g * backoff^b.
        closed_form = args.init * args.growth ** grown * args.backoff ** backed
        if reported != scale or reported != closed_form:
            fail(f"step {step}: scale {reported}, expected {closed_form}")
        if skipped != (step in inject):
            fail(f"step {step}: skipped={skipped}, expected {int(step in inject)}")
        if step in inject:
            scale, tracker, backed = max(scale * args.backoff, args.min), 0, backed + 1
        else:
            tracker += 1
            if tracker == args.interval:
                scale, tracker, grown = min(scale * args.growth, args.max), 0, grown + 1
    print(f"{len(rows)} steps: scale follows init*growth^g*backoff^b "
          f"(final g={grown}, b={backed})")


def cmd_skipped(args):
    with open(args.metrics) as f:
        summary = json.load(f)
    steps, skipped = summary["steps"], summary["skipped"]
    losses = [m["loss"] for m in summary["metrics"]]
    print(f"{args.metrics}: {skipped} of {steps} steps skipped, "
          f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")
    if args.all and skipped != steps:
        fail(f"expected every step skipped, got {skipped} of {steps}")
    if args.at_most is not None and skipped > args.at_most:
        fail(f"{skipped} skipped steps > {args.at_most}")
    if args.learns and not losses[-1] < 0.5 * losses[0]:
        fail(f"loss did not halve: {losses[0]} -> {losses[-1]}")


def write_safetensors(path, tensors, metadata):
    """tensors: list of (name, dtype, shape, raw bytes)."""
    header, offset, body = {}, 0, b""
    for name, dtype, shape, data in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        body += data
    if metadata:
        header["__metadata__"] = metadata
    encoded = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(encoded)) + encoded + body)


def read_losses(path):
    with open(path) as f:
        return [float(row["loss"]) for row in csv.DictReader(f)]


def cmd_closer_than(args):
    """Run A's losses differ from B's less than B's differ from a reference
    run (another precision): a change that moves losses less than the
    precision itself does."""
    a, b, reference = (read_losses(p) for p in (args.a, args.b, args.reference))
    if not len(a) == len(b) == len(reference) or not a:
        fail(f"{len(a)}, {len(b)} and {len(reference)} steps")
    change = max(abs(x - y) for x, y in zip(a, b))
    bound = max(abs(y - r) for y, r in zip(b, reference))
    print(f"{len(a)} steps: losses differ by up to {change:.3g}, "
          f"against {bound:.3g} from the reference")
    if not change < bound:
        fail("the losses differ more than the reference's")


def cmd_write_tensor(args):
    """An F32 tensor filled with one value (for --init-state tests)."""
    shape = [int(d) for d in args.shape.split("x")] if args.shape else []
    count = 1
    for d in shape:
        count *= d
    data = struct.pack(f"<{count}f", *([args.value] * count))
    write_safetensors(args.path, [(args.name, "F32", shape, data)], {})


def cmd_write_sparse(args):
    """An F32 vector of `count` zeros whose data is a hole in the file: a file
    of gigabytes that takes no disk."""
    header = json.dumps({args.name: {"dtype": "F32", "shape": [args.count],
                                     "data_offsets": [0, 4 * args.count]}}).encode()
    with open(args.path, "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header)
        f.truncate(8 + len(header) + 4 * args.count)


def cmd_set_metadata(args):
    """Copies a safetensors file with one metadata entry replaced."""
    tensors, metadata = read_safetensors(args.source)
    metadata[args.key] = args.value
    write_safetensors(args.path, [(n, d, s, b) for n, (d, s, b) in tensors.items()],
                      metadata)


PACKED = {"F32": "f", "I64": "q", "I32": "i"}


def cmd_set_tensor(args):
    """Copies a safetensors file with every element of one F32, I64 or I32
    tensor set to `value` (for the tests of loaded state)."""
    tensors, metadata = read_safetensors(args.source)
    dtype, shape, data = tensors[args.name]
    code = PACKED[dtype]
    value = float(args.value) if code == "f" else int(args.value)
    count = len(data) // struct.calcsize(code)
    tensors[args.name] = (dtype, shape, struct.pack(f"<{count}{code}", *([value] * count)))
    write_safetensors(args.path, [(n, d, s, b) for n, (d, s, b) in tensors.items()],
                      metadata)


def cmd_write_idx(args):
    """Fashion-MNIST-format IDX files (train and t10k) of `count` examples
    with labels i % 10 and pixels i % 256."""
    import gzip
    import os
    for split in ("train", "t10k"):
        images = struct.pack(">IIII", 0x803, args.count, 28, 28) + bytes(
            (i % 256) for i in range(args.count * 784))
        labels = struct.pack(">II", 0x801, args.count) + bytes(
            i % 10 for i in range(args.count))
        for kind, data in (("images-idx3", images), ("labels-idx1", labels)):
            with gzip.open(os.path.join(args.dir, f"{split}-{kind}-ubyte.gz"), "wb") as f:
                f.write(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("accuracy")
    p.add_argument("metrics", nargs="+")
    p.add_argument("--min", type=float, required=True)
    p.add_argument("--max-diff", type=float, required=True)
    p.set_defaults(run=cmd_accuracy)
    p = sub.add_parser("same-state")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--exclude", default="")
    p.add_argument("--position", action="store_true")
    p.add_argument("--common", action="store_true",
                   help="compare only the tensors both files hold")
    p.add_argument("--rtol", type=float,
                   help="float tensors may differ by atol + rtol * |b| instead of not at all")
    p.add_argument("--atol", type=float, default=0.0)
    p.set_defaults(run=cmd_same_state)
    p = sub.add_parser("different-state")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("name")
    p.set_defaults(run=cmd_different_state)
    p = sub.add_parser("integer")
    p.add_argument("path")
    p.add_argument("name")
    p.set_defaults(run=cmd_integer)
    p = sub.add_parser("dtype")
    p.add_argument("path")
    p.add_argument("names")
    p.add_argument("dtype")
    p.set_defaults(run=cmd_dtype)
    p = sub.add_parser("finite")
    p.add_argument("path")
    p.set_defaults(run=cmd_finite)
    p = sub.add_parser("resumed")
    p.add_argument("before")
    p.add_argument("checkpoint")
    p.add_argument("after")
    p.set_defaults(run=cmd_resumed)
    p = sub.add_parser("scale-trajectory")
    p.add_argument("metrics")
    p.add_argument("--init", type=float, default=65536.0)
    p.add_argument("--growth", type=float, default=2.0)
    p.add_argument("--backoff", type=float, default=0.5)
    p.add_argument("--interval", type=int, default=2000)
    p.add_argument("--min", type=float, default=1.0)
    p.add_argument("--max", type=float, default=16777216.0)
    p.add_argument("--inject", default="")
    p.set_defaults(run=cmd_scale_trajectory)
    p = sub.add_parser("skipped")
    p.add_argument("metrics")
    p.add_argument("--all", action="store_true")
    p.add_argument("--at-most", type=int)
    p.add_argument("--learns", action="store_true")
    p.set_defaults(run=cmd_skipped)
    p = sub.add_parser("closer-than")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("reference")
    p.set_defaults(run=cmd_closer_than)
    p = sub.add_parser("write-tensor")
    p.add_argument("path")
    p.add_argument("name")
    p.add_argument("shape", help="e.g. 16x8, or '' for a scalar")
    p.add_argument("value", type=float)
    p.set_defaults(run=cmd_write_tensor)
    p = sub.add_parser("write-sparse")
    p.add_argument("path")
    p.add_argument("name")
    p.add_argument("count", type=int)
    p.set_defaults(run=cmd_write_sparse)
    p = sub.add_parser("set-metadata")
    p.add_argument("source")
    p.add_argument("path")
    p.add_argument("key")
    p.add_argument("value")
    p.set_defaults(run=cmd_set_metadata)
    p = sub.add_parser("set-tensor")
    p.add_argument("source")
    p.add_argument("path")
    p.add_argument("name")
    p.add_argument("value", help="a float (nan, inf, -1.5) or an integer")
    p.set_defaults(run=cmd_set_tensor)
    p = sub.add_parser("write-idx")
    p.add_argument("dir")
    p.add_argument("count", type=int)
    p.set_defaults(run=cmd_write_idx)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
