#!/usr/bin/env python3
"""Runs a command with a time limit and prints what it said, its exit status,
and whether it ended within the limit; a command still running at the limit
is killed with its process group, so that it cannot outlive the test.

usage: bounded.py SECONDS COMMAND...
"""
import os
import signal
import subprocess
import sys
import time


def main():
    limit = float(sys.argv[1])
    start = time.monotonic()
    process = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    try:
        output, _ = process.communicate(timeout=limit)
        ended = f"ended within {limit:g} s"
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        ended = f"FAILED: still running after {limit:g} s"
    print(output, end="")
    print(f"exit {process.returncode}")
    print(ended)
    sys.stderr.write(f"bounded.py: {time.monotonic() - start:.1f} s\n")


if __name__ == "__main__":
    main()
