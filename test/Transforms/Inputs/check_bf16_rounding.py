#!/usr/bin/env python3
"""Checks the bf16 bits (and their f32 widening) printed by
expand-bf16-conversions-rounding.mlir for each f32 input against
round-to-nearest-even computed with exact rationals."""
import math
import re
import struct
import sys
from fractions import Fraction

LOWS = [0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF]
QUIET_NAN = 0x7FC0


def f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def magnitude(code):
    """The value of a positive bf16 code; the code past the largest finite
    one counts as 2^128, where rounding puts the overflow threshold."""
    if code == 0x7F80:
        return Fraction(2) ** 128
    return Fraction(f32(code << 16))


def nearest_even(bits):
    x = f32(bits)
    if math.isnan(x):
        return QUIET_NAN
    sign = (bits >> 16) & 0x8000
    below = (bits & 0x7FFFFFFF) >> 16  # the bf16 magnitudes around |x|
    if below == 0x7F80:  # infinity
        return sign | below
    above = below + 1
    value = abs(Fraction(x))
    down, up = value - magnitude(below), magnitude(above) - value
    if down < up or (down == up and below % 2 == 0):
        return sign | below
    return sign | above


text = sys.stdin.read()
body = text[text.index("data =") + len("data ="):]
numbers = [int(token) for token in re.findall(r"-?\d+", body)]
pairs = [numbers[i:i + 2] for i in range(0, len(numbers), 2)]
wrong_rounding = wrong_widening = 0
for index, (rounded, widened) in enumerate(pairs):
    bits = (index // len(LOWS)) << 16 | LOWS[index % len(LOWS)]
    want = nearest_even(bits)
    if rounded != want:
        if wrong_rounding < 10:
            print(f"f32 {bits:#010x}: bf16 {rounded:#06x}, want {want:#06x}")
        wrong_rounding += 1
    if widened & 0xFFFFFFFF != rounded << 16:
        if wrong_widening < 10:
            print(f"bf16 {rounded:#06x} widened to {widened & 0xFFFFFFFF:#010x}")
        wrong_widening += 1
print(f"{len(pairs)} values: {wrong_rounding} wrong roundings, "
      f"{wrong_widening} wrong widenings")
