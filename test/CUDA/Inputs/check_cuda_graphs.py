"""Checks what mpt-run asked the CUDA driver to do, from the log of the
recording driver (runtime/unittests/RecordingCudaDriver.cpp): how each
training step ran, launched one by one or replayed as a CUDA graph.

A step's own calls are a run of consecutive stream-work lines (launches,
GEMMs, device copies, allocations); the session's calls between steps
(batch copies, metric copies, events) separate them.

    check_cuda_graphs.py LOG METRICS_JSON --steps N (--captured | --uncaptured)

prints one summary line per property, for FileCheck.
"""
import argparse
import json
import sys

# What compiled step code makes the driver do, as the log names it.
STEP_CALLS = ("cuLaunchKernel", "cublasLtMatmul", "cuMemcpyAsync", "cuMemAlloc",
              "cuMemFree", "cuModuleGetFunction", "cublasLtMatmulAlgoGetHeuristic")
# The calls that put work on the stream: a graph's nodes.
NODE_CALLS = ("cuLaunchKernel", "cublasLtMatmul", "cuMemcpyAsync")
HOST_WAITS = ("cuStreamSynchronize", "cuEventSynchronize")


def fail(message):
    sys.exit("check_cuda_graphs.py: " + message)


def call_of(line):
    return line.lstrip("> ").split(" ")[0]


def step_runs(lines):
    """Consecutive uncaptured step-call lines, each with its first index."""
    runs, current, start = [], [], 0
    for index, line in enumerate(lines):
        if not line.startswith(">") and call_of(line) in STEP_CALLS:
            if not current:
                start = index
            current.append(line)
        elif current:
            runs.append((start, current))
            current = []
    if current:
        runs.append((start, current))
    return runs


def nodes(run):
    """The stream work of a run, as a graph would hold it."""
    return [line.lstrip("> ") for line in run
            if call_of(line) in NODE_CALLS]


def is_train(run):
    return any(line.lstrip("> ").startswith("cuLaunchKernel train_step")
               for line in run)


def captures(lines):
    """(begin, end) indices of each capture."""
    result, begin = [], None
    for index, line in enumerate(lines):
        if line.startswith("cuStreamBeginCapture"):
            begin = index
        elif line.startswith("cuStreamEndCapture"):
            result.append((begin, index))
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("log")
    parser.add_argument("metrics")
    parser.add_argument("--steps", type=int, required=True)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--captured", action="store_true")
    mode.add_argument("--uncaptured", action="store_true")
    args = parser.parse_args()
    lines = open(args.log).read().splitlines()

    refused = [line for line in lines if "refused" in line]
    if refused:
        fail(f"the driver refused {refused[0]!r}")
    train_runs = [(start, run) for start, run in step_runs(lines)
                  if is_train(run)]
    if not train_runs:
        fail("no training step ran uncaptured")
    first_start, first = train_runs[0]
    first_nodes = nodes(first)
    kernels = sum(call_of(n) == "cuLaunchKernel" for n in first_nodes)
    gemms = sum(call_of(n) == "cublasLtMatmul" for n in first_nodes)
    allocations = sum(call_of(line) == "cuMemAlloc" for line in first)
    print(f"first step: {len(first_nodes)} launches ({kernels} kernels, "
          f"{gemms} GEMMs, {len(first_nodes) - kernels - gemms} copies), "
          f"{allocations} allocations")

    if args.uncaptured:
        if any(line.startswith("cuStreamBeginCapture") for line in lines):
            fail("a step was captured with --cuda-graphs=false")
        if len(train_runs) != args.steps:
            fail(f"{len(train_runs)} training steps launched, not "
                 f"{args.steps}")
        for _, run in train_runs[1:]:
            if nodes(run) != first_nodes:
                fail("a later step launched other work than the first")
        later = [sum(call_of(line) == "cuMemAlloc" for line in run)
                 for _, run in train_runs[1:]]
        print(f"every step: {len(first_nodes)} launches; later steps "
              f"allocate {min(later)} to {max(later)} times (block cache)")
    else:
        if len(train_runs) != 1:
            fail(f"{len(train_runs)} training steps launched uncaptured, "
                 "not only the first")
        train_captures = [(b, e) for b, e in captures(lines)
                          if is_train(lines[b + 1:e])]
        if len(train_captures) != 1:
            fail(f"the training step was captured {len(train_captures)} "
                 "times, not once")
        begin, end = train_captures[0]
        if begin < first_start:
            fail("the training step was captured before its first run")
        if lines[begin] != "cuStreamBeginCapture thread-local":
            fail(f"captured as {lines[begin]!r}")
        captured = lines[begin + 1:end]
        if nodes(captured) != first_nodes:
            fail("the captured step is not the work of the first one")
        if any(call_of(line) not in NODE_CALLS for line in captured):
            fail("the capture made calls other than launches, GEMMs and "
                 "device copies")
        graph = f"{len(first_nodes)} nodes"
        expected = [f"cuStreamEndCapture {graph}",
                    f"cuGraphInstantiate {graph}", f"cuGraphLaunch {graph}"]
        if lines[end:end + 3] != expected:
            fail(f"after the capture: {lines[end:end + 3]}, not {expected}")
        print(f"second step: captured as one graph of {graph}, "
              "then launched")
        # Until the last training step's graph launch, only the session's
        # batch and metric copies and its waits for them come between.
        launches = [i for i in range(end, len(lines))
                    if lines[i] == f"cuGraphLaunch {graph}"]
        if len(launches) != args.steps - 1:
            fail(f"the graph was launched {len(launches)} times for "
                 f"{args.steps - 1} steps")
        between = lines[launches[0] + 1:launches[-1]]
        made = sorted({call_of(line) for line in between})
        stray = [call for call in made if call in STEP_CALLS]
        if stray:
            fail(f"between replayed steps: {stray}")
        waits = {call: sum(call_of(line) == call for line in between)
                 for call in HOST_WAITS}
        print(f"later steps: one cuGraphLaunch each ({len(launches)}); "
              "between them no launch, GEMM or allocation; host waits per "
              f"step: {waits['cuStreamSynchronize']} stream, "
              f"{waits['cuEventSynchronize'] / (len(launches) - 1):g} event")

    peaks = [step["peak_memory_bytes"]
             for step in json.load(open(args.metrics))["metrics"]]
    if len(peaks) != args.steps or len(set(peaks)) != 1:
        fail(f"peak memory per step differs: {peaks}")
    print(f"peak memory: the same every step ({peaks[0]} bytes)")


main()
