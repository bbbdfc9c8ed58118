#!/usr/bin/env python3
"""Writes the fuzzer's seed corpus: one file per module of the given .mlir files.

Files of `-split-input-file` tests are split at their `// -----` lines, and
whole-line comments (RUN and CHECK lines, prose) are dropped, so that the
fuzzer mutates IR rather than text. Usage: seeds.py OUT_DIR FILE.mlir...
"""
import hashlib
import os
import sys

out_dir, paths = sys.argv[1], sys.argv[2:]
os.makedirs(out_dir, exist_ok=True)
for name in os.listdir(out_dir):
    os.remove(os.path.join(out_dir, name))
count = 0
for path in paths:
    with open(path) as f:
        text = f.read()
    for chunk in text.split("\n// -----\n"):
        lines = [line for line in chunk.splitlines()
                 if not line.lstrip().startswith("//")]
        seed = "\n".join(lines).strip() + "\n"
        if not seed.strip():
            continue
        digest = hashlib.sha1(seed.encode()).hexdigest()
        with open(os.path.join(out_dir, digest), "w") as f:
            f.write(seed)
        count += 1
print(f"seeds.py: {count} seeds from {len(paths)} files in {out_dir}")
