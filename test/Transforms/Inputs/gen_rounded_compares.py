#!/usr/bin/env python3
"""Writes fold-rounded-compares-exact.mlir (next to this directory): its inputs
are the f32 values at and next to each constant and the midpoints to its
neighbours, computed here with exact rationals."""
import os
import struct
from fractions import Fraction as F

FORMATS = {"bf16": (8, -126, 127, 16), "f16": (11, -14, 15, 16)}
CONSTANTS = {
    "bf16": [0x0000, 0x8000, 0x0001, 0x8001, 0x0080, 0x3F80, 0x3F81, 0xBF81, 0x7F7E, 0xFF7E],
    "f16": [0x0000, 0x8000, 0x0001, 0x03FF, 0x0400, 0x3C00, 0x3C01, 0xBC01, 0x7BFE, 0xFBFE],
}
PREDICATES = ["ogt", "oge", "olt", "ole", "ugt", "uge", "ult", "ule"]

def decode(bits, fmt):
    p, emin, emax, width = FORMATS[fmt]
    mbits = p - 1
    sign = -1 if bits >> (width - 1) else 1
    exp = (bits >> mbits) & ((1 << (width - 1 - mbits)) - 1)
    man = bits & ((1 << mbits) - 1)
    if exp == 0:
        return sign * F(man, 1 << mbits) * F(2) ** emin
    return sign * (1 + F(man, 1 << mbits)) * F(2) ** (exp - (emax))

def f32_bits_near(value):
    """f32 bit patterns of the f32 nearest to value and its two neighbours."""
    bits = struct.unpack("<I", struct.pack("<f", float(value)))[0]
    out = []
    for b in (bits - 1, bits, bits + 1):
        out.append(b & 0xFFFFFFFF)
    return out

def neighbours(bits, fmt):
    """The bit patterns of the next value below and above."""
    width = FORMATS[fmt][3]
    signbit = 1 << (width - 1)
    mag = bits & (signbit - 1)
    if bits & signbit:
        return (mag + 1) | signbit, (mag - 1) | signbit if mag else 1
    return (mag - 1) if mag else (1 | signbit), mag + 1

inputs = set()
for fmt, consts in CONSTANTS.items():
    for c in consts:
        value = decode(c, fmt)
        inputs.update(f32_bits_near(value))
        for n in neighbours(c, fmt):
            mid = (value + decode(n, fmt)) / 2
            inputs.update(f32_bits_near(mid))
specials = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
            0x7F800001, 0x7F7FFFFF, 0xFF7FFFFF, 0x00000001, 0x80000001]
for v in (65504, 65520, -65520):
    specials += f32_bits_near(v)
inputs.update(specials)
inputs = sorted(inputs)

lines = []
w = lines.append
w("// mpt-fold-rounded-compares, run on the CPU, against comparisons of values")
w("// rounded to nearest even with exact rationals in Python")
w("// (Inputs/check_rounded_compares.py, which reads the constants and predicates")
w("// from this file). Each of 10 bf16 and 10 f16 constants (both zeros, the")
w("// smallest subnormal, the largest subnormal, the smallest normal, 1 and its")
w("// odd neighbour on both signs, the second-largest finite value on both signs)")
w("// is compared with every ordering to the rounding of f32 inputs at and next to")
w("// the constant and the midpoints to its neighbours (the ties), and at zeros,")
w("// infinities, NaNs, the largest f32 and f16's overflow boundary 65520.")
w("// Written by Inputs/gen_rounded_compares.py. The second RUN line checks")
w("// that every compare was folded: otherwise the first would test LLVM's")
w("// rounding instead.")
w("//")
w("// RUN: mpt-opt %s --mpt-fold-rounded-compares --convert-scf-to-cf \\")
w("// RUN:   --convert-to-llvm --reconcile-unrealized-casts \\")
w("// RUN: | mlir-runner -e main -entry-point-result=void \\")
w("// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \\")
w("// RUN: | %python %S/Inputs/check_rounded_compares.py %s | FileCheck %s")
w("// RUN: mpt-opt %s --mpt-fold-rounded-compares | FileCheck %s --check-prefix=FOLDED")
w("//")
n = len(inputs)
combos = sum(len(c) for c in CONSTANTS.values()) * len(PREDICATES)
w(f"// CHECK: {n} inputs x {combos} compares: 0 wrong")
w("// FOLDED-NOT: arith.truncf")
w("")
w("func.func private @printMemrefI32(memref<*xi32>)")
w(f"memref.global \"private\" constant @inputs : memref<{n}xi32> = dense<[")
chunk = [f"{b if b < 2**31 else b - 2**32}" for b in inputs]
for i in range(0, len(chunk), 8):
    w("  " + ", ".join(chunk[i:i + 8]) + ("," if i + 8 < len(chunk) else ""))
w("]>")
w("")
w("func.func @main() {")
w("  %c0 = arith.constant 0 : index")
w("  %c1 = arith.constant 1 : index")
w(f"  %count = arith.constant {n} : index")
w(f"  %inputs = memref.get_global @inputs : memref<{n}xi32>")
w(f"  %out = memref.alloc() : memref<{n}x{combos + 1}xi32>")
w("  scf.for %i = %c0 to %count step %c1 {")
w(f"    %bits = memref.load %inputs[%i] : memref<{n}xi32>")
w(f"    memref.store %bits, %out[%i, %c0] : memref<{n}x{combos + 1}xi32>")
w("    %x = arith.bitcast %bits : i32 to f32")
for fmt in CONSTANTS:
    w(f"    %{fmt} = arith.truncf %x : f32 to {fmt}")
k = 1
for fmt, consts in CONSTANTS.items():
    for c in consts:
        w(f"    %{fmt}_{c:04x} = arith.constant 0x{c:04X} : {fmt}")
        for p in PREDICATES:
            w(f"    %r{k} = arith.cmpf {p}, %{fmt}, %{fmt}_{c:04x} : {fmt}")
            w(f"    %w{k} = arith.extui %r{k} : i1 to i32")
            w(f"    %k{k} = arith.constant {k} : index")
            w(f"    memref.store %w{k}, %out[%i, %k{k}] : memref<{n}x{combos + 1}xi32>")
            k += 1
w("  }")
w(f"  %cast = memref.cast %out : memref<{n}x{combos + 1}xi32> to memref<*xi32>")
w("  call @printMemrefI32(%cast) : (memref<*xi32>) -> ()")
w(f"  memref.dealloc %out : memref<{n}x{combos + 1}xi32>")
w("  return")
w("}")
open(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
          "fold-rounded-compares-exact.mlir"), "w").write("\n".join(lines) + "\n")
