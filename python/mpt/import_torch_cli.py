"""mpt-import-torch: a PyTorch model file to an mpt training step.

    mpt-import-torch model.py[:function] -o step.mlir [--weights w.safetensors]

`function` (default `mpt_model`) takes no arguments and returns a dict:
`model` (a torch.nn.Module), `inputs` (an example batch: a tensor or a tuple),
`target` (its labels), and optionally `loss` (default cross-entropy) and
`optimizer` (torch.optim SGD, Adam, AdamW, RMSprop, Adagrad or Adadelta over
the model's parameters).
The step is written to -o; the model's current parameters and buffers go to
--weights (default: the step's path with .safetensors), which
`mpt-run --init-state` loads.
"""

import argparse
import importlib.util
import json
import os
import struct
import sys


def write_safetensors(path, tensors):
    """Writes float32 tensors as a safetensors file."""
    header = {}
    offset = 0
    blobs = []
    for name, tensor in tensors.items():
        data = tensor.detach().contiguous().float().numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensor.shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    temporary = path + ".tmp"
    with open(temporary, "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        for blob in blobs:
            out.write(blob)
    os.replace(temporary, path)


def load_description(spec, **arguments):
    """The dict that `spec`'s function (model.py[:function]) returns, called
    with `arguments`."""
    path, _, function = spec.partition(":")
    function = function or "mpt_model"
    if not os.path.isfile(path):
        raise SystemExit(f"mpt-import-torch: no model file '{path}'")
    loader = importlib.util.spec_from_file_location("mpt_user_model", path)
    module = importlib.util.module_from_spec(loader)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    loader.loader.exec_module(module)
    if not hasattr(module, function):
        raise SystemExit(f"mpt-import-torch: {path} defines no function "
                         f"'{function}'")
    description = getattr(module, function)(**arguments)
    missing = [k for k in ("model", "inputs", "target") if k not in description]
    if missing:
        raise SystemExit(f"mpt-import-torch: {path}:{function}() returned no "
                         f"{', '.join(missing)}")
    return description


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="mpt-import-torch",
        description="Imports a PyTorch model into an mpt training step.")
    parser.add_argument("model", help="model.py[:function]")
    parser.add_argument("-o", "--output", required=True, help="the step (.mlir)")
    parser.add_argument("--weights", help="initial state (.safetensors)")
    args = parser.parse_args(argv)
    from .torch_import import ImportError as StepImportError, import_module
    import torch.nn.functional as F

    description = load_description(args.model)
    try:
        step = import_module(description["model"], description["inputs"],
                             description["target"],
                             description.get("loss", F.cross_entropy),
                             description.get("optimizer"))
    except StepImportError as error:
        raise SystemExit(f"mpt-import-torch: {args.model}: {error}")
    weights = args.weights or os.path.splitext(args.output)[0] + ".safetensors"
    with open(args.output, "w") as out:
        out.write(step.mlir)
    write_safetensors(weights, step.initial_state)
    print(f"mpt-import-torch: wrote {args.output} ({len(step.parameters)} "
          f"parameters, {len(step.buffers)} buffers) and {weights}")


if __name__ == "__main__":
    main()
