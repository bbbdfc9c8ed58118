"""Trains the example CNN 10 steps in mpt with f16 mixed precision, loads the
result into the PyTorch module with load_state_dict, and compares:
- every tensor of the module's state_dict with mpt's state, bit for bit
  (names and layouts survive the round trip);
- PyTorch's forward (eval mode) with the FP32 eval step, compiled for a
  batch of 5 rows (not training's 32), of a session given the same state:
  equal within f32 rounding (|a-b| <= 1e-5 (1 + |b|), a few
  ulps of the logits after three layers of f32 sums);
- PyTorch's forward with the f16 step's own evaluate: equal within f16
  rounding (2^-8 relative, plus 2^-8: the eval step's convolutions and GEMMs
  read f16 copies of activations and weights, each rounded to 2^-11).
"""

import sys

import numpy as np
import torch

import mpt

sys.path.insert(0, sys.argv[1])
import cnn  # noqa: E402

description = cnn.mpt_model(32, 0)
model = description["model"]
generator = torch.Generator().manual_seed(7)
batches = [(torch.randn(32, 1, 28, 28, generator=generator),
            torch.randint(0, 10, (32,), generator=generator)) for _ in range(10)]
step = mpt.compile(model, batches[0][0], batches[0][1],
                   optimizer=description["optimizer"], precision="f16")
for x, y in batches:
    step(x, y)

trained = step.state_dict()
model.load_state_dict(trained)
mine = step.state()
same = all(np.array_equal(model.state_dict()[k].numpy(), mine[k])
           for k in mine if k in model.state_dict())
print(f"state_dict keys {len(trained)} of {len(model.state_dict())}, "
      f"bit-identical after load_state_dict: {same}")
print(f"num_batches_tracked: {int(trained['bn1.num_batches_tracked'])}")

model.eval()
x = batches[0][0]
with torch.no_grad():
    expected = model(x).numpy()
# The eval step at another batch size than training's: 5 rows.
fp32 = mpt.compile(model, x, batches[0][1], optimizer=description["optimizer"],
                   eval_inputs=x[:5])
error = np.abs(fp32.evaluate(x[:5]) - expected[:5])
within = (error <= 1e-5 * (1 + np.abs(expected[:5]))).all()
print(f"fp32 evaluate of 5 rows vs torch: max |diff| {error.max():.2e}, within f32 "
      f"rounding: {bool(within)}")
error = np.abs(step.evaluate(x) - expected)
print(f"f16 evaluate vs torch: max |diff| {error.max():.2e}, within f16 "
      f"rounding: {bool((error <= 2.0 ** -8 * (1 + np.abs(expected))).all())}")
