"""mpt from Python: compile a PyTorch module into a mixed-precision training
step and run it through the runtime's C API (libmpt_runtime.so, by ctypes).

    step = mpt.compile(model, x, y, loss=F.cross_entropy, optimizer=opt,
                       precision="bf16")
    metrics = step(x, y)          # loss, loss_scale, skipped, ...
    logits = step.evaluate(x)
    model.load_state_dict(step.state_dict())

No MLIR is seen from Python: the importer writes the step's text, the runtime
compiles it. Errors are mpt.Error (the runtime's message and status) or
mpt.ImportError (what the importer cannot express, naming the source line).
"""

import ctypes
import os
import tempfile

import numpy as np

from . import _runtime as rt
from ._runtime import Error

__all__ = ["compile", "Step", "Error", "ImportError", "import_module"]

_NUMPY_DTYPES = {rt.DTYPE_F32: np.float32, rt.DTYPE_I32: np.int32,
                 rt.DTYPE_I64: np.int64}


def _array(value):
    """A C-contiguous NumPy array of a NumPy array or a CPU torch tensor, with
    no copy where the layout already is one."""
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        value = value.detach()
        if value.device.type != "cpu":
            value = value.cpu()
        value = value.numpy()
    array = np.ascontiguousarray(value)
    if array.dtype == np.float64:
        array = array.astype(np.float32)
    return array


def _dtype_of(array, name):
    for dtype, numpy_type in _NUMPY_DTYPES.items():
        if array.dtype == numpy_type:
            return dtype
    raise Error("INVALID_ARGUMENT",
                f"input '{name}' is {array.dtype}; pass float32, float64, "
                "int32 or int64")


class Step:
    """A compiled training step with its session: the model's state on the
    device, updated by each call."""

    def __init__(self, program, session, imported):
        self._program = program
        self._session = session
        self._imported = imported
        runtime = rt.lib()
        self._inputs = {
            function: [self._input_info(function, i) for i in range(
                runtime.mpt_program_num_inputs(program, function))]
            for function in (rt.FUNCTION_TRAIN, rt.FUNCTION_EVAL)}
        self._outputs = {
            function: [self._output_info(function, i) for i in range(
                runtime.mpt_program_num_outputs(program, function))]
            for function in (rt.FUNCTION_TRAIN, rt.FUNCTION_EVAL)}
        self.steps = 0
        # The compiler's warnings, as mpt-opt prints them.
        self.warnings = runtime.mpt_program_warnings(program).decode()

    def _input_info(self, function, index):
        info = rt.TensorInfo()
        rt.check(rt.lib().mpt_program_input_info(self._program, function, index,
                                                 ctypes.byref(info)))
        return rt.tensor_info_dict(info)

    def _output_info(self, function, index):
        info = rt.TensorInfo()
        rt.check(rt.lib().mpt_program_output_info(self._program, function,
                                                  index, ctypes.byref(info)))
        return rt.tensor_info_dict(info)

    def __del__(self):
        if rt._lib is not None:
            rt._lib.mpt_session_free(self._session)
            rt._lib.mpt_program_free(self._program)

    def _bind(self, function, values):
        inputs = self._inputs[function]
        if len(values) != len(inputs):
            names = ", ".join(i["name"] for i in inputs)
            raise Error("INVALID_ARGUMENT",
                        f"the step takes {len(inputs)} inputs ({names}), "
                        f"got {len(values)}")
        for info, value in zip(inputs, values):
            array = _array(value)
            if tuple(array.shape) != info["shape"]:
                raise Error("INVALID_ARGUMENT",
                            f"input '{info['name']}' has shape "
                            f"{list(array.shape)}; the step takes "
                            f"{list(info['shape'])}")
            rt.check(rt.lib().mpt_session_bind_input(
                self._session, function, info["name"].encode(),
                _dtype_of(array, info["name"]), array.ctypes.data, array.nbytes))

    def _read_output(self, function, info):
        array = np.empty(info["shape"], np.float32)
        rt.check(rt.lib().mpt_session_read_output(
            self._session, function, info["name"].encode(), rt.DTYPE_F32,
            array.ctypes.data, array.nbytes))
        return array

    def __call__(self, *inputs):
        """One training step on a batch (the model's inputs, then the labels);
        returns its metrics."""
        self._bind(rt.FUNCTION_TRAIN, inputs)
        metrics = rt.StepMetrics()
        rt.check(rt.lib().mpt_session_step(self._session, ctypes.byref(metrics)))
        self.steps += 1
        result = {"loss": metrics.loss, "loss_scale": metrics.loss_scale,
                  "skipped": bool(metrics.skipped),
                  "grad_zero": metrics.grad_zero,
                  "grad_nonfinite": metrics.grad_nonfinite,
                  "peak_memory": {name: getattr(metrics.peak_memory, name)
                                  for name in rt.MEMORY_CATEGORIES}}
        for info in self._outputs[rt.FUNCTION_TRAIN]:
            if info["name"] not in result and info["shape"] == ():
                value = ctypes.c_double()
                rt.check(rt.lib().mpt_session_step_metric(
                    self._session, info["name"].encode(), ctypes.byref(value)))
                result[info["name"]] = value.value
        return result

    def evaluate(self, *inputs):
        """The eval step's output (the logits) on a batch, from the current
        state; batch norm uses its running statistics."""
        self._bind(rt.FUNCTION_EVAL, inputs)
        rt.check(rt.lib().mpt_session_eval(self._session))
        return self._read_output(rt.FUNCTION_EVAL,
                                 self._outputs[rt.FUNCTION_EVAL][0])

    def state(self):
        """Every parameter and piece of state, by the session's names, as
        float32 arrays."""
        runtime = rt.lib()
        result = {}
        for index in range(runtime.mpt_session_num_state(self._session)):
            info = rt.TensorInfo()
            rt.check(runtime.mpt_session_state_info(self._session, index,
                                                    ctypes.byref(info)))
            entry = rt.tensor_info_dict(info)
            array = np.empty(entry["shape"], np.float32)
            rt.check(runtime.mpt_session_read_state(
                self._session, info.name, array.ctypes.data, array.size))
            result[entry["name"]] = array
        return result

    def write_state(self, name, value):
        array = np.ascontiguousarray(_array(value), dtype=np.float32)
        rt.check(rt.lib().mpt_session_write_state(
            self._session, name.encode(), array.ctypes.data, array.size))

    def state_dict(self):
        """The model's state_dict as torch tensors, PyTorch's names and
        layouts: load it with model.load_state_dict. Tied parameters appear
        under each of their names; batch norm's num_batches_tracked counts the
        training steps run."""
        import torch
        state = self.state()
        result = {}
        for key in self._imported.state_dict_keys:
            name = self._imported.aliases.get(key, key)
            if name in state:
                result[key] = torch.from_numpy(state[name].copy())
            elif key.endswith("num_batches_tracked"):
                result[key] = torch.tensor(self.steps, dtype=torch.int64)
        return result

    def load_state_dict(self, state_dict):
        """Overwrites the parameters and buffers the step takes from a
        PyTorch state_dict (tied parameters under any of their names);
        optimizer state and entries the step does not take are left alone."""
        state = self.state()
        for key, value in state_dict.items():
            name = self._imported.aliases.get(key, key)
            if name in state and name in self._imported.initial_state:
                self.write_state(name, value)

    def save(self, path):
        """A checkpoint in the runtime's format (safetensors, every parameter
        and state tensor bit for bit)."""
        rt.check(rt.lib().mpt_session_save(self._session, os.fspath(path).encode(),
                                           self.steps))

    def load(self, path):
        position = ctypes.c_int64(0)
        rt.check(rt.lib().mpt_session_load(self._session,
                                           os.fspath(path).encode(),
                                           ctypes.byref(position)))
        self.steps = position.value


def compile(module, example_inputs, target, loss=None, optimizer=None,  # noqa: A001
            precision="fp32", loss_scale="auto", device="cpu", seed=0,
            dump_prefix=None, eval_inputs=None, lr_scheduler=None,
            total_steps=None, recompute="none", cuda_graphs=True):
    """Imports `module` and compiles its training step; the session starts
    from the module's current parameters and buffers.

    `example_inputs` (a tensor or tuple) and `target` give the batch shapes;
    `loss` defaults to cross-entropy; `optimizer` is a torch.optim SGD, Adam,
    AdamW, RMSprop, Adagrad or Adadelta over the module's parameters (default SGD, lr 0.01);
    `precision` is "fp32", "f16" or "bf16"; `loss_scale` "auto", "dynamic",
    "static", "none" or a number (a static scale); `eval_inputs` gives
    step.evaluate another batch size than training's; `lr_scheduler` (with
    `total_steps` where it has no closed form) is compiled into the step,
    which reports the rate as the metric "lr" (see import_module);
    `recompute` "sqrt" recomputes about sqrt(N) segments of the forward in
    the backward instead of keeping their activations (bit-identical results,
    less memory at the step's peak), "none" keeps them all; on CUDA,
    `cuda_graphs` replays each step from its second run as one captured CUDA
    graph (False: launches its kernels one by one)."""
    from .torch_import import import_module
    import torch.nn.functional as F

    imported = import_module(module, example_inputs, target,
                             loss if loss is not None else F.cross_entropy,
                             optimizer, eval_inputs, lr_scheduler,
                             total_steps)
    runtime = rt.lib()
    options = rt.CompileOptions()
    runtime.mpt_compile_options_init(ctypes.byref(options))
    if precision not in rt.PRECISIONS:
        raise Error("INVALID_ARGUMENT", f"precision '{precision}' is not one "
                    "of fp32, f16, bf16")
    if device not in rt.DEVICES:
        raise Error("INVALID_ARGUMENT", f"device '{device}' is not one of cpu, "
                    "cuda")
    options.precision = rt.PRECISIONS[precision]
    options.device = rt.DEVICES[device]
    if isinstance(loss_scale, (int, float)):
        options.loss_scale = rt.LOSS_SCALES["static"]
        options.init_scale = float(loss_scale)
    elif loss_scale in rt.LOSS_SCALES:
        options.loss_scale = rt.LOSS_SCALES[loss_scale]
    else:
        raise Error("INVALID_ARGUMENT", f"loss_scale '{loss_scale}' is not a "
                    "number or one of auto, dynamic, static, none")
    if recompute not in rt.RECOMPUTE:
        raise Error("INVALID_ARGUMENT", f"recompute '{recompute}' is not one "
                    "of none, sqrt, marked")
    options.recompute = rt.RECOMPUTE[recompute]
    options.cuda_graphs = int(bool(cuda_graphs))
    if dump_prefix is not None:
        options.dump_prefix = os.fspath(dump_prefix).encode()
    with tempfile.NamedTemporaryFile("w", suffix=".mlir") as source:
        source.write(imported.mlir)
        source.flush()
        program = ctypes.c_void_p()
        rt.check(runtime.mpt_program_compile(source.name.encode(),
                                             ctypes.byref(options),
                                             ctypes.byref(program)))
    session = ctypes.c_void_p()
    try:
        rt.check(runtime.mpt_session_create(program, seed, ctypes.byref(session)))
    except Error:
        runtime.mpt_program_free(program)
        raise
    step = Step(program, session, imported)
    step.load_state_dict(imported.initial_state)
    return step


def __getattr__(name):
    # The importer needs torch; load it only when asked for.
    if name in ("ImportError", "import_module"):
        from . import torch_import
        return getattr(torch_import, name)
    raise AttributeError(name)
