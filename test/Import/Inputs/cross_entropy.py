"""Cross-entropy with ignore_index and label smoothing, imported from
PyTorch, against PyTorch's own loss and gradients: `cross_entropy.py`.

For each loss and seed, a linear layer takes one SGD step with lr 1 on a
batch whose targets hold the ignored label at several positions, so the
weights' change is the gradient; mpt's loss and gradient are printed as the
largest difference from PyTorch's (float32 both)."""

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

import mpt

BATCH, FEATURES, CLASSES = 8, 6, 5
# Where the targets hold the ignored label.
IGNORED_AT = [1, 4, 5]


class LogSoftmaxLinear(nn.Module):
    """Ends as PyTorch's MNIST example does: log_softmax for nll_loss."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        return F.log_softmax(self.fc(x), dim=1)


LOSSES = {
    "F.cross_entropy(label_smoothing=0.1), -100 ignored": (
        lambda: nn.Linear(FEATURES, CLASSES), -100,
        lambda out, y: F.cross_entropy(out, y, label_smoothing=0.1)),
    "nn.CrossEntropyLoss(ignore_index=2, label_smoothing=0.3)": (
        lambda: nn.Linear(FEATURES, CLASSES), 2,
        nn.CrossEntropyLoss(ignore_index=2, label_smoothing=0.3)),
    "F.nll_loss(log_softmax, ignore_index=0)": (
        LogSoftmaxLinear, 0,
        lambda out, y: F.nll_loss(out, y, ignore_index=0)),
}


def one_step(make_model, loss, x, y):
    """mpt's and PyTorch's loss and gradient (the change of the weights
    under SGD with lr 1) from the same initial weights."""
    model = make_model()
    reference = copy.deepcopy(model)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    step = mpt.compile(model, x, y, loss=loss,
                       optimizer=torch.optim.SGD(model.parameters(), lr=1.0))
    mpt_loss = step(x, y)["loss"]
    mpt_grads = {k: before[k] - v for k, v in step.state_dict().items()}
    torch_loss = loss(reference(x), y)
    torch_loss.backward()
    torch_grads = {k: p.grad for k, p in reference.named_parameters()}
    return mpt_loss, torch_loss.item(), mpt_grads, torch_grads


for name, (make_model, ignored, loss) in LOSSES.items():
    loss_error = grad_error = 0.0
    for seed in range(4):
        torch.manual_seed(seed)
        x = torch.randn(BATCH, FEATURES)
        y = torch.randint(0, CLASSES, (BATCH,))
        y[IGNORED_AT] = ignored
        mpt_loss, torch_loss, mpt_grads, torch_grads = one_step(
            make_model, loss, x, y)
        loss_error = max(loss_error, abs(mpt_loss - torch_loss) / torch_loss)
        grad_error = max(grad_error, max(
            (mpt_grads[k] - torch_grads[k]).abs().max().item()
            for k in mpt_grads))
    print(f"{name}: 4 seeds, loss within {loss_error:.0e} (relative), "
          f"gradients within {grad_error:.0e}")

# Every target ignored: PyTorch's mean is 0 / 0, NaN, and its gradient zero.
torch.manual_seed(0)
x = torch.randn(BATCH, FEATURES)
y = torch.full((BATCH,), -100)
mpt_loss, torch_loss, mpt_grads, _ = one_step(
    lambda: nn.Linear(FEATURES, CLASSES), F.cross_entropy, x, y)
print(f"all ignored: mpt loss {mpt_loss}, torch loss {torch_loss}, largest "
      f"weight change {max(g.abs().max().item() for g in mpt_grads.values())}")

# Without ignore_index, a label outside the classes is refused where it is
# bound; PyTorch's default -100 is accepted.
torch.manual_seed(0)
step = mpt.compile(nn.Linear(FEATURES, CLASSES), x, y, loss=F.cross_entropy)
try:
    step(x, torch.full((BATCH,), -7))
except mpt.Error as error:
    print(f"Error: {error}")
