#!/usr/bin/env python3
"""Runs shell commands a few at a time and prints their outputs in order.

  run_parallel.py --jobs N COMMAND [COMMAND ...]

Multi-seed training tests are tens of single-threaded runs, independent of
one another: run one after another, they would keep one of CI's two cores
idle for as long as they last. Each command's stdout and stderr are printed,
after a "$ COMMAND" line, in the order given, whatever order they finish in.
Exits with 1, after naming every command that failed and its exit status, if
any did.
"""
import argparse
import concurrent.futures
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--jobs", type=int, required=True, choices=range(1, 65),
                    metavar="N")
parser.add_argument("commands", nargs="+")
args = parser.parse_args()


def run(command):
    return subprocess.run(command, shell=True, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
    results = list(pool.map(run, args.commands))
failed = []
for command, result in zip(args.commands, results):
    print(f"$ {command}\n{result.stdout}", end="", flush=True)
    if result.returncode != 0:
        failed.append(f"error: exit status {result.returncode}: {command}")
for failure in failed:
    print(failure)
sys.exit(1 if failed else 0)
