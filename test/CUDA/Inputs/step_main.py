#!/usr/bin/env python3
"""Appends a @main to a training step that runs it once and prints its results.

Reads the output of mpt-mixed-precision (or an FP32 example) on stdin, writes
it without its `module` wrapper followed by a @main that calls @train_step
with deterministic inputs and prints every result (f16/bf16 widened exactly to
f32, integers as i64). Inputs, from an irrational sequence per argument:
parameters 0.1·sin, data sin, float state 0.001·(1.0001 + sin) >= 0 (second
moments and running variances must not be negative), a scalar float state
(the loss scale) 1024, integer data (labels) index mod 10, integer state
(counters) 0.
"""
import re
import sys

step = sys.stdin.read()
body = re.sub(r"^module(?: attributes \{[^\n]*\})? \{\n", "", step, count=1)
body = body[: body.rstrip().rfind("}")]
signature = re.search(r"func\.func @train_step\((.*?)\) -> \((.*?)\) attributes", step, re.S)
args = re.findall(r"%arg\d+: (tensor<[^>]*>) \{(mpt\.\w+)", signature.group(1))
results = re.findall(r"(tensor<[^>]*>)", signature.group(2))

def shape_and_type(tensor):
    parts = tensor[len("tensor<"):-1].split("x")
    return [int(p) for p in parts[:-1]], parts[-1]

out = [body, "func.func private @printMemrefF32(tensor<*xf32>)",
       "func.func private @printMemrefI64(tensor<*xi64>)", "func.func @main() {"]
names = []
for n, (tensor, role) in enumerate(args):
    shape, elt = shape_and_type(tensor)
    idx = " ".join(f"%i{d}" for d in range(len(shape)))
    blockargs = ", ".join(f"%i{d}: index" for d in range(len(shape)))
    lines = [f"  %a{n} = tensor.generate {{", f"  ^bb0({blockargs}):"]
    # Row-major linear index of the element.
    lines.append("    %lin0 = arith.constant 0 : index")
    for d, size in enumerate(shape):
        lines.append(f"    %s{d} = arith.constant {size} : index")
        lines.append(f"    %m{d} = arith.muli %lin{d}, %s{d} : index")
        lines.append(f"    %lin{d + 1} = arith.addi %m{d}, %i{d} : index")
    lin = f"%lin{len(shape)}"
    if elt.startswith("f") or elt == "bf16":
        lines += [f"    %li = arith.index_cast {lin} : index to i32",
                  "    %lf = arith.sitofp %li : i32 to f32",
                  "    %k = arith.constant 0.7548776 : f32",
                  f"    %o = arith.constant {n}.0 : f32",
                  "    %t = arith.mulf %lf, %k : f32",
                  "    %u = arith.addf %t, %o : f32",
                  "    %v = math.sin %u : f32"]
        if role == "mpt.param":
            lines += ["    %c = arith.constant 0.1 : f32", "    %r = arith.mulf %v, %c : f32"]
        elif role == "mpt.state" and not shape:
            lines += ["    %r = arith.constant 1024.0 : f32"]
        elif role == "mpt.state":
            lines += ["    %one = arith.constant 1.0001 : f32", "    %w = arith.addf %v, %one : f32",
                      "    %c = arith.constant 0.001 : f32", "    %r = arith.mulf %w, %c : f32"]
        else:
            lines += ["    %r = arith.addf %v, %v : f32"]
        if elt != "f32":
            lines += [f"    %r2 = arith.truncf %r : f32 to {elt}"]
        lines.append(f"    tensor.yield {'%r2' if elt != 'f32' else '%r'} : {elt}")
    else:
        if role == "mpt.data":
            lines += ["    %ten = arith.constant 10 : index", f"    %q = arith.remui {lin}, %ten : index"]
        else:
            lines += ["    %q = arith.constant 0 : index"]
        lines += [f"    %r = arith.index_cast %q : index to {elt}", f"    tensor.yield %r : {elt}"]
    lines.append(f"  }} : {tensor}")
    out += lines
    names.append(f"%a{n}")
arg_types = ", ".join(t for t, _ in args)
res_types = ", ".join(results)
out.append(f"  %r:{len(results)} = call @train_step({', '.join(names)}) : ({arg_types}) -> ({res_types})")
for n, tensor in enumerate(results):
    shape, elt = shape_and_type(tensor)
    dims = "x".join(str(s) for s in shape) + ("x" if shape else "")
    value = f"%r#{n}"
    if elt in ("f16", "bf16"):
        out.append(f"  %w{n} = arith.extf {value} : {tensor} to tensor<{dims}f32>")
        value, elt = f"%w{n}", "f32"
    elif elt != "f32" and elt != "i64":
        out.append(f"  %w{n} = arith.extui {value} : {tensor} to tensor<{dims}i64>")
        value, elt = f"%w{n}", "i64"
    out.append(f"  %u{n} = tensor.cast {value} : tensor<{dims}{elt}> to tensor<*x{elt}>")
    printer = "printMemrefF32" if elt == "f32" else "printMemrefI64"
    out.append(f"  call @{printer}(%u{n}) : (tensor<*x{elt}>) -> ()")
out += ["  return", "}"]
print("\n".join(out))
