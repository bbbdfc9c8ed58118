#!/usr/bin/env python3
"""Times mpt-mixed-precision on generated N-layer MLP training steps.

Prints the pipeline time at 1000 layers, the 2000/1000 ratio (linear scaling is 2.0;
the target is at most 2.2 and under 1 s at 1000 layers), and, as a reference measured in the
same run, the time mpt-opt needs just to parse, verify and print the same graphs.

Then times the full CPU lowering (mpt-mixed-precision + mpt-lower-to-cpu with the BLAS kernels,
as mpt-run compiles) of examples/transformer_block.mlir, FP32 and f16 mixed, next to parsing it.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time


def mlp_step(layers, width=64, batch=32, classes=10):
    """An FP32 training step: `layers` ReLU layers of `width`, softmax cross-entropy, SGD."""
    ft = lambda *shape: "tensor<" + "x".join(map(str, shape)) + "xf32>"
    args, results, body, rets = [], [], [], []
    for i in range(layers):
        args.append(f"%w{i}: {ft(width, width)} {{mpt.param}}")
        args.append(f"%b{i}: {ft(width)} {{mpt.param}}")
    args.append(f"%wo: {ft(width, classes)} {{mpt.param}}")
    args.append(f"%x: {ft(batch, width)} {{mpt.data}}")
    args.append(f"%y: tensor<{batch}xi32> {{mpt.data}}")
    h = "%x"
    for i in range(layers):
        body.append(f"%m{i} = mpt.matmul {h}, %w{i} : {ft(batch, width)}, {ft(width, width)} -> {ft(batch, width)}")
        body.append(f"%z{i} = mpt.bias_add %m{i}, %b{i} : {ft(batch, width)}, {ft(width)}")
        body.append(f"%a{i} = mpt.relu %z{i} : {ft(batch, width)}")
        h = f"%a{i}"
    body.append(f"%o = mpt.matmul {h}, %wo : {ft(batch, width)}, {ft(width, classes)} -> {ft(batch, classes)}")
    body.append(f"%loss = mpt.softmax_cross_entropy %o, %y : {ft(batch, classes)}, tensor<{batch}xi32>")
    body.append("%seed = mpt.loss_grad %loss")
    body.append(f"%do = mpt.softmax_cross_entropy_grad %seed, %o, %y : {ft(batch, classes)}, tensor<{batch}xi32>")
    body.append(f"%dwo = mpt.matmul {h}, %do {{transpose_a}} : {ft(batch, width)}, {ft(batch, classes)} -> {ft(width, classes)}")
    body.append(f"%wo2 = mpt.sgd %wo, %dwo {{lr = 0.01 : f32}} : {ft(width, classes)}")
    body.append(f"%da{layers - 1} = mpt.matmul %do, %wo {{transpose_b}} : {ft(batch, classes)}, {ft(width, classes)} -> {ft(batch, width)}")
    for i in reversed(range(layers)):
        inp = "%x" if i == 0 else f"%a{i - 1}"
        body.append(f"%dz{i} = mpt.relu_grad %da{i}, %z{i} : {ft(batch, width)}")
        body.append(f"%dw{i} = mpt.matmul {inp}, %dz{i} {{transpose_a}} : {ft(batch, width)}, {ft(batch, width)} -> {ft(width, width)}")
        body.append(f"%db{i} = mpt.reduce_sum %dz{i} [0] : {ft(batch, width)} -> {ft(width)}")
        if i > 0:
            body.append(f"%da{i - 1} = mpt.matmul %dz{i}, %w{i} {{transpose_b}} : {ft(batch, width)}, {ft(width, width)} -> {ft(batch, width)}")
        body.append(f"%w{i}n = mpt.sgd %w{i}, %dw{i} {{lr = 0.01 : f32}} : {ft(width, width)}")
        body.append(f"%b{i}n = mpt.sgd %b{i}, %db{i} {{lr = 0.01 : f32}} : {ft(width)}")
    for i in range(layers):
        results += [f"{ft(width, width)} {{mpt.next = {2 * i}}}", f"{ft(width)} {{mpt.next = {2 * i + 1}}}"]
        rets += [(f"%w{i}n", ft(width, width)), (f"%b{i}n", ft(width))]
    results.append(f"{ft(width, classes)} {{mpt.next = {2 * layers}}}")
    rets.append(("%wo2", ft(width, classes)))
    results.append('tensor<f32> {mpt.metric = "loss"}')
    rets.append(("%loss", "tensor<f32>"))
    lines = [f"func.func @train_step({', '.join(args)}) -> ({', '.join(results)}) attributes {{mpt.train_step}} {{"]
    lines += ["  " + b for b in body]
    lines.append(f"  return {', '.join(v for v, _ in rets)} : {', '.join(t for _, t in rets)}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def best_time(cmd, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--mpt-opt", default=os.path.join(root, "build", "bin", "mpt-opt"))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        timings = {}
        for layers in (1000, 2000):
            path = os.path.join(tmp, f"mlp{layers}.mlir")
            with open(path, "w") as f:
                f.write(mlp_step(layers))
            parse = best_time([args.mpt_opt, path], args.repeats)
            pipeline = best_time([args.mpt_opt, path, "--mpt-mixed-precision"], args.repeats)
            timings[layers] = (parse, pipeline)
            print(f"{layers} layers: parse+verify+print {parse:.3f} s, "
                  f"with mpt-mixed-precision {pipeline:.3f} s "
                  f"(pipeline alone {pipeline - parse:.3f} s)")
    transformer = os.path.join(root, "examples", "transformer_block.mlir")
    parse = best_time([args.mpt_opt, transformer], args.repeats)
    print(f"transformer_block.mlir: parse+verify+print {parse:.3f} s")
    for compute in ("f32", "f16"):
        lowering = best_time(
            [args.mpt_opt, transformer, f"--mpt-mixed-precision=compute-type={compute}",
             "--mpt-lower-to-cpu=cpu-kernels=true"], args.repeats)
        print(f"transformer_block.mlir, {compute}: full CPU lowering {lowering:.3f} s "
              f"(ratio to parsing {lowering / parse:.1f})")
    t1000, t2000 = timings[1000][1], timings[2000][1]
    print(f"mpt-mixed-precision at 1000 layers: {t1000:.3f} s (target < 1 s)")
    print(f"ratio 2000/1000 layers: {t2000 / t1000:.2f} (linear = 2.0, target <= 2.2)")
    print(f"ratio pipeline/parse at 1000 layers: {t1000 / timings[1000][0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
