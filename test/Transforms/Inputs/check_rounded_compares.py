#!/usr/bin/env python3
"""Checks the compares printed by fold-rounded-compares-exact.mlir (argv[1]):
each row is an f32 input's bits, then one 0 or 1 per `arith.cmpf` of that
file, in its order. The expected result rounds the input to the compared type
(round to nearest even, exact rationals) and compares it with the constant."""
import math
import re
import struct
import sys
from fractions import Fraction

# Significand bits (with the implicit one), smallest and largest exponent.
FORMATS = {"f16": (11, -14, 15), "bf16": (8, -126, 127)}


def decode(bits, width, fmt):
    """The value of a float of `fmt` (or f32) from its bits: a Fraction, an
    infinite float, or NaN."""
    precision, emin, emax = FORMATS.get(fmt, (24, -126, 127))
    fraction_bits = precision - 1
    exponent_bits = width - 1 - fraction_bits
    sign = -1 if bits >> (width - 1) else 1
    exponent = (bits >> fraction_bits) & ((1 << exponent_bits) - 1)
    fraction = bits & ((1 << fraction_bits) - 1)
    if exponent == (1 << exponent_bits) - 1:
        return math.nan if fraction else sign * math.inf
    if exponent == 0:
        return sign * Fraction(fraction, 1 << fraction_bits) * Fraction(2)**emin
    return sign * (1 + Fraction(fraction, 1 << fraction_bits)) * Fraction(
        2)**(exponent - emax)


def round_nearest_even(x, fmt):
    """x rounded to `fmt`, overflowing to infinity past the largest finite
    value plus half an ulp (ties to the even infinity side)."""
    if isinstance(x, float):  # NaN or an infinity
        return x
    if x == 0:
        return x
    precision, emin, emax = FORMATS[fmt]
    magnitude = abs(x)
    exponent = max(emin, math.floor(math.log2(magnitude)))
    # log2 of a Fraction is approximate: settle the binade exactly.
    while Fraction(2)**exponent > magnitude and exponent > emin:
        exponent -= 1
    while Fraction(2)**(exponent + 1) <= magnitude:
        exponent += 1
    quantum = Fraction(2)**(exponent - precision + 1)
    units = magnitude / quantum
    whole = math.floor(units)
    rest = units - whole
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2 == 1):
        whole += 1
    rounded = whole * quantum
    if rounded >= Fraction(2)**(emax + 1):
        return math.copysign(math.inf, x)
    return rounded if x > 0 else -rounded


def compare(predicate, a, b):
    if (isinstance(a, float) and math.isnan(a)) or (isinstance(b, float)
                                                     and math.isnan(b)):
        return predicate.startswith("u")
    return {
        "gt": a > b,
        "ge": a >= b,
        "lt": a < b,
        "le": a <= b
    }[predicate[1:]]


source = open(sys.argv[1]).read()
constants = {
    name: decode(int(bits, 16), 16, fmt)
    for name, bits, fmt in re.findall(
        r"(%\w+) = arith.constant 0x([0-9A-F]+) : (\w+)", source)
}
compares = re.findall(r"arith.cmpf (\w+), %\w+, (%\w+) : (\w+)", source)

text = sys.stdin.read()
body = text[text.index("data =") + len("data ="):]
numbers = [int(token) for token in re.findall(r"-?\d+", body)]
columns = len(compares) + 1
rows = [numbers[i:i + columns] for i in range(0, len(numbers), columns)]
wrong = 0
for row in rows:
    bits = row[0] & 0xFFFFFFFF
    x = decode(bits, 32, "f32")
    for (predicate, constant, fmt), got in zip(compares, row[1:]):
        want = compare(predicate, round_nearest_even(x, fmt),
                       constants[constant])
        if got != int(want):
            wrong += 1
            if wrong <= 10:
                print(f"wrong: {predicate} round({bits:#010x}) to {fmt} "
                      f"against {constant}: got {got}")
print(f"{len(rows)} inputs x {len(compares)} compares: {wrong} wrong")
