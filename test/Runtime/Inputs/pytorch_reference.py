#!/usr/bin/env python3
"""Writes the golden per-step losses of reference-pytorch.test (needs PyTorch;
CI never runs this, it reads the files this writes).

PyTorch trains examples/MODEL.mlir's model (nn.Linear/nn.Conv2d/nn.BatchNorm2d,
cross-entropy, torch.optim.SGD) from the initial weights of
`reference.py weights MODEL` on Fashion-MNIST batches in the exact order of
`mpt-run --seed SEED` (runtime/src/Data.cpp: a Fisher-Yates shuffle driven by
std::mt19937_64 seeded through std::seed_seq, reimplemented here), and writes
one FP32 loss per step.

  /usr/bin/python3 test/Runtime/Inputs/pytorch_reference.py mlp 100 \
      > test/Runtime/Inputs/pytorch-mlp-losses.txt
  /usr/bin/python3 test/Runtime/Inputs/pytorch_reference.py cnn_bn 10 \
      > test/Runtime/Inputs/pytorch-cnn_bn-losses.txt
  /usr/bin/python3 test/Runtime/Inputs/pytorch_reference.py cnn_bn 10 0 --float64 \
      > test/Runtime/Inputs/pytorch-cnn_bn-losses-f64.txt

`pytorch_reference.py mlp-accuracy 5` prints PyTorch's own MLP accuracy in the
data orders of seeds 0-4 (see mlp-fashion-mnist.test).

`pytorch_reference.py cnn-accuracy 3 777,817,857,897,937` trains the CNN for
one epoch from mpt-run's own initial weights of seeds 0-2 (its initializer,
reimplemented here) in the data orders of those seeds, and prints the test
accuracy after each listed step and their mean per seed (the reference of
cnn-fashion-mnist.test, Inputs/pytorch-cnn_bn-accuracy.txt).
"""
import gzip
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: E402

MASK32, MASK64 = (1 << 32) - 1, (1 << 64) - 1
EPOCH_ORDER_STREAM = 3  # Stream::EpochOrder in runtime/src/Data.cpp


def seed_seq_generate(seeds, n):
    """std::seed_seq{seeds...}.generate() of n 32-bit words ([rand.util.seedseq])."""
    out = [0x8B8B8B8B] * n
    s = len(seeds)
    t = 11 if n >= 623 else 7 if n >= 68 else 5 if n >= 39 else 3 if n >= 7 else (n - 1) // 2
    p = (n - t) // 2
    q = p + t
    m = max(s + 1, n)
    mix = lambda x: x ^ (x >> 27)  # noqa: E731
    for k in range(m):
        r1 = (1664525 * mix(out[k % n] ^ out[(k + p) % n] ^ out[(k - 1) % n])) & MASK32
        r2 = (r1 + (s if k == 0 else (k % n + seeds[k - 1]) if k <= s else k % n)) & MASK32
        out[(k + p) % n] = (out[(k + p) % n] + r1) & MASK32
        out[(k + q) % n] = (out[(k + q) % n] + r2) & MASK32
        out[k % n] = r2
    for k in range(m, m + n):
        r3 = (1566083941 * mix((out[k % n] + out[(k + p) % n] + out[(k - 1) % n]) & MASK32)) & MASK32
        r4 = (r3 - k % n) & MASK32
        out[(k + p) % n] ^= r3
        out[(k + q) % n] ^= r4
        out[k % n] = r4
    return out


class MT19937_64:
    """std::mt19937_64 seeded from a std::seed_seq."""

    def __init__(self, seeds):
        words = seed_seq_generate(seeds, 624)
        self.state = [words[2 * i] | (words[2 * i + 1] << 32) for i in range(312)]
        self.index = 312

    def __call__(self):
        if self.index == 312:
            mt = self.state
            for i in range(312):
                y = (mt[i] & 0xFFFFFFFF80000000) | (mt[(i + 1) % 312] & 0x7FFFFFFF)
                mt[i] = mt[(i + 156) % 312] ^ (y >> 1) ^ (0xB5026F5AA96619E9 if y & 1 else 0)
            self.index = 0
        y = self.state[self.index]
        self.index += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        y ^= y >> 43
        return y & MASK64


def epoch_order(count, seed, epoch):
    engine = MT19937_64([seed & MASK32, seed >> 32, EPOCH_ORDER_STREAM,
                         epoch & MASK32, epoch >> 32])
    order = list(range(count))
    for i in range(count, 1, -1):
        threshold = ((1 << 64) - i) % i
        while True:
            x = engine()
            if x >= threshold:
                break
        j = x % i
        order[i - 1], order[j] = order[j], order[i - 1]
    return order


def load_fashion_mnist(directory="/usr/share/datasets/fashion-mnist"):
    with gzip.open(os.path.join(directory, "train-images-idx3-ubyte.gz")) as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 28, 28)
    with gzip.open(os.path.join(directory, "train-labels-idx1-ubyte.gz")) as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)
    return images.astype(np.float32) / np.float32(255.0), labels.astype(np.int64)


def build(model, weights):
    """The PyTorch model with the weights of reference.py (mpt's layout)."""
    t = {name: torch.tensor(np.array(values, np.float32).reshape(shape))
         for name, (shape, values) in weights.items()}
    if model == "mlp":
        net = torch.nn.Sequential(
            torch.nn.Flatten(), torch.nn.Linear(784, 256), torch.nn.ReLU(),
            torch.nn.Linear(256, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
        pairs = [(net[1], "w1", "b1"), (net[3], "w2", "b2"), (net[5], "w3", "b3")]
        with torch.no_grad():
            for layer, w, b in pairs:
                layer.weight.copy_(t[w].T)  # mpt stores [in, out]
                layer.bias.copy_(t[b])
        return net, 128, 0.02
    net = torch.nn.Sequential(
        torch.nn.Conv2d(1, 8, 3, padding=1, bias=False), torch.nn.BatchNorm2d(8),
        torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(8, 16, 3, padding=1, bias=False), torch.nn.BatchNorm2d(16),
        torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(784, 10))
    with torch.no_grad():
        net[0].weight.copy_(t["wc1"])
        net[1].weight.copy_(t["g1"])
        net[1].bias.copy_(t["be1"])
        net[4].weight.copy_(t["wc2"])
        net[5].weight.copy_(t["g2"])
        net[5].bias.copy_(t["be2"])
        net[9].weight.copy_(t["wf"].T)
        net[9].bias.copy_(t["bf"])
    return net, 64, 0.05


def mpt_initial_weights(model, seed):
    """The parameters mpt-run --seed SEED starts from (runtime/src/Runtime.cpp,
    initialize): a uniform initializer draws argument `index` of the training
    step from splitmix64 seeded with seed * 0x100000001b3 + index, as
    float((2u - 1) * bound), u with 53 random bits and bound 1/sqrt(fan_in) of
    the forward use; batch-norm scales start at 1 and shifts at 0."""
    tensors = {}
    for index, (name, shape, (low, high)) in enumerate(reference.MODELS[model]):
        count = int(np.prod(shape))
        if name.startswith("g"):
            values = np.ones(count, np.float32)
        elif name.startswith("be"):
            values = np.zeros(count, np.float32)
        else:
            assert low == -high, name
            stream = reference.splitmix64((seed * 0x100000001B3 + index) & MASK64)
            values = np.array([(2.0 * ((next(stream) >> 11) * 2.0**-53) - 1.0) * high
                               for _ in range(count)], np.float32)
        tensors[name] = (shape, values)
    return tensors


def load_fashion_mnist_test(directory="/usr/share/datasets/fashion-mnist"):
    with gzip.open(os.path.join(directory, "t10k-images-idx3-ubyte.gz")) as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 28, 28)
    with gzip.open(os.path.join(directory, "t10k-labels-idx1-ubyte.gz")) as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)
    return images.astype(np.float32) / np.float32(255.0), labels.astype(np.int64)


def cnn_accuracy(seeds, eval_at):
    """Test accuracy (batch norm with its running statistics) of the CNN after
    the steps `eval_at` of one epoch, from mpt-run's initial weights of each
    seed and in its data order: cnn-fashion-mnist.test's protocol."""
    images, labels = load_fashion_mnist()
    test_x, test_y = load_fashion_mnist_test()
    test_x = torch.from_numpy(test_x).unsqueeze(1)
    means = []
    for seed in seeds:
        net, batch, lr = build("cnn_bn", mpt_initial_weights("cnn_bn", seed))
        optimizer = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)
        order = epoch_order(len(images), seed, 0)
        accuracies = []
        for step in range(max(eval_at)):
            rows = order[step * batch:(step + 1) * batch]
            net.train()
            loss = torch.nn.functional.cross_entropy(
                net(torch.from_numpy(images[rows]).unsqueeze(1)),
                torch.from_numpy(labels[rows]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step + 1 in eval_at:
                net.eval()
                with torch.no_grad():
                    predicted = net(test_x).argmax(1).numpy()
                accuracies.append(float((predicted == test_y).mean()))
        means.append(float(np.mean(accuracies)))
        print(f"seed {seed}: test accuracy after steps "
              f"{','.join(map(str, eval_at))}: "
              f"{' '.join(f'{a:.4f}' for a in accuracies)}: mean {means[-1]:.4f}",
              flush=True)
    print(f"mean {np.mean(means):.4f}, standard deviation "
          f"{np.std(means, ddof=1):.4f}")


def mlp_accuracy(seeds):
    """Test accuracy of PyTorch's own MLP (its default initialization, seeded
    by torch.manual_seed) after 2 epochs in the data order of mpt-run --seed,
    per seed: the reference of mlp-fashion-mnist.test's bar."""
    images, labels = load_fashion_mnist()
    images = images.reshape(-1, 784)
    with gzip.open("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz") as f:
        test_images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784)
    with gzip.open("/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz") as f:
        test_labels = np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int64)
    test_x = torch.from_numpy(test_images.astype(np.float32) / np.float32(255.0))
    accuracies = []
    for seed in seeds:
        torch.manual_seed(seed)
        net = torch.nn.Sequential(
            torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 128),
            torch.nn.ReLU(), torch.nn.Linear(128, 10))
        optimizer = torch.optim.SGD(net.parameters(), lr=0.02, momentum=0.9)
        for epoch in range(2):
            order = epoch_order(len(images), seed, epoch)
            for index in range(len(images) // 128):
                rows = order[index * 128:(index + 1) * 128]
                loss = torch.nn.functional.cross_entropy(
                    net(torch.from_numpy(images[rows])), torch.from_numpy(labels[rows]))
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        with torch.no_grad():
            predicted = net(test_x).argmax(1).numpy()
        accuracies.append(float((predicted == test_labels).mean()))
        print(f"seed {seed}: test accuracy {accuracies[-1]:.4f}", flush=True)
    print(f"mean {np.mean(accuracies):.4f}, standard deviation "
          f"{np.std(accuracies, ddof=1):.4f}")


def main():
    if sys.argv[1] == "mlp-accuracy":
        torch.set_num_threads(1)
        return mlp_accuracy(range(int(sys.argv[2])))
    if sys.argv[1] == "cnn-accuracy":
        torch.set_num_threads(1)
        return cnn_accuracy(range(int(sys.argv[2])),
                            [int(step) for step in sys.argv[3].split(",")])
    model, steps = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    # float64: the same training in double precision, to measure how far
    # FP32 rounding alone moves the losses (see reference-pytorch.test).
    dtype = torch.float64 if "--float64" in sys.argv else torch.float32
    torch.set_num_threads(1)
    net, batch, lr = build(model, reference.make_weights(model))
    net.to(dtype)
    optimizer = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)
    images, labels = load_fashion_mnist()
    per_epoch = len(images) // batch
    print(f"# PyTorch {torch.__version__}: {model}, mpt-run --seed {seed}, "
          f"{dtype} loss of steps 0-{steps - 1} (pytorch_reference.py)")
    order = None
    for step in range(steps):
        epoch, index = divmod(step, per_epoch)
        if index == 0:
            order = epoch_order(len(images), seed, epoch)
        rows = order[index * batch:(index + 1) * batch]
        x = torch.from_numpy(images[rows]).unsqueeze(1).to(dtype)
        y = torch.from_numpy(labels[rows])
        loss = torch.nn.functional.cross_entropy(net(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"{loss.item():.9g}")


if __name__ == "__main__":
    main()
