#!/usr/bin/env python3
"""Trains an image classifier of examples/pytorch on Fashion-MNIST through
mpt's Python API, and evaluates it on the test set.

    python3 examples/pytorch/train.py resnet18 --precision bf16 --epochs 1

The model is a name in examples/pytorch (mlp, cnn, resnet18, vit) or the path
of a file whose `mpt_model(batch, seed)` returns its model, an example batch,
its target and optimizer. The images come from Debian's dataset-fashion-mnist
(or --data-dir), scaled to [0, 1] as mpt-run scales them. Each epoch visits
the training images in an order drawn from --seed, in whole batches.
--metrics-json writes the losses and evaluations as mpt-run's
--metrics-json does (the fields test_accuracy and evaluations).
"""
import argparse
import gzip
import json
import os
import sys
import time

import numpy as np

EXAMPLES = os.path.dirname(os.path.abspath(__file__))


def read_idx(path, offset):
    with gzip.open(path) as f:
        return np.frombuffer(f.read(), dtype=np.uint8, offset=offset)


def load_split(directory, prefix):
    """(images (N, 1, 28, 28) f32 in [0, 1], labels (N,) i64)."""
    images = read_idx(os.path.join(directory,
                                   f"{prefix}-images-idx3-ubyte.gz"), 16)
    labels = read_idx(os.path.join(directory,
                                   f"{prefix}-labels-idx1-ubyte.gz"), 8)
    images = images.reshape(-1, 1, 28, 28).astype(np.float32) / 255.0
    if len(images) != len(labels):
        sys.exit(f"train.py: {directory}: {len(images)} {prefix} images but "
                 f"{len(labels)} labels")
    return images, labels.astype(np.int64)


def load_example(model, **arguments):
    """The description `mpt_model(**arguments)` returns, of a model named in
    examples/pytorch or given by its file's path."""
    from mpt.import_torch_cli import load_description
    path = (model if model.endswith(".py") else
            os.path.join(EXAMPLES, model + ".py"))
    return load_description(path, **arguments)


def write_metrics(path, losses, evaluations, metric):
    """Writes the losses and evaluations as mpt-run's --metrics-json does:
    `metric` (test_accuracy, validation_loss) listed on its own too."""
    with open(path, "w") as f:
        json.dump({"loss": losses, "evaluations": evaluations,
                   metric: [e[metric] for e in evaluations]}, f)


def accuracy(step, images, labels, batch):
    correct = 0
    for begin in range(0, len(images) - batch + 1, batch):
        logits = step.evaluate(images[begin:begin + batch])
        correct += int((np.argmax(logits, axis=1)
                        == labels[begin:begin + batch]).sum())
    return correct / (len(images) // batch * batch)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("--precision", default="fp32",
                        choices=["fp32", "f16", "bf16"])
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--eval-batch", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cosine", action="store_true",
                        help="anneal the rate to 0 over the run (PyTorch's "
                        "CosineAnnealingLR, compiled into the step)")
    parser.add_argument("--eval-at", default="",
                        help="steps after which to evaluate besides the last, "
                        "comma-separated")
    parser.add_argument("--data-dir",
                        default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--metrics-json")
    args = parser.parse_args()

    import torch
    import mpt

    train_x, train_y = load_split(args.data_dir, "train")
    test_x, test_y = load_split(args.data_dir, "t10k")
    if args.eval_batch > len(test_x):
        sys.exit(f"train.py: --eval-batch {args.eval_batch} exceeds the "
                 f"{len(test_x)} test images")
    description = load_example(args.model, batch=args.batch, seed=args.seed)
    steps_per_epoch = len(train_x) // args.batch
    last = steps_per_epoch * args.epochs
    scheduler = (torch.optim.lr_scheduler.CosineAnnealingLR(
        description["optimizer"], T_max=last) if args.cosine else None)
    started = time.time()
    step = mpt.compile(description["model"], description["inputs"],
                       description["target"],
                       loss=description.get("loss"),
                       optimizer=description["optimizer"],
                       precision=args.precision, seed=args.seed,
                       lr_scheduler=scheduler,
                       eval_inputs=torch.zeros(args.eval_batch,
                                               *train_x.shape[1:]))
    print(f"compiled in {time.time() - started:.1f} s", flush=True)

    try:
        eval_at = {int(s) for s in args.eval_at.split(",") if s}
    except ValueError:
        sys.exit(f"train.py: --eval-at '{args.eval_at}' is not a "
                 "comma-separated list of step numbers")
    if any(not 1 <= s <= last for s in eval_at):
        sys.exit(f"train.py: --eval-at '{args.eval_at}': the steps run from 1 "
                 f"to {last}")
    eval_at = sorted(eval_at | {last})
    order = np.random.RandomState(args.seed)
    losses, evaluations = [], []
    started = time.time()
    for epoch in range(args.epochs):
        permutation = order.permutation(len(train_x))
        for i in range(steps_per_epoch):
            batch = permutation[i * args.batch:(i + 1) * args.batch]
            metrics = step(train_x[batch], train_y[batch])
            losses.append(metrics["loss"])
            done = epoch * steps_per_epoch + i + 1
            if done in eval_at:
                evaluations.append({"step": done, "test_accuracy": accuracy(
                    step, test_x, test_y, args.eval_batch)})
                print(f"step {done}: loss {metrics['loss']:.4f}, test "
                      f"accuracy {evaluations[-1]['test_accuracy']:.4f}",
                      flush=True)
    print(f"{args.precision}: {last} steps in {time.time() - started:.1f} s, "
          f"test accuracy {evaluations[-1]['test_accuracy']:.4f}")
    if args.metrics_json:
        write_metrics(args.metrics_json, losses, evaluations, "test_accuracy")


if __name__ == "__main__":
    main()
