"""Small models for the importer's tests: `small_models.py CASE`. Some the
importer or the step must refuse, with an error that names the problem and
where it came from; the others train in mpt as in PyTorch."""

import copy
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import mpt


class Cumsum(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        x = torch.cumsum(x, 1)  # the unsupported op
        return self.fc(x)


class Bilinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.bi = nn.Bilinear(4, 4, 3)

    def forward(self, x):
        return self.bi(x, x)


class Dropout(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.drop = nn.Dropout(1.0)

    def forward(self, x):
        return self.drop(self.fc(x))


class TiedTransposed(nn.Module):
    """An autoencoder whose decoder shares the encoder's memory transposed:
    two parameters of one storage in different layouts."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(4, 8)
        self.decoder = nn.Linear(8, 4)
        self.decoder.weight = nn.Parameter(self.encoder.weight.t())

    def forward(self, x):
        return self.decoder(torch.relu(self.encoder(x)))


class Tied(nn.Module):
    """The same parameter object in two layers, as GPT-2's wte and lm_head."""

    def __init__(self):
        super().__init__()
        self.first = nn.Linear(4, 4)
        self.second = nn.Linear(4, 4)
        self.second.weight = self.first.weight

    def forward(self, x):
        return self.second(torch.relu(self.first(x)))


class LogSoftmax(nn.Module):
    """Ends as PyTorch's MNIST example does: log_softmax, then nll_loss."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return torch.log_softmax(self.fc(x), dim=1)


class Frozen(nn.Module):
    """A frozen layer (requires_grad=False), one the forward never reads and
    a scale only evaluation reads: PyTorch's training changes none of them."""

    def __init__(self):
        super().__init__()
        self.frozen = nn.Linear(4, 4)
        self.frozen.requires_grad_(False)
        self.unused = nn.Linear(4, 4)
        self.fc = nn.Linear(4, 3)
        self.eval_scale = nn.Parameter(torch.ones(3))

    def forward(self, x):
        y = self.fc(torch.relu(self.frozen(x)))
        return y if self.training else y * self.eval_scale


class BagOfWords(nn.Module):
    """Token embeddings (nn.Embedding, or F.embedding of a parameter with
    `functional`) averaged over the sequence, then a linear classifier."""

    def __init__(self, functional=False, padding_idx=None):
        super().__init__()
        self.functional = functional
        if functional:
            self.weight = nn.Parameter(torch.randn(20, 6))
        else:
            self.tokens = nn.Embedding(20, 6, padding_idx=padding_idx)
        self.fc = nn.Linear(6, 3)

    def forward(self, ids):
        rows = F.embedding(ids, self.weight) if self.functional else self.tokens(ids)
        return self.fc(rows.mean(dim=1))


class Activations(nn.Module):
    """Regression through every activation the importer maps."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 16)
        self.fc2 = nn.Linear(16, 16)
        self.fc3 = nn.Linear(16, 3)

    def forward(self, x):
        x = F.gelu(self.fc1(x), approximate="tanh")
        x = torch.sigmoid(x) + torch.tanh(x) + F.silu(x)
        return self.fc3(nn.functional.relu(self.fc2(x)))


class Attention(nn.Module):
    """examples/pytorch/gpt.py's causal self-attention over float sequences,
    with a learned position table added to every sequence (broadcast) and a
    mean over time: a causal mask built from constants, 3-d matmuls, head
    reshapes and transposes."""

    def __init__(self):
        super().__init__()
        sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                        "..", "examples", "pytorch"))
        import gpt
        self.position = nn.Parameter(torch.randn(6, 4))
        self.attention = gpt.CausalSelfAttention(4, 2, 6)
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        x = x.view(x.shape[0], 6, 4) + self.position
        return self.fc(self.attention(x).mean(dim=1))


class Pooling(nn.Module):
    """An image classifier around one pooling function the importer refuses."""

    def __init__(self, pool):
        super().__init__()
        self.pool = pool
        self.fc = nn.Linear(2, 3)

    def forward(self, x):
        return self.fc(torch.mean(self.pool(x), dim=(2, 3)))


class Slicing(nn.Module):
    """A learned token joined to every sequence by torch.cat, then split,
    chunk, narrow, unbind and indexing (x[:, 0], x[..., :k], a strided
    slice), all read by the head: every slice's gradient reaches the input
    of the slicing, overlapping ones summed."""

    def __init__(self):
        super().__init__()
        self.token = nn.Parameter(torch.randn(1, 1, 4))
        self.embed = nn.Linear(4, 4)
        self.fc = nn.Linear(21, 3)

    def forward(self, x):
        x = self.embed(x.view(x.shape[0], 6, 4))
        x = torch.cat([self.token.expand(x.shape[0], -1, -1), x], dim=1)
        first, rest = torch.split(x, [3, 4], dim=1)
        low, high = x.chunk(2, dim=-1)
        a, b = torch.unbind(rest.narrow(1, 1, 2), dim=1)
        features = [x[:, 0], x[..., :1].flatten(1), first[:, ::2, 1],
                    low[:, 3], high[:, -1], a * b]
        return self.fc(torch.cat(features, 1))


class SelfAttention(nn.Module):
    """nn.MultiheadAttention over a learned position table added to every
    sequence, read by a linear head through the first token."""

    def __init__(self, batch_first, dropout=0.0):
        super().__init__()
        self.batch_first = batch_first
        self.position = nn.Parameter(torch.randn(6, 4))
        self.attention = nn.MultiheadAttention(4, 2, dropout=dropout,
                                               batch_first=batch_first)
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        x = x.view(x.shape[0], 6, 4) + self.position
        if not self.batch_first:
            x = x.transpose(0, 1)
        y, _ = self.attention(x, x, x, need_weights=False)
        return self.fc(y[:, 0] if self.batch_first else y[0])


class AttentionMask(SelfAttention):
    def forward(self, x):
        x = x.view(x.shape[0], 6, 4)
        y, _ = self.attention(x, x, x, attn_mask=torch.zeros(6, 6))
        return self.fc(y[:, 0])


class AttentionWeights(SelfAttention):
    def forward(self, x):
        x = x.view(x.shape[0], 6, 4)
        y, weights = self.attention(x, x, x)
        return self.fc(y[:, 0]) + weights[:, 0, :3]


class ScaledDotProduct(nn.Module):
    """F.scaled_dot_product_attention (torch 2.x) of heads split from one
    fused projection, read by a linear head through the last token."""

    def __init__(self, causal):
        super().__init__()
        self.causal = causal
        self.qkv = nn.Linear(4, 12)
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        x = x.view(x.shape[0], 6, 4)
        q, k, v = (t.view(x.shape[0], 6, 2, 2).transpose(1, 2)
                   for t in self.qkv(x).split(4, dim=-1))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        return self.fc(y.transpose(1, 2).reshape(x.shape[0], 6, 4)[:, -1])


def compile_model(model, batch=8, loss=None, target=None, width=4):
    if target is None:
        target = torch.randint(0, 3, (batch,))
    return mpt.compile(model, torch.randn(batch, width), target, loss=loss,
                       optimizer=torch.optim.SGD(model.parameters(), lr=0.1))


def train_against_torch(model, loss, steps=3, regression=False, width=4):
    """Trains `model` in mpt and a copy in PyTorch on one batch; returns the
    step, the copy and the batch."""
    reference = copy.deepcopy(model)
    x = torch.randn(8, width)
    y = torch.randn(8, 3) if regression else torch.randint(0, 3, (8,))
    step = compile_model(model, loss=loss, target=y, width=width)
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    for _ in range(steps):
        step(x, y)
        optimizer.zero_grad()
        loss(reference(x), y).backward()
        optimizer.step()
    return step, reference, x


def train_on_ids(model, ids, y, make_optimizer, steps=3):
    """Trains `model` in mpt and a copy in PyTorch on token ids; returns the
    step, the copy and the largest difference over the state_dict."""
    reference = copy.deepcopy(model)
    step = mpt.compile(model, ids, y, optimizer=make_optimizer(model))
    optimizer = make_optimizer(reference)
    for _ in range(steps):
        step(ids, y)
        optimizer.zero_grad()
        F.cross_entropy(reference(ids), y).backward()
        optimizer.step()
    return step, reference, state_difference(step, reference)


def state_difference(step, reference):
    """The largest difference between mpt's state_dict and PyTorch's."""
    trained = step.state_dict()
    return max((trained[k] - v).abs().max().item()
               for k, v in reference.state_dict().items())


def output_difference(step, reference, x):
    """The largest difference between mpt's eval step and PyTorch's forward."""
    with torch.no_grad():
        expected = reference(x)
    return (torch.from_numpy(step.evaluate(x)) - expected).abs().max().item()


def report(function):
    try:
        function()
    except (mpt.ImportError, mpt.Error) as error:
        print(f"{type(error).__name__}: {error}")


case = sys.argv[1]
torch.manual_seed(0)
if case == "cumsum":
    report(lambda: compile_model(Cumsum()))
elif case == "module":
    report(lambda: compile_model(Bilinear()))
elif case == "dropout":
    report(lambda: compile_model(Dropout()))
elif case == "pooling":
    images, labels = torch.randn(2, 2, 6, 5), torch.randint(0, 3, (2,))
    for pool in (nn.AvgPool2d(2, ceil_mode=True),
                 lambda x: F.avg_pool2d(x, 2, divisor_override=3),
                 lambda x: F.adaptive_avg_pool2d(x, (4, 2))):
        report(lambda: mpt.compile(Pooling(pool), images, labels))
elif case == "tied-transposed":
    report(lambda: compile_model(TiedTransposed()))
elif case == "data":
    step = compile_model(nn.Linear(4, 3))
    report(lambda: step(torch.randn(8, 5), torch.zeros(8, dtype=torch.int64)))
    report(lambda: step(torch.randn(8, 4), torch.full((8,), 3)))
    report(lambda: step(torch.randn(8, 4)))
elif case == "activations":
    step, reference, x = train_against_torch(Activations(), F.mse_loss,
                                             regression=True)
    print(f"after 3 steps, max |mpt - torch| over the state_dict: "
          f"{state_difference(step, reference):.1e}; outputs: "
          f"{output_difference(step, reference, x):.1e}")
elif case in ("attention", "slicing"):
    model = {"attention": Attention, "slicing": Slicing}[case]()
    step, reference, x = train_against_torch(model, F.cross_entropy, width=24)
    print(f"after 3 steps, max |mpt - torch| over the state_dict: "
          f"{state_difference(step, reference):.1e}; logits: "
          f"{output_difference(step, reference, x):.1e}")
elif case == "multihead-attention":
    for batch_first in (True, False):
        step, reference, x = train_against_torch(SelfAttention(batch_first),
                                                 F.cross_entropy, width=24)
        print(f"batch_first {batch_first}: parameters {sorted(step.state())}")
        print(f"batch_first {batch_first}: after 3 steps, max |mpt - torch| "
              f"over the state_dict: {state_difference(step, reference):.1e}; "
              f"logits: {output_difference(step, reference, x):.1e}")
    report(lambda: compile_model(SelfAttention(True, dropout=0.1), width=24))
    report(lambda: compile_model(AttentionMask(True), width=24))
    report(lambda: compile_model(AttentionWeights(True), width=24))
elif case == "scaled-dot-product":
    if not hasattr(F, "scaled_dot_product_attention"):
        print(f"torch {torch.__version__} has no scaled_dot_product_attention")
    else:
        differences = []
        for causal in (False, True):
            step, reference, x = train_against_torch(ScaledDotProduct(causal),
                                                     F.cross_entropy, width=24)
            differences.append((state_difference(step, reference),
                                output_difference(step, reference, x)))
        print(f"is_causal False and True: after 3 steps, max |mpt - torch| "
              f"over the state_dict: {max(d for d, _ in differences):.1e}; "
              f"logits: {max(o for _, o in differences):.1e}")
elif case == "log-softmax":
    # nll_loss of log_softmax trains as cross-entropy; the eval step returns
    # the log-probabilities.
    step, reference, x = train_against_torch(LogSoftmax(), F.nll_loss)
    print(f"after 3 steps, max |mpt - torch| over the state_dict: "
          f"{state_difference(step, reference):.1e}; log-probabilities: "
          f"{output_difference(step, reference, x):.1e}")
elif case == "frozen":
    model = Frozen()
    before = copy.deepcopy(model.state_dict())
    step, reference, _ = train_against_torch(model, F.cross_entropy)
    trained = step.state_dict()
    print("keys:", sorted(trained) == sorted(reference.state_dict()))
    for key in ("frozen.weight", "unused.weight", "eval_scale", "fc.weight"):
        print(f"{key}: unchanged {bool((trained[key] == before[key]).all())}, "
              f"max |mpt - torch| {(trained[key] - reference.state_dict()[key]).abs().max():.1e}")
elif case == "embedding":
    # Ids with repeats (40 draws of 20 rows): each table row's gradient sums
    # the rows of its ids, as PyTorch's does.
    for functional in (False, True):
        ids, y = torch.randint(0, 20, (8, 5)), torch.randint(0, 3, (8,))
        step, reference, difference = train_on_ids(
            BagOfWords(functional), ids, y,
            lambda m: torch.optim.SGD(m.parameters(), lr=0.5))
        print(f"functional {functional}: after 3 steps, max |mpt - torch| over "
              f"the state_dict: {difference:.1e}; logits: "
              f"{output_difference(step, reference, ids):.1e}")
    # An id outside the table is refused where it is bound, in training and
    # in evaluation, never read out of bounds.
    report(lambda: step(torch.full((8, 5), 20), y))
    report(lambda: step.evaluate(torch.full((8, 5), -1)))
    report(lambda: mpt.compile(BagOfWords(padding_idx=0), ids, y))
elif case == "gpt":
    # examples/pytorch/gpt.py, small: the token embedding, whose table the
    # head also reads (tied), a position table, one block; AdamW as the
    # example configures it. Adam's normalized updates make small gradient
    # differences visible, so the bound is 1e-4 on parameters that move by
    # up to 9e-3 in three steps.
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                    "..", "examples", "pytorch"))
    import gpt
    ids, y = torch.randint(0, 256, (2, 16)), torch.randint(0, 256, (32,))
    step, _, difference = train_on_ids(
        gpt.GPT(context=16, dim=32, heads=2, layers=1), ids, y,
        gpt.make_optimizer)
    trained = step.state_dict()
    print(f"after 3 steps, state_dict within 1e-4 of PyTorch: {difference < 1e-4}, "
          f"lm_head.weight is wte.weight: "
          f"{bool((trained['lm_head.weight'] == trained['wte.weight']).all())}")
elif case == "tied":
    # One parameter in the step; trained, it equals PyTorch's, whose gradient
    # sums both uses.
    step, reference, _ = train_against_torch(Tied(), F.cross_entropy)
    names = sorted(n for n in step.state() if n.endswith("weight"))
    print("weights in the step:", names)
    trained = step.state_dict()
    print(f"after 3 steps, max |mpt - torch| over the state_dict: "
          f"{state_difference(step, reference):.1e}, second.weight is first.weight: "
          f"{bool((trained['second.weight'] == trained['first.weight']).all())}")
