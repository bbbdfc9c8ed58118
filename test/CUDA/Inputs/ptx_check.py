#!/usr/bin/env python3
"""Assembles the PTX of every gpu.binary object with ptxas and reports spills.

Usage: ptx_check.py PTXAS < module.mlir   (mpt-lower-to-cuda stop-at=ptx)

For each `#gpu.object<#nvvm.target<... chip = "sm_XX">, ..., assembly = "...">`
the PTX is unescaped and assembled with `ptxas -arch=sm_XX -v
--warn-on-spills --warning-as-error`; prints per chip the number of kernels
ptxas compiled and the number that spill. Exits 1 if ptxas fails (a spill is
an error under --warning-as-error) or no object is found.
"""
import re
import subprocess
import sys
import tempfile

OBJECT = re.compile(r'#gpu\.object<#nvvm\.target<[^>]*chip = "(sm_\d+)"[^>]*>, '
                    r'(?:properties = \{[^}]*\}, )?assembly = "((?:[^"\\]|\\.)*)"')


def unescape(text):
    # MLIR prints non-printable bytes and quotes as \XX hex escapes.
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), text)


def main():
    ptxas = sys.argv[1]
    objects = OBJECT.findall(sys.stdin.read())
    if not objects:
        print("no PTX objects found")
        return 1
    status = 0
    for chip, escaped in objects:
        with tempfile.NamedTemporaryFile("w", suffix=".ptx") as ptx:
            ptx.write(unescape(escaped))
            ptx.flush()
            run = subprocess.run([ptxas, f"-arch={chip}", "-v", "--warn-on-spills",
                                  "--warning-as-error", ptx.name, "-o", "/dev/null"],
                                 capture_output=True, text=True)
        log = run.stdout + run.stderr
        kernels = len(re.findall(r"Compiling entry function", log))
        spilling = len([m for m in re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", log)
                        if m != ("0", "0")])
        print(f"{chip}: ptxas exit {run.returncode}, {kernels} kernels, {spilling} with spills")
        if run.returncode != 0:
            print(log[-2000:])
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
