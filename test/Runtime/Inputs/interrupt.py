#!/usr/bin/env python3
"""Runs a command, sends it a signal once its stdout has printed a line that
starts with a given prefix, and prints how it ended and what it said.

usage: interrupt.py SIGNAL PREFIX COMMAND...
"""
import signal
import subprocess
import sys


def main():
    signum = getattr(signal, sys.argv[1])
    prefix = sys.argv[2]
    process = subprocess.Popen(sys.argv[3:], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    for line in process.stdout:
        print(line, end="")
        if line.startswith(prefix):
            process.send_signal(signum)
            break
    else:
        print(f"FAILED: the command ended before printing '{prefix}'")
    try:
        stdout, stderr = process.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        # A run that ignores the signal must not outlive the test.
        process.kill()
        stdout, stderr = process.communicate()
        print("FAILED: the command did not end within 600 s of the signal")
    print(stdout, end="")
    print(stderr, end="")
    print(f"exit {process.returncode}")


if __name__ == "__main__":
    main()
