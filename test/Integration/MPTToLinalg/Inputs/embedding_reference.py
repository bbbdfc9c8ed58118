#!/usr/bin/env python3
"""Writes the module of ../embedding.test, or checks its output against
float64 references.

`gen`: prints, for f32, f16 and bf16 tables, a function that looks ids up
(mpt.embedding) and builds the table gradient of an incoming gradient
(mpt.embedding_grad, always f32), and a @main that runs them on fixed inputs
and prints every result widened to f32 as its bit pattern.

`check`: the lookup must give the table's rows exactly (a copy); each
gradient element the float64 sum of the incoming elements of its ids within
the f32 rounding of each addition (terms * 2^-24 * the sum of their
magnitudes, at most three terms), and rows no id names exactly zero.
"""
import sys

from activation_reference import printed_f32, round_to

TYPES = ["f32", "f16", "bf16"]
V, D = 7, 5
# Row 4 three times, rows 0 and 3 twice, rows 2 and 6 never.
IDS = [[4, 0, 4, 3], [1, 4, 0, 3]]
FLAT = [i for row in IDS for i in row]
TABLE = [0.37 * ((7 * i + 3) % 11) - 1.9 + 0.013 * i for i in range(V * D)]
GRAD = [0.61 * ((5 * i + 2) % 13) - 3.1 + 0.007 * i for i in range(len(FLAT) * D)]


def dense(values, shape):
    def nested(vs, dims):
        if len(dims) == 1:
            return "[" + ", ".join(f"{v:.9e}" for v in vs) + "]"
        step = len(vs) // dims[0]
        return "[" + ", ".join(nested(vs[i * step:(i + 1) * step], dims[1:])
                               for i in range(dims[0])) + "]"
    return f"dense<{nested(values, shape)}> : tensor<{'x'.join(map(str, shape))}xf32>"


def gen():
    lines = ["func.func private @printMemrefI32(tensor<*xi32>)"]
    ids_t = "tensor<2x4xi32>"
    for elt in TYPES:
        table_t, rows_t = f"tensor<{V}x{D}x{elt}>", f"tensor<2x4x{D}x{elt}>"
        lines += [
            f"func.func @embedding_{elt}(%table: {table_t}, %ids: {ids_t}, %dy: {rows_t})"
            f" -> ({rows_t}, tensor<{V}x{D}xf32>) {{",
            f"  %e = mpt.embedding %table, %ids : {table_t}, {ids_t} -> {rows_t}",
            f"  %dt = mpt.embedding_grad %dy, %ids : {rows_t}, {ids_t} -> tensor<{V}x{D}xf32>",
            f"  return %e, %dt : {rows_t}, tensor<{V}x{D}xf32>",
            "}"]
    lines += ["func.func @main() {",
              f"  %table = arith.constant {dense(TABLE, [V, D])}",
              f"  %dy = arith.constant {dense(GRAD, [2, 4, D])}",
              f"  %ids = arith.constant dense<{IDS}> : {ids_t}"]

    def show(value, shape, elt, tag):
        f32 = f"tensor<{shape}xf32>"
        if elt != "f32":
            lines.append(f"  %w_{tag} = arith.extf {value} : tensor<{shape}x{elt}> to {f32}")
            value = f"%w_{tag}"
        lines.append(f"  %b_{tag} = arith.bitcast {value} : {f32} to tensor<{shape}xi32>")
        lines.append(f"  %p_{tag} = tensor.cast %b_{tag} : tensor<{shape}xi32> to tensor<*xi32>")
        lines.append(f"  call @printMemrefI32(%p_{tag}) : (tensor<*xi32>) -> ()")

    for elt in TYPES:
        table_t, rows_t = f"tensor<{V}x{D}x{elt}>", f"tensor<2x4x{D}x{elt}>"
        if elt == "f32":
            table, dy = "%table", "%dy"
        else:
            lines.append(f"  %table_{elt} = arith.truncf %table : tensor<{V}x{D}xf32> to {table_t}")
            lines.append(f"  %dy_{elt} = arith.truncf %dy : tensor<2x4x{D}xf32> to {rows_t}")
            table, dy = f"%table_{elt}", f"%dy_{elt}"
        lines.append(f"  %r_{elt}:2 = call @embedding_{elt}({table}, %ids, {dy}) : "
                     f"({table_t}, {ids_t}, {rows_t}) -> ({rows_t}, tensor<{V}x{D}xf32>)")
        show(f"%r_{elt}#0", f"2x4x{D}", elt, f"{elt}_e")
        show(f"%r_{elt}#1", f"{V}x{D}", "f32", f"{elt}_dt")
    lines += ["  return", "}"]
    print("\n".join(lines))


def check():
    numbers = printed_f32(sys.stdin.read())
    lookups, grads = len(FLAT) * D, V * D
    if len(numbers) != len(TYPES) * (lookups + grads):
        sys.exit(f"FAILED: expected {len(TYPES) * (lookups + grads)} numbers, got {len(numbers)}")
    failures = 0
    for k, elt in enumerate(TYPES):
        got = numbers[k * (lookups + grads):(k + 1) * (lookups + grads)]
        table = [round_to(v, elt) for v in TABLE]
        dy = [round_to(v, elt) for v in GRAD]
        rows = [table[i * D + d] for i in FLAT for d in range(D)]
        sums = [[0.0, 0, 0.0] for _ in range(grads)]
        for n, i in enumerate(FLAT):
            for d in range(D):
                sums[i * D + d][0] += dy[n * D + d]
                sums[i * D + d][1] += 1
                sums[i * D + d][2] += abs(dy[n * D + d])
        for i, (a, e) in enumerate(zip(got[:lookups], rows)):
            if a != e:
                failures += 1
                print(f"FAILED {elt} lookup #{i}: got {a!r}, expected {e!r}")
        worst = 0.0
        for i, (a, (e, terms, magnitude)) in enumerate(zip(got[lookups:], sums)):
            if abs(a - e) > terms * 2.0 ** -24 * magnitude or (terms == 0 and a != 0.0):
                failures += 1
                print(f"FAILED {elt} gradient #{i}: got {a!r}, expected {e!r}")
            elif e:
                worst = max(worst, abs(a - e) / abs(e))
        print(f"{elt}: {lookups} rows looked up exactly, {grads} gradient values, "
              f"largest relative error {worst:.1e}")
    if failures:
        sys.exit(f"FAILED: {failures} mismatches")
    print("all match")


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen()
    else:
        check()
