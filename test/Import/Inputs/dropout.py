"""An imported Linear-ReLU-Dropout-Linear model trains in mpt (the loss
falls), and each step equals PyTorch's forward and backward of the same model
given mpt's mask.

The mask is read back from mpt: a probe model whose dropout (stream 0 of
the step, like the model's one dropout, same shape, seed and counter) takes
a parameter of ones, so that one SGD step moves exactly the kept elements of
the parameter.

usage: dropout.py P STEPS
"""

import copy
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import mpt

p, steps = float(sys.argv[1]), int(sys.argv[2])
batch, width, hidden, classes = 16, 8, 32, 4


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(width, hidden)
        self.drop = nn.Dropout(p)
        self.fc2 = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.fc1(x))))


class Probe(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(batch, hidden))
        self.drop = nn.Dropout(p)

    def forward(self, x):
        return self.drop(x * self.w)


torch.manual_seed(0)
x = torch.randn(batch, width)
y = torch.randint(0, classes, (batch,))

# The masks of the first `steps` steps, from the probe.
probe_model = Probe()
probe = mpt.compile(probe_model, torch.ones(batch, hidden),
                    torch.zeros(batch, hidden), loss=F.mse_loss,
                    optimizer=torch.optim.SGD(probe_model.parameters(), lr=1e-3))
masks, before = [], probe.state()["w"]
for _ in range(steps):
    probe(torch.ones(batch, hidden), torch.zeros(batch, hidden))
    after = probe.state()["w"]
    masks.append(torch.from_numpy(after != before))
    before = after
kept = torch.stack(masks).float().mean().item()
print(f"kept fraction {kept:.3f} of {steps * batch * hidden} (1 - p = {1 - p})")

model = Model()
reference = copy.deepcopy(model)
step = mpt.compile(model, x, y,
                   optimizer=torch.optim.SGD(model.parameters(), lr=0.5))
optimizer = torch.optim.SGD(reference.parameters(), lr=0.5)
losses, worst = [], 0.0
for k in range(steps):
    losses.append(step(x, y)["loss"])
    # PyTorch's dropout with mpt's mask: its noise is the mask divided by
    # 1 - p in f32, times the input (ATen's _dropout_impl).
    noise = masks[k].float().div_(1 - p)
    optimizer.zero_grad()
    hidden_out = F.relu(reference.fc1(x)) * noise
    loss = F.cross_entropy(reference.fc2(hidden_out), y)
    loss.backward()
    optimizer.step()
    worst = max(worst, abs(losses[-1] - loss.item()))
trained = step.state_dict()
state = max((trained[name] - value).abs().max().item()
            for name, value in reference.state_dict().items())
print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}: "
      f"{'falls' if losses[-1] < 0.5 * losses[0] else 'DOES NOT FALL'}")
print(f"against PyTorch with mpt's masks: losses within {worst:.0e}, "
      f"state within {state:.0e}: "
      f"{'same' if worst < 1e-5 and state < 1e-5 else 'DIFFERENT'}")

# F.dropout with the module's training flag is the same op in the training
# step and nothing in @predict, whose trace runs in evaluation mode.
class Functional(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(width, classes)

    def forward(self, x):
        return F.dropout(self.fc(x), p, self.training)


text = mpt.import_module(Functional(), x, y).mlir
train, predict = text.split("func.func @predict")
print(f"F.dropout: {train.count('mpt.dropout')} in the training step, "
      f"{predict.count('mpt.dropout')} in @predict")

# Evaluation has no dropout: @predict is the plain forward pass.
with torch.no_grad():
    expected = reference.fc2(F.relu(reference.fc1(x)))
difference = (torch.from_numpy(step.evaluate(x)) - expected).abs().max().item()
print(f"evaluation without dropout: {'same' if difference < 1e-5 else 'DIFFERENT'}")
