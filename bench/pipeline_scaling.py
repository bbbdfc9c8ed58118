#!/usr/bin/env python3
"""Times mpt-mixed-precision on generated N-layer training steps.

Two steps: an MLP with its backward written by hand, and a forward-only stack of pre-LN blocks
trained by AdamW, which mpt-autodiff differentiates first. For 1000, 2000 and 4000 layers
(--layers), it alternates mpt-opt parsing, verifying and printing the step with mpt-opt also
running the pipeline, --repeats times, and prints the median CPU time (user + system) of each,
their difference (the pipeline alone) and the ratio from each size to the next (linear
scaling is 2.0; the target is at most 2.2 and under 1 s per 1000 layers). CPU time, not wall
time, because the machines this runs on are shared; the wall-clock medians and the load
average are printed next to it.

Then times the full CPU lowering (mpt-mixed-precision + mpt-lower-to-cpu with the BLAS kernels,
as mpt-run compiles) of examples/transformer_block.mlir, FP32 and f16 mixed, next to parsing it.
"""
import argparse
import os
import resource
import statistics
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


def forward_step(layers, width=64, batch=32, classes=10):
    """A forward-only FP32 step for mpt-autodiff: `layers` pre-LN residual blocks
    h + gelu(layer_norm(h)·w + b), softmax cross-entropy, AdamW (no weight decay on
    biases and norm gains), and an evaluation step that reads the parameters."""
    ft = lambda *shape: "tensor<" + "x".join(map(str, shape)) + "xf32>"
    no_decay = "mpt.optimizer = {weight_decay = 0.0 : f32}"
    args, eval_args, body = [], [], []
    for i in range(layers):
        args += [f"%g{i}: {ft(width)} {{mpt.param, {no_decay}}}",
                 f"%be{i}: {ft(width)} {{mpt.param, {no_decay}}}",
                 f"%w{i}: {ft(width, width)} {{mpt.param}}",
                 f"%b{i}: {ft(width)} {{mpt.param, {no_decay}}}"]
    args.append(f"%wo: {ft(width, classes)} {{mpt.param}}")
    for index, arg in enumerate(args):
        eval_args.append(arg.split("{")[0] + f"{{mpt.state_of = {index}}}")
    args += [f"%x: {ft(batch, width)} {{mpt.data}}", f"%y: tensor<{batch}xi32> {{mpt.data}}"]
    eval_args.append(f"%x: {ft(batch, width)} {{mpt.data}}")
    h = "%x"
    for i in range(layers):
        body += [
            f"%n{i}, %mu{i}, %rs{i} = mpt.layer_norm {h}, %g{i}, %be{i} {{epsilon = 1.0e-05 : f32}} : {ft(batch, width)}, {ft(width)} -> {ft(batch)}",
            f"%m{i} = mpt.matmul %n{i}, %w{i} : {ft(batch, width)}, {ft(width, width)} -> {ft(batch, width)}",
            f"%z{i} = mpt.bias_add %m{i}, %b{i} : {ft(batch, width)}, {ft(width)}",
            f"%a{i} = mpt.gelu %z{i} : {ft(batch, width)}",
            f"%h{i} = arith.addf {h}, %a{i} : {ft(batch, width)}",
        ]
        h = f"%h{i}"
    body.append(f"%o = mpt.matmul {h}, %wo : {ft(batch, width)}, {ft(width, classes)} -> {ft(batch, classes)}")
    train = body + [f"%loss = mpt.softmax_cross_entropy %o, %y : {ft(batch, classes)}, tensor<{batch}xi32>",
                    "return %loss : tensor<f32>"]
    optimizer = '{kind = "adamw", lr = 1.0e-03 : f32, weight_decay = 1.0e-02 : f32}'
    lines = [f"func.func @train_step({', '.join(args)}) -> (tensor<f32> {{mpt.metric = \"loss\"}}) "
             f"attributes {{mpt.train_step, mpt.optimizer = {optimizer}}} {{"]
    lines += ["  " + line for line in train] + ["}"]
    lines.append(f"func.func @predict({', '.join(eval_args)}) -> {ft(batch, classes)} attributes {{mpt.eval_step}} {{")
    lines += ["  " + line for line in body] + [f"  return %o : {ft(batch, classes)}", "}"]
    return "\n".join(lines) + "\n"


def run_once(cmd):
    """CPU seconds (user + system) and wall seconds of one run of `cmd`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def median_pair(cmd_a, cmd_b, repeats):
    """Runs the two commands alternately; the median (cpu, wall) of each."""
    runs_a, runs_b = [], []
    run_once(cmd_a)  # warm the page cache
    for _ in range(repeats):
        runs_a.append(run_once(cmd_a))
        runs_b.append(run_once(cmd_b))
    median = lambda runs: tuple(statistics.median(r[i] for r in runs) for i in range(2))
    return median(runs_a), median(runs_b)


def cpu_flags():
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("flags"):
                return line.split(":", 1)[1].strip()
    return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--mpt-opt", default=os.path.join(root, "build", "bin", "mpt-opt"))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--layers", type=int, nargs="+", default=[1000, 2000, 4000])
    parser.add_argument("--steps", nargs="+", default=["mlp", "forward-only"],
                        choices=["mlp", "forward-only"])
    args = parser.parse_args()

    print(f"CPU flags: {cpu_flags()}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    generators = {"mlp": mlp_step, "forward-only": forward_step}
    with tempfile.TemporaryDirectory() as tmp:
        for step in args.steps:
            pipeline_cpu = {}
            for layers in args.layers:
                path = os.path.join(tmp, f"{step}{layers}.mlir")
                with open(path, "w") as f:
                    f.write(generators[step](layers))
                (parse_cpu, parse_wall), (full_cpu, full_wall) = median_pair(
                    [args.mpt_opt, path], [args.mpt_opt, path, "--mpt-mixed-precision"],
                    args.repeats)
                pipeline_cpu[layers] = full_cpu - parse_cpu
                print(f"{step}, {layers} layers: parse+verify+print {parse_cpu:.3f} s CPU "
                      f"({parse_wall:.3f} s wall), with mpt-mixed-precision {full_cpu:.3f} s CPU "
                      f"({full_wall:.3f} s wall), pipeline alone {pipeline_cpu[layers]:.3f} s CPU "
                      f"= {pipeline_cpu[layers] * 1000 / layers:.3f} s per 1000 layers")
            for small, large in zip(args.layers, args.layers[1:]):
                print(f"{step}: pipeline ratio {large}/{small} layers: "
                      f"{pipeline_cpu[large] / pipeline_cpu[small]:.2f} "
                      f"(linear = {large / small:.1f})")

    transformer = os.path.join(root, "examples", "transformer_block.mlir")
    for compute in ("f32", "f16"):
        (parse_cpu, _), (lowering_cpu, _) = median_pair(
            [args.mpt_opt, transformer],
            [args.mpt_opt, transformer, f"--mpt-mixed-precision=compute-type={compute}",
             "--mpt-lower-to-cpu=cpu-kernels=true"], args.repeats)
        print(f"transformer_block.mlir, {compute}: full CPU lowering {lowering_cpu:.3f} s CPU, "
              f"parse+verify+print {parse_cpu:.3f} s CPU (ratio {lowering_cpu / parse_cpu:.1f})")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
