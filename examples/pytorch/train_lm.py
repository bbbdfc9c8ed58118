#!/usr/bin/env python3
"""Trains a causal language model of examples/pytorch on a token file through
mpt's Python API, and reports its validation loss.

    python3 examples/pytorch/train_lm.py gpt \\
        --tokens /usr/share/common-licenses/GPL-3 --precision bf16 --steps 300

The model is a name in examples/pytorch (gpt) or the path of a file whose
`mpt_model(batch, seed, context)` returns a model that maps (batch, context)
token ids to (batch*context, vocab) logits, with an example batch, its
target and optimizer. The tokens are a flat file of uint8 (any text is one)
or, with --token-bytes 2, little-endian uint16 tokens, as nanoGPT's train.bin
and mpt-run's --tokens. Without --eval-tokens, the last tenth of --tokens is
held out for validation. Each step takes --batch windows of context + 1
tokens at offsets drawn from --seed: the ids are a window's first context
tokens, the targets its last. The validation loss is the mean cross-entropy,
computed in float64, over the validation file's consecutive non-overlapping
windows of context + 1 tokens in whole batches, as mpt-run's --eval-tokens.
"""
import argparse
import os
import sys
import time

import numpy as np

from train import load_example, write_metrics


def read_tokens(path, token_bytes):
    dtype = np.uint8 if token_bytes == 1 else np.dtype("<u2")
    size = os.path.getsize(path)
    if size % token_bytes:
        sys.exit(f"train_lm.py: {path}: {size} bytes is not a whole number "
                 f"of {token_bytes}-byte tokens")
    return np.fromfile(path, dtype=dtype).astype(np.int64)


def windows(tokens, offsets, context):
    """The ids (len(offsets), context) and flat targets of the windows of
    context + 1 tokens at `offsets`."""
    ids = np.stack([tokens[o:o + context] for o in offsets])
    targets = np.stack([tokens[o + 1:o + context + 1] for o in offsets])
    return ids, targets.reshape(-1)


def validation_batches(tokens, batch, context):
    """The batches of consecutive non-overlapping windows of `tokens`."""
    starts = range(0, len(tokens) - context, context + 1)
    return [windows(tokens, starts[i:i + batch], context)
            for i in range(0, len(starts) - batch + 1, batch)]


def validation_loss(step, batches):
    """The mean cross-entropy of the eval step's logits, in float64."""
    total, count = 0.0, 0
    for ids, targets in batches:
        logits = step.evaluate(ids).astype(np.float64)
        logits -= logits.max(axis=1, keepdims=True)
        log_probabilities = logits - np.log(
            np.exp(logits).sum(axis=1, keepdims=True))
        total -= log_probabilities[np.arange(len(targets)), targets].sum()
        count += len(targets)
    return total / count


def train(step, tokens, steps, batch, context, seed):
    """`steps` steps on random windows of `tokens` drawn from `seed`; their
    losses."""
    generator = np.random.default_rng(seed)
    losses = []
    for _ in range(steps):
        offsets = generator.integers(0, len(tokens) - context, batch)
        losses.append(step(*windows(tokens, offsets, context))["loss"])
    return losses


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("--tokens", required=True)
    parser.add_argument("--eval-tokens")
    parser.add_argument("--token-bytes", type=int, default=1, choices=[1, 2])
    parser.add_argument("--precision", default="fp32",
                        choices=["fp32", "f16", "bf16"])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--context", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-every", type=int, default=100)
    parser.add_argument("--metrics-json")
    args = parser.parse_args()
    if args.steps < 1 or args.eval_every < 1:
        sys.exit("train_lm.py: --steps and --eval-every must be positive")

    import mpt

    tokens = read_tokens(args.tokens, args.token_bytes)
    if args.eval_tokens:
        train_tokens = tokens
        eval_tokens = read_tokens(args.eval_tokens, args.token_bytes)
    else:
        split = len(tokens) * 9 // 10
        train_tokens, eval_tokens = tokens[:split], tokens[split:]
    if len(train_tokens) <= args.context:
        sys.exit(f"train_lm.py: {args.tokens}: {len(train_tokens)} training "
                 f"tokens, fewer than a window of {args.context + 1}")
    batches = validation_batches(eval_tokens, args.batch, args.context)
    if not batches:
        sys.exit(f"train_lm.py: {len(eval_tokens)} validation tokens, fewer "
                 f"than a batch of {args.batch} windows of "
                 f"{args.context + 1}")

    description = load_example(args.model, batch=args.batch, seed=args.seed,
                               context=args.context)
    started = time.time()
    step = mpt.compile(description["model"], description["inputs"],
                       description["target"],
                       loss=description.get("loss"),
                       optimizer=description.get("optimizer"),
                       precision=args.precision, seed=args.seed)
    print(f"compiled in {time.time() - started:.1f} s", flush=True)

    print(f"initial validation loss {validation_loss(step, batches):.4f}",
          flush=True)
    losses, evaluations = [], []
    started = time.time()
    while len(losses) < args.steps:
        losses += train(step, train_tokens,
                        min(args.eval_every, args.steps - len(losses)),
                        args.batch, args.context,
                        [args.seed, len(losses)])
        evaluations.append({"step": len(losses),
                            "validation_loss": validation_loss(step, batches)})
        print(f"step {len(losses)}: loss {losses[-1]:.4f}, validation loss "
              f"{evaluations[-1]['validation_loss']:.4f}", flush=True)
    print(f"{args.precision}: {args.steps} steps in "
          f"{time.time() - started:.1f} s, validation loss "
          f"{evaluations[-1]['validation_loss']:.4f}")
    if args.metrics_json:
        write_metrics(args.metrics_json, losses, evaluations,
                      "validation_loss")


if __name__ == "__main__":
    main()
