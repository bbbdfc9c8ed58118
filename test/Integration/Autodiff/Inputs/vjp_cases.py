#!/usr/bin/env python3
"""Writes the module of the random-projection VJP check of every
differentiation rule (see ../rules.test), or checks its output.

`gen PREFIX`: for each rule, a forward-only step `@case_<name>` whose loss is
<c, f(params)> with a fixed random weighting c, marked for mpt-autodiff with
SGD lr = 1 (so the update is params - gradient), and a @main that, for random
params x and a random direction t (for all params at once), prints
  vjp = <gradient(x), t>  and  fd = (L(x + eps t) - L(x - eps t)) / (2 eps).
Inputs avoid kinks: relu and max inputs at least 0.2 from a tie, max-pool
windows without near-ties, log/sqrt/rsqrt/div away from 0.

`check`: reads the printed pairs and compares them; `check-one NAME` the one
pair of a rule checked by its own test.
"""
import math
import random
import re
import sys

EPS = 1e-2


def shape_str(shape):
    return "x".join(str(d) for d in shape) + "xf32" if shape else "f32"


def ttype(shape):
    return f"tensor<{shape_str(shape)}>"


def nested(values, shape):
    if not shape:
        return f"{values[0]:.6e}"
    step = numel(shape[1:])
    return "[" + ", ".join(nested(values[i * step:(i + 1) * step], shape[1:])
                           for i in range(shape[0])) + "]"


def dense(values, shape):
    return f"dense<{nested(values, shape)}> : {ttype(shape)}"


def numel(shape):
    return math.prod(shape) if shape else 1


def values(rng, kind, n):
    if kind == "normal":
        return [rng.gauss(0.0, 1.0) for _ in range(n)]
    if kind == "away0":  # |x| in [0.2, 1.5]
        return [rng.choice([-1, 1]) * rng.uniform(0.2, 1.5) for _ in range(n)]
    if kind == "positive":
        return [rng.uniform(0.5, 2.0) for _ in range(n)]
    if kind == "distinct":  # all values at least 0.1 apart
        steps = list(range(n))
        rng.shuffle(steps)
        return [0.1 * s - 0.05 * n for s in steps]
    raise ValueError(kind)


# name -> (params [(shape, kind)], body, output shape). The body reads %p0, %p1,
# ... and defines %out.
CASES = [
    ("matmul", [([3, 4], "normal"), ([4, 5], "normal")],
     "%out = mpt.matmul %p0, %p1 : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<3x5xf32>", [3, 5]),
    ("matmul_ta", [([4, 3], "normal"), ([4, 5], "normal")],
     "%out = mpt.matmul %p0, %p1 {transpose_a} : tensor<4x3xf32>, tensor<4x5xf32> -> tensor<3x5xf32>", [3, 5]),
    ("matmul_tb", [([3, 4], "normal"), ([5, 4], "normal")],
     "%out = mpt.matmul %p0, %p1 {transpose_b} : tensor<3x4xf32>, tensor<5x4xf32> -> tensor<3x5xf32>", [3, 5]),
    ("matmul_ta_tb", [([4, 3], "normal"), ([5, 4], "normal")],
     "%out = mpt.matmul %p0, %p1 {transpose_a, transpose_b} : tensor<4x3xf32>, tensor<5x4xf32> -> tensor<3x5xf32>", [3, 5]),
    ("matmul_batched", [([2, 3, 4], "normal"), ([2, 5, 4], "normal")],
     "%out = mpt.matmul %p0, %p1 {transpose_b} : tensor<2x3x4xf32>, tensor<2x5x4xf32> -> tensor<2x3x5xf32>", [2, 3, 5]),
    ("bias_add", [([3, 4], "normal"), ([4], "normal")],
     "%out = mpt.bias_add %p0, %p1 : tensor<3x4xf32>, tensor<4xf32>", [3, 4]),
    ("bias_add_axis1", [([2, 3, 2, 2], "normal"), ([3], "normal")],
     "%out = mpt.bias_add %p0, %p1 {axis = 1} : tensor<2x3x2x2xf32>, tensor<3xf32>", [2, 3, 2, 2]),
    ("relu", [([3, 4], "away0")],
     "%out = mpt.relu %p0 : tensor<3x4xf32>", [3, 4]),
    ("gelu", [([3, 4], "normal")],
     "%out = mpt.gelu %p0 : tensor<3x4xf32>", [3, 4]),
    ("gelu_tanh", [([3, 4], "normal")],
     "%out = mpt.gelu %p0 {approximate} : tensor<3x4xf32>", [3, 4]),
    ("conv2d", [([2, 2, 5, 5], "normal"), ([3, 2, 3, 3], "normal")],
     "%out = mpt.conv2d %p0, %p1 {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} "
     ": tensor<2x2x5x5xf32>, tensor<3x2x3x3xf32> -> tensor<2x3x3x3xf32>", [2, 3, 3, 3]),
    ("max_pool2d", [([1, 2, 4, 4], "distinct")],
     "%out = mpt.max_pool2d %p0 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} "
     ": tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>", [1, 2, 2, 2]),
    ("batch_norm", [([2, 3, 2, 2], "normal"), ([3], "positive"), ([3], "normal")],
     "%rm = arith.constant dense<0.0> : tensor<3xf32>\n"
     "  %rv = arith.constant dense<1.0> : tensor<3xf32>\n"
     "  %out, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %p0, %p1, %p2, %rm, %rv "
     ": tensor<2x3x2x2xf32>, tensor<3xf32>", [2, 3, 2, 2]),
    ("layer_norm", [([3, 4], "normal"), ([4], "positive"), ([4], "normal")],
     "%out, %mean, %invstd = mpt.layer_norm %p0, %p1, %p2 : tensor<3x4xf32>, tensor<4xf32> -> tensor<3xf32>",
     [3, 4]),
    ("softmax", [([3, 4], "normal")],
     "%out = mpt.softmax %p0 : tensor<3x4xf32>", [3, 4]),
    ("softmax_cross_entropy", [([3, 4], "normal")],
     "%labels = arith.constant dense<[2, 0, 3]> : tensor<3xi32>\n"
     "  %out = mpt.softmax_cross_entropy %p0, %labels : tensor<3x4xf32>, tensor<3xi32>", []),
    ("reshape", [([3, 4], "normal")],
     "%r = mpt.reshape %p0 : tensor<3x4xf32> -> tensor<2x6xf32>\n"
     "  %out = arith.mulf %r, %r : tensor<2x6xf32>", [2, 6]),
    ("transpose", [([2, 3, 4], "normal")],
     "%r = mpt.transpose %p0 [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>\n"
     "  %out = arith.mulf %r, %r : tensor<4x2x3xf32>", [4, 2, 3]),
    ("reduce_sum", [([2, 3, 4], "normal")],
     "%r = mpt.reduce_sum %p0 [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>\n"
     "  %out = arith.mulf %r, %r : tensor<2x4xf32>", [2, 4]),
    ("reduce_sum_keep_dims", [([2, 3, 4], "normal")],
     "%r = mpt.reduce_sum %p0 [0, 2] {keep_dims} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>\n"
     "  %out = arith.mulf %r, %r : tensor<1x3x1xf32>", [1, 3, 1]),
    ("broadcast", [([3], "normal"), ([2, 3, 4], "normal")],
     "%r = mpt.broadcast %p0 [0, 2] : tensor<3xf32> -> tensor<2x3x4xf32>\n"
     "  %out = arith.mulf %r, %p1 : tensor<2x3x4xf32>", [2, 3, 4]),
    ("addf", [([6], "normal"), ([6], "normal")],
     "%s = arith.addf %p0, %p1 : tensor<6xf32>\n  %out = arith.mulf %s, %s : tensor<6xf32>", [6]),
    ("subf", [([6], "normal"), ([6], "normal")],
     "%s = arith.subf %p0, %p1 : tensor<6xf32>\n  %out = arith.mulf %s, %p0 : tensor<6xf32>", [6]),
    ("mulf", [([6], "normal"), ([6], "normal")],
     "%out = arith.mulf %p0, %p1 : tensor<6xf32>", [6]),
    ("divf", [([6], "normal"), ([6], "positive")],
     "%out = arith.divf %p0, %p1 : tensor<6xf32>", [6]),
    ("negf", [([6], "normal")],
     "%n = arith.negf %p0 : tensor<6xf32>\n  %out = arith.mulf %n, %p0 : tensor<6xf32>", [6]),
    ("exp", [([6], "normal")], "%out = math.exp %p0 : tensor<6xf32>", [6]),
    ("log", [([6], "positive")], "%out = math.log %p0 : tensor<6xf32>", [6]),
    ("sqrt", [([6], "positive")], "%out = math.sqrt %p0 : tensor<6xf32>", [6]),
    ("rsqrt", [([6], "positive")], "%out = math.rsqrt %p0 : tensor<6xf32>", [6]),
    ("tanh", [([6], "normal")], "%out = math.tanh %p0 : tensor<6xf32>", [6]),
    ("maximumf", [([6], "away0")],
     "%z = arith.constant dense<0.0> : tensor<6xf32>\n  %m = arith.maximumf %p0, %z : tensor<6xf32>\n"
     "  %out = arith.mulf %m, %p0 : tensor<6xf32>", [6]),
    ("minimumf", [([6], "away0")],
     "%z = arith.constant dense<0.0> : tensor<6xf32>\n  %m = arith.minimumf %z, %p0 : tensor<6xf32>\n"
     "  %out = arith.mulf %m, %p0 : tensor<6xf32>", [6]),
    ("select", [([4], "normal"), ([4], "normal")],
     "%cond = arith.constant dense<[true, false, false, true]> : tensor<4xi1>\n"
     "  %s = arith.select %cond, %p0, %p1 : tensor<4xi1>, tensor<4xf32>\n  %out = arith.mulf %s, %s : tensor<4xf32>", [4]),
    ("sigmoid", [([3, 4], "normal")], "%out = mpt.sigmoid %p0 : tensor<3x4xf32>", [3, 4]),
    ("mpt_tanh", [([3, 4], "normal")], "%out = mpt.tanh %p0 : tensor<3x4xf32>", [3, 4]),
    ("silu", [([3, 4], "normal")], "%out = mpt.silu %p0 : tensor<3x4xf32>", [3, 4]),
    # Repeated ids: the table's gradient sums their rows; row 2 of 5 unread.
    ("embedding", [([5, 3], "normal")],
     "%ids = arith.constant dense<[[4, 0, 4, 3], [1, 4, 0, 3]]> : tensor<2x4xi32>\n"
     "  %out = mpt.embedding %p0, %ids : tensor<5x3xf32>, tensor<2x4xi32> -> tensor<2x4x3xf32>",
     [2, 4, 3]),
    # A slice's gradient is zeros with it inserted: a block, every other
    # column (stride 2), a rank-reducing row (x[:, 0] of PyTorch), and two
    # overlapping slices of one tensor, whose gradients add.
    ("extract_slice", [([4, 5], "normal")],
     "%out = tensor.extract_slice %p0[1, 2] [2, 3] [1, 1] : tensor<4x5xf32> to tensor<2x3xf32>",
     [2, 3]),
    ("extract_slice_strided", [([4, 6], "normal")],
     "%out = tensor.extract_slice %p0[0, 1] [4, 3] [1, 2] : tensor<4x6xf32> to tensor<4x3xf32>",
     [4, 3]),
    ("extract_slice_rank_reducing", [([3, 4, 2], "normal")],
     "%out = tensor.extract_slice %p0[0, 1, 0] [3, 1, 2] [1, 1, 1] : tensor<3x4x2xf32> to tensor<3x2xf32>",
     [3, 2]),
    ("extract_slice_twice", [([4, 4], "normal")],
     "%a = tensor.extract_slice %p0[0, 0] [3, 4] [1, 1] : tensor<4x4xf32> to tensor<3x4xf32>\n"
     "  %b = tensor.extract_slice %p0[1, 0] [3, 4] [1, 1] : tensor<4x4xf32> to tensor<3x4xf32>\n"
     "  %out = arith.mulf %a, %b : tensor<3x4xf32>", [3, 4]),
    # Each operand's gradient is its slice of the result's.
    ("concat", [([2, 3], "normal"), ([2, 2], "normal")],
     "%j = tensor.concat dim(1) %p0, %p1, %p0 : (tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x8xf32>\n"
     "  %out = arith.mulf %j, %j : tensor<2x8xf32>", [2, 8]),
    # Both operands take a gradient: the target's is the input's negated.
    ("mse_loss", [([3, 4], "normal"), ([3, 4], "normal")],
     "%out = mpt.mse_loss %p0, %p1 : tensor<3x4xf32>", []),
    # Groups neither 1 nor the channels, fewer filters than channels, a
    # non-square window; depthwise with dilation; average pooling with the
    # padding in and out of the divisor.
    ("conv2d_grouped", [([2, 6, 5, 4], "normal"), ([4, 3, 3, 2], "normal")],
     "%out = mpt.conv2d %p0, %p1 {strides = array<i64: 2, 1>, padding = array<i64: 1, 0>, groups = 2 : i64} "
     ": tensor<2x6x5x4xf32>, tensor<4x3x3x2xf32> -> tensor<2x4x3x3xf32>", [2, 4, 3, 3]),
    ("conv2d_depthwise", [([2, 3, 5, 5], "normal"), ([3, 1, 3, 3], "normal")],
     "%out = mpt.conv2d %p0, %p1 {padding = array<i64: 1, 1>, dilations = array<i64: 2, 2>, groups = 3 : i64} "
     ": tensor<2x3x5x5xf32>, tensor<3x1x3x3xf32> -> tensor<2x3x3x3xf32>", [2, 3, 3, 3]),
    ("avg_pool2d", [([1, 2, 5, 4], "normal")],
     "%out = mpt.avg_pool2d %p0 {kernel = array<i64: 3, 2>, strides = array<i64: 2, 1>, padding = array<i64: 1, 1>} "
     ": tensor<1x2x5x4xf32> -> tensor<1x2x3x5xf32>", [1, 2, 3, 5]),
    ("avg_pool2d_exclude_pad", [([1, 2, 5, 4], "normal")],
     "%out = mpt.avg_pool2d %p0 {kernel = array<i64: 3, 2>, strides = array<i64: 2, 1>, padding = array<i64: 1, 1>, "
     "count_include_pad = false} : tensor<1x2x5x4xf32> -> tensor<1x2x3x5xf32>", [1, 2, 3, 5]),
    ("softmax_cross_entropy_smoothed_ignoring", [([4, 5], "normal")],
     "%labels = arith.constant dense<[2, -100, 4, 0]> : tensor<4xi64>\n"
     "  %out = mpt.softmax_cross_entropy %p0, %labels {label_smoothing = 0.3, ignore_index = -100}"
     " : tensor<4x5xf32>, tensor<4xi64>", []),
    ("softmax_cross_entropy_ignoring_a_class", [([4, 5], "normal")],
     "%labels = arith.constant dense<[1, 3, 1, 0]> : tensor<4xi32>\n"
     "  %out = mpt.softmax_cross_entropy %p0, %labels {ignore_index = 1} : tensor<4x5xf32>, tensor<4xi32>", []),
]


def gen(prefix):
    """Writes, per case, a module with its training step (<prefix>.<case>.steps.mlir)
    and the @main that calls it (<prefix>.<case>.main.mlir), and the case names in
    order (<prefix>.cases). A module holds one training step, so each case is run
    on its own."""
    rng = random.Random(20261130)
    for name, params, body, oshape in CASES:
        out = []
        main = ["func.func private @printMemrefF32(tensor<*xf32>)", "", "func.func @main() {",
                f"  %eps = arith.constant dense<{EPS:e}> : tensor<f32>",
                f"  %inv2eps = arith.constant dense<{1 / (2 * EPS):e}> : tensor<f32>"]
        ptypes = [ttype(s) for s, _ in params]
        args = ", ".join(f"%p{i}: {t} {{mpt.param}}" for i, t in enumerate(ptypes))
        c = [rng.uniform(-1.0, 1.0) for _ in range(numel(oshape))]
        rank = len(oshape)
        out += [f"func.func @case_{name}({args}) -> (tensor<f32> {{mpt.metric = \"loss\"}})",
                "    attributes {mpt.train_step, mpt.optimizer = {kind = \"sgd\", lr = 1.0 : f32}} {",
                f"  {body}",
                f"  %c = arith.constant {dense(c, oshape)}",
                f"  %w = arith.mulf %out, %c : {ttype(oshape)}"]
        if rank:
            out.append(f"  %loss = mpt.reduce_sum %w [{', '.join(map(str, range(rank)))}] : {ttype(oshape)} -> tensor<f32>")
        else:
            out.append("  %loss = arith.addf %w, %w : tensor<f32>")
        out += ["  return %loss : tensor<f32>", "}", ""]

        ret = "(" + ", ".join(["tensor<f32>"] + ptypes) + ")"
        sig = "(" + ", ".join(ptypes) + ")"
        xs, ts = [], []
        for i, (shape, kind) in enumerate(params):
            n = numel(shape)
            main.append(f"  %{name}_x{i} = arith.constant {dense(values(rng, kind, n), shape)}")
            main.append(f"  %{name}_t{i} = arith.constant {dense([rng.gauss(0, 1) for _ in range(n)], shape)}")
            xs.append(f"%{name}_x{i}")
            ts.append(f"%{name}_t{i}")
        main.append(f"  %{name}_r:{len(params) + 1} = call @case_{name}({', '.join(xs)}) : {sig} -> {ret}")
        # <gradient, t> with gradient = x - x' (SGD with lr 1).
        main.append(f"  %{name}_vjp0 = arith.constant dense<0.0> : tensor<f32>")
        plus, minus = [], []
        for i, (shape, _) in enumerate(params):
            t = ttype(shape)
            dims = ", ".join(map(str, range(len(shape))))
            main += [f"  %{name}_g{i} = arith.subf {xs[i]}, %{name}_r#{i + 1} : {t}",
                     f"  %{name}_gt{i} = arith.mulf %{name}_g{i}, {ts[i]} : {t}",
                     f"  %{name}_s{i} = mpt.reduce_sum %{name}_gt{i} [{dims}] : {t} -> tensor<f32>",
                     f"  %{name}_vjp{i + 1} = arith.addf %{name}_vjp{i}, %{name}_s{i} : tensor<f32>",
                     f"  %{name}_et{i} = mpt.broadcast %eps [{dims}] : tensor<f32> -> {t}",
                     f"  %{name}_d{i} = arith.mulf %{name}_et{i}, {ts[i]} : {t}",
                     f"  %{name}_xp{i} = arith.addf {xs[i]}, %{name}_d{i} : {t}",
                     f"  %{name}_xm{i} = arith.subf {xs[i]}, %{name}_d{i} : {t}"]
            plus.append(f"%{name}_xp{i}")
            minus.append(f"%{name}_xm{i}")
        main += [f"  %{name}_rp:{len(params) + 1} = call @case_{name}({', '.join(plus)}) : {sig} -> {ret}",
                 f"  %{name}_rm:{len(params) + 1} = call @case_{name}({', '.join(minus)}) : {sig} -> {ret}",
                 f"  %{name}_dl = arith.subf %{name}_rp#0, %{name}_rm#0 : tensor<f32>",
                 f"  %{name}_fd = arith.mulf %{name}_dl, %inv2eps : tensor<f32>",
                 f"  %{name}_pv = tensor.cast %{name}_vjp{len(params)} : tensor<f32> to tensor<*xf32>",
                 f"  call @printMemrefF32(%{name}_pv) : (tensor<*xf32>) -> ()",
                 f"  %{name}_pf = tensor.cast %{name}_fd : tensor<f32> to tensor<*xf32>",
                 f"  call @printMemrefF32(%{name}_pf) : (tensor<*xf32>) -> ()"]
        main += ["  return", "}"]
        # Two files: the step goes through mpt-autodiff first, since @main
        # calls it with the signature the pass gives it.
        with open(f"{prefix}.{name}.steps.mlir", "w") as f:
            f.write("\n".join(out) + "\n")
        with open(f"{prefix}.{name}.main.mlir", "w") as f:
            f.write("\n".join(main) + "\n")
    with open(prefix + ".cases", "w") as f:
        f.write("\n".join(name for name, *_ in CASES) + "\n")


def check(names, rtol, atol):
    """Compares the printed pairs (vjp, fd) of the rules `names`, in order."""
    numbers = [float(m) for m in re.findall(r"^\[?\s*([-+0-9.eE]+|-?nan|-?inf)\s*\]?$",
                                            sys.stdin.read(), re.M)]
    numbers = [float(line) for line in numbers]
    if len(numbers) != 2 * len(names):
        sys.exit(f"FAILED: expected {2 * len(names)} numbers, got {len(numbers)}")
    worst = 0.0
    failed = []
    for name, vjp, fd in zip(names, numbers[0::2], numbers[1::2]):
        err = abs(vjp - fd) / max(abs(vjp), abs(fd), atol)
        worst = max(worst, err)
        status = "ok" if err <= rtol and math.isfinite(vjp) else "FAILED"
        if status != "ok":
            failed.append(name)
        print(f"{status} {name}: vjp {vjp:.6g} fd {fd:.6g} relative error {err:.2e}")
    print(f"{len(names) - len(failed)} of {len(names)} rules match finite differences")
    print(f"largest relative error {worst:.2e}")
    if failed:
        sys.exit(f"FAILED: {', '.join(failed)}")


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    elif sys.argv[1] == "check":
        check([name for name, *_ in CASES], float(sys.argv[2]), float(sys.argv[3]))
    else:  # check-one NAME: one pair printed by a case written elsewhere
        check([sys.argv[2]], float(sys.argv[3]), float(sys.argv[4]))
