#!/usr/bin/env python3
"""Lists the standalone cast kernels of @train_step in mpt-lower-to-cuda's
stop-at=gpu output: kernels whose only floating-point operations are
arith.truncf/arith.extf. A kernel that
also moves the data into another shape (a transpose that rounds as it goes)
is the transpose, with the cast fused into it; one whose memrefs differ
otherwise (a broadcast) is counted as a standalone cast. Prints one line per
standalone cast kernel (its memref operands), then "<launched> kernels
launched by @train_step, <casts> standalone casts, <moved> casts in
transposes", and "<updates> update kernels" (those named *_update*).
"""
import re
import sys

text = open(sys.argv[1]).read()
train = text[text.index("func.func @train_step("):]
train = train[: train.index("\n  }\n")]
launched = re.findall(r"gpu\.launch_func\b[^@\n]*@\w+::@(\w+)", train)
bodies = dict((name, (args, body)) for name, args, body in re.findall(
    r"gpu\.func @(\w+)\((.*?)\) kernel \{(.*?)\n      gpu\.return", text, re.S))
casts = moved = 0
for name in launched:
    args, body = bodies[name]
    float_ops = set()
    for line in body.split("\n"):
        op = re.search(r"= (?:arith|math)\.(\w+)", line)
        if op and op.group(1) != "constant" and re.search(r"\b(f16|bf16|f32|f64)\b", line.split("=", 1)[1]):
            float_ops.add(op.group(1))
    memrefs = re.findall(r"memref<[^>]*>", args)
    # The dimensions only (layouts and element types differ between a
    # cast's operands); scalars (a flag, a scale) move no data.
    shapes = set(re.match(r"memref<((?:[0-9?]+x)*)", m).group(1) for m in memrefs)
    shapes.discard("")
    if not float_ops or not float_ops <= {"truncf", "extf"}:
        continue
    # A transpose reads and writes the same dimensions in another order.
    if len(shapes) > 1 and len(set(tuple(sorted(s.split("x"))) for s in shapes)) == 1:
        moved += 1
        continue
    casts += 1
    print("cast kernel: " + " -> ".join(memrefs))
print(f"{len(launched)} kernels launched by @train_step, {casts} standalone casts, "
      f"{moved} casts in transposes")
# mpt-name-state-update-kernels' names: the kernels that update state in place.
print(f"{sum(name.startswith('train_step_update') for name in launched)} update kernels")
