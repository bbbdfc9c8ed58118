"""PyTorch's mean validation loss of the GPT example (examples/pytorch/gpt.py)
with the weights of an mpt-run checkpoint, over the consecutive
non-overlapping windows of T + 1 byte tokens of a file: what mpt-run --tokens
reports as the validation loss, compared with the last one METRICS (mpt-run's
--metrics-json) holds: they must agree within 1e-6 relative (mpt's logits
and PyTorch's are f32 products summed in other orders, 2e-9 apart here).

usage: token_validation_loss.py CHECKPOINT TOKENS METRICS
"""

import json
import os
import struct
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "examples", "pytorch"))
import gpt  # noqa: E402

checkpoint, tokens_path, metrics = sys.argv[1:4]
raw = open(checkpoint, "rb").read()
header_size = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + header_size])
model = gpt.GPT(context=64)
# The checkpoint holds the step's state by PyTorch's names, the optimizer's
# besides; the head is tied to the token table.
weights = {}
for name in model.state_dict():
    if name in header:
        begin, end = header[name]["data_offsets"]
        data = raw[8 + header_size + begin:8 + header_size + end]
        weights[name] = torch.from_numpy(
            np.frombuffer(data, dtype=np.float32).reshape(header[name]["shape"]).copy())
model.load_state_dict(weights, strict=False)

tokens = np.frombuffer(open(tokens_path, "rb").read(), dtype=np.uint8).astype(np.int64)
length = 64
windows = (len(tokens) - 1) // length
x = np.stack([tokens[i * length:(i + 1) * length] for i in range(windows)])
y = np.stack([tokens[i * length + 1:(i + 1) * length + 1] for i in range(windows)])
with torch.no_grad():
    logits = model(torch.from_numpy(x)).double()
loss = torch.nn.functional.cross_entropy(logits, torch.from_numpy(y).reshape(-1))
mpt = json.load(open(metrics))["validation_loss"][-1]
difference = abs(mpt - loss.item()) / loss.item()
print(f"pytorch validation loss {loss.item():.6f} over {windows} windows, "
      f"mpt's {mpt:.6f}: relative difference {difference:.1e}")
if not difference <= 1e-6:
    sys.exit("the validation losses differ by more than 1e-6")
