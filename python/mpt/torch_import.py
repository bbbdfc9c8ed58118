"""From a torch.nn.Module, example inputs and a loss to an mpt training step.

The model and its loss are traced with torch.fx (symbolic tracing), which both
Debian's torch 1.13 and current torch 2.x have, so one importer serves both;
torch.export is 2.x only and would give a second code path to keep equal to
the first. Shapes come from running the traced graph once on the example
inputs (fx's ShapeProp), on a copy of the model, so the caller's running
statistics and random state do not move.

The result is a module of two functions over the same forward pass:
@train_step (the forward in training mode and the loss: mpt-autodiff builds
the backward and the optimizer) and @predict (the forward in evaluation mode:
batch norm from its running statistics, dropout off). Parameters and buffers
keep their PyTorch names (the step's argument names, hence the checkpoint's
tensor names) and layouts (a Linear's weight stays (out, in) and the matmul
reads it transposed), so a trained state loads back with load_state_dict.

Anything the importer cannot express exactly is an ImportError naming the op
and the line of the user's source that produced it: never a different graph.
"""

import copy
import inspect
import math
import operator
import warnings

import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.experimental.meta_tracer import MetaTracer, proxys_to_metas
from torch.fx.passes.shape_prop import ShapeProp


class ImportError(Exception):  # noqa: A001 - the importer's own error type
    """A model the importer cannot express exactly."""


def _source_line(node):
    """The user's source line behind an fx node: the innermost frame of its
    recorded stack below fx's tracer that is neither torch's nor the
    importer's own wrapper. torch 1.13 records the stack innermost first,
    torch 2.x outermost first (starting at `<module>`) and with torch's own
    frames after the user's."""
    lines = (node.meta.get("stack_trace") or "").strip().splitlines()
    frames = [(line.strip().replace("File ", "", 1),
               lines[i + 1].strip() if i + 1 < len(lines) else "")
              for i, line in enumerate(lines) if line.strip().startswith("File ")]
    if frames and not frames[0][0].endswith("in <module>"):
        frames.reverse()
    tracer = [i for i, (where, _) in enumerate(frames)
              if "torch/fx/_symbolic_trace.py" in where]
    inner = frames[tracer[0] + 1:] if tracer else frames
    user = [(where, code) for where, code in inner
            if "/torch/" not in where and '"<string>"' not in where
            and f'"{__file__}"' not in where]
    if not user:
        return None
    where, code = user[-1]
    return f"{where}: {code}" if code else where


def _fail(node, message):
    line = _source_line(node) if node is not None else None
    where = f" (at {line})" if line else ""
    raise ImportError(f"{message}{where}")


_DTYPES = {torch.float32: "f32", torch.int32: "i32", torch.int64: "i32"}


def _tensor_type(shape, element="f32"):
    dims = "x".join(str(int(d)) for d in shape)
    return f"tensor<{dims}x{element}>" if dims else f"tensor<{element}>"


def _array(values):
    return "array<i64: " + ", ".join(str(int(v)) for v in values) + ">"


def _pair(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)


def _float(value):
    return f"{float(value):.9e}"


def _float64(value):
    """An f64 attribute that holds `value` exactly (17 digits)."""
    return f"{float(value):.16e}"


class _Value:
    """An SSA value of the step: its name, shape and element type."""

    def __init__(self, name, shape, element="f32"):
        self.name = name
        self.shape = tuple(int(d) for d in shape)
        self.element = element

    @property
    def type(self):
        return _tensor_type(self.shape, self.element)


class _Constant:
    """A tensor that depends on no input, written into the step only where
    an op reads it (a mask that only masked_fill reads never is)."""

    def __init__(self, tensor):
        self.tensor = tensor

    def materialize(self, emit):
        return emit.tensor_constant(self.tensor)


# The ops that return a tuple of tensors, as functions and as methods.
_PIECES = {torch.split, torch.chunk, torch.unbind, "split", "chunk", "unbind"}


class _Tracer(MetaTracer):
    """fx's tracer on meta tensors of the example inputs' shapes, so that
    shapes are Python values while tracing (torchvision's models unpack
    them: `n, c, h, w = x.shape`), recording each node's Python stack for
    error messages."""

    def __init__(self):
        super().__init__()
        self.record_stack_traces = True

    def is_leaf_module(self, module, qualified_name):
        # fx cannot trace MultiheadAttention's forward (its checks branch on
        # tensors): the importer expands it itself (_multihead_attention).
        return (isinstance(module, nn.MultiheadAttention)
                or super().is_leaf_module(module, qualified_name))

    def call_module(self, module, forward, args, kwargs):
        result = super().call_module(module, forward, args, kwargs)
        # Its (output, weights) as a tuple, which the caller may unpack.
        if isinstance(module, nn.MultiheadAttention):
            return result[0], result[1]
        return result

    def create_proxy(self, kind, target, args, kwargs, *rest, **options):
        proxy = super().create_proxy(kind, target, args, kwargs, *rest,
                                     **options)
        # The pieces of a split as a tuple, which the caller may unpack: fx
        # cannot iterate a proxy (and, on torch 1.13 under Python 3.12, fails
        # reading the caller's bytecode).
        if kind in ("call_function", "call_method") and target in _PIECES:
            metas, options = torch.fx.node.map_aggregate(
                (args, kwargs), proxys_to_metas)
            pieces = (target(*metas, **options) if kind == "call_function"
                      else getattr(metas[0], target)(*metas[1:], **options))
            return tuple(proxy[i] for i in range(len(pieces)))
        return proxy


def _is_traced_constant(node):
    """A tensor fx made while tracing, from no input (torch.tril(torch.ones(
    n, n)) with a Python n), and stored on the traced module."""
    return node.op == "get_attr" and node.target.startswith("_tensor_constant")


# Ops whose result is fresh randomness: never folded into a constant.
_RANDOM = {torch.rand, torch.randn, torch.randint, torch.rand_like,
           torch.randn_like, torch.randint_like, torch.bernoulli,
           torch.normal, torch.multinomial, torch.randperm}


class _ShapeProp(ShapeProp):
    """fx's ShapeProp, also keeping the values the step takes as constants:
    those of nodes that are not tensors (sizes, shapes), and tensors that
    depend on no input, parameter or module (a causal mask, positions)."""

    def run_node(self, node):
        result = super().run_node(node)
        # A tuple of tensors (split, attention's output and weights) is the
        # graph's values, not a Python constant.
        holds_tensor = isinstance(result, (tuple, list)) and any(
            isinstance(r, torch.Tensor) for r in result)
        if not isinstance(result, torch.Tensor) and not holds_tensor:
            node.meta["concrete"] = result
        elif self.is_constant(node):
            node.meta["constant"] = result.detach().clone()
        return result

    def is_constant(self, node):
        if node.op == "get_attr":
            return _is_traced_constant(node)
        if node.op in ("placeholder", "call_module"):
            return False
        if node.target in _RANDOM:
            return False
        inputs = node.all_input_nodes
        return all("concrete" in n.meta or "constant" in n.meta for n in inputs)


def _trace(root, example_inputs, training):
    """Traces a copy of `root` in training or evaluation mode and records
    every node's shape by running it on the example inputs; `root` itself,
    its running statistics among it, does not change."""
    root = copy.deepcopy(root).train(training)
    # The tracer runs the layers on meta tensors: a copy on the meta device
    # (torch 2.x refuses a CPU weight with a meta input).
    meta_root = copy.deepcopy(root).to(device="meta")
    names = list(inspect.signature(root.forward).parameters)
    meta_args = {name: x.to(device="meta")
                 for name, x in zip(names, example_inputs)}
    try:
        with warnings.catch_warnings():
            # Ops it cannot run on meta tensors leave their shapes to
            # ShapeProp; only reading such a shape while tracing fails.
            warnings.simplefilter("ignore", UserWarning)
            graph = _Tracer().trace(meta_root, meta_args=meta_args)
    except Exception as error:  # fx raises TraceError, TypeError, ...
        raise ImportError(f"torch.fx cannot trace the model: {error}") from None
    for node in graph.nodes:
        if _is_traced_constant(node):
            setattr(root, node.target, getattr(meta_root, node.target))
    module = torch.fx.GraphModule(root, graph)
    with torch.no_grad():
        _ShapeProp(module).propagate(*example_inputs)
    return module


class _Emitter:
    """Writes one function's body: ops on _Values, one line each."""

    def __init__(self, training):
        self.training = training
        self.lines = []
        self.count = 0

    def fresh(self, hint):
        self.count += 1
        # A leading underscore keeps them apart from PyTorch names.
        return f"%_{hint}{self.count}"

    def op(self, text, shape, hint="v", element="f32"):
        value = _Value(self.fresh(hint), shape, element)
        self.lines.append(f"  {value.name} = {text}")
        return value

    def constant(self, scalar, shape):
        type_ = _tensor_type(shape)
        return self.op(f"arith.constant dense<{_float(scalar)}> : {type_}",
                       shape, "c")

    def tensor_constant(self, tensor):
        """A constant tensor of the step, its bytes in hex: f32 for floats,
        i32 for integers (positions, ids)."""
        if tensor.is_floating_point():
            data, element = tensor.to(torch.float32), "f32"
        elif tensor.dtype in (torch.int32, torch.int64, torch.bool):
            data, element = tensor.to(torch.int32), "i32"
        else:
            raise ImportError(f"a constant tensor of type {tensor.dtype}")
        raw = data.contiguous().numpy().tobytes().hex().upper()
        type_ = _tensor_type(tensor.shape, element)
        return self.op(f'arith.constant dense<"0x{raw}"> : {type_}',
                       tensor.shape, "c", element)

    def broadcast(self, x, shape):
        """`x` broadcast to `shape` by PyTorch's rules: size-1 or missing
        leading dimensions become the new dimensions of mpt.broadcast."""
        shape = tuple(shape)
        if x.shape == shape:
            return x
        aligned = (1,) * (len(shape) - len(x.shape)) + x.shape
        new_dims = [d for d, (a, b) in enumerate(zip(aligned, shape)) if a != b]
        kept = self.reshape(x, [a for d, a in enumerate(aligned) if d not in new_dims])
        return self.op(f"mpt.broadcast {kept.name} [{', '.join(map(str, new_dims))}]"
                       f" : {kept.type} -> {_tensor_type(shape)}", shape)

    def reshape(self, x, shape):
        shape = tuple(int(d) for d in shape)
        if shape == x.shape:
            return x
        return self.op(f"mpt.reshape {x.name} : {x.type} -> "
                       f"{_tensor_type(shape)}", shape)

    def transpose(self, x, permutation):
        if list(permutation) == list(range(len(x.shape))):
            return x
        shape = [x.shape[p] for p in permutation]
        return self.op(f"mpt.transpose {x.name} [{', '.join(map(str, permutation))}]"
                       f" : {x.type} -> {_tensor_type(shape)}", shape)

    def extract_slice(self, x, offsets, sizes, strides=None):
        strides = strides or [1] * len(x.shape)
        if list(sizes) == list(x.shape):
            return x
        listed = lambda values: ", ".join(map(str, values))  # noqa: E731
        return self.op(f"tensor.extract_slice {x.name}[{listed(offsets)}] "
                       f"[{listed(sizes)}] [{listed(strides)}] : {x.type} to "
                       f"{_tensor_type(sizes)}", sizes)

    def arith(self, name, x, y):
        return self.op(f"arith.{name} {x.name}, {y.name} : {x.type}", x.shape)

    def scale(self, x, factor):
        if factor == 1.0:
            return x
        return self.arith("mulf", x, self.constant(factor, x.shape))

    def matmul(self, x, w, shape, transpose_b=False):
        attrs = " {transpose_b}" if transpose_b else ""
        return self.op(f"mpt.matmul {x.name}, {w.name}{attrs} : {x.type}, "
                       f"{w.type} -> {_tensor_type(shape)}", shape)

    def bias_add(self, x, b, axis=-1):
        attrs = f" {{axis = {axis} : i64}}" if axis != -1 else ""
        return self.op(f"mpt.bias_add {x.name}, {b.name}{attrs} : {x.type}, "
                       f"{b.type}", x.shape)

    def unary(self, name, x):
        return self.op(f"mpt.{name} {x.name} : {x.type}", x.shape)

    def reduce_mean(self, x, dims, keep_dims):
        shape = [1 if d in dims else s for d, s in enumerate(x.shape)
                 ] if keep_dims else [s for d, s in enumerate(x.shape)
                                      if d not in dims]
        keep = " {keep_dims}" if keep_dims else ""
        total = self.op(f"mpt.reduce_sum {x.name} [{', '.join(map(str, dims))}]"
                        f"{keep} : {x.type} -> {_tensor_type(shape)}", shape)
        return self.scale(total, 1.0 / math.prod(x.shape[d] for d in dims))


class _Function:
    """Translates one traced graph (the train step's or the predict's)."""

    def __init__(self, importer, graph_module, training):
        self.importer = importer
        self.module = graph_module
        self.emit = _Emitter(training)
        self.values = {}
        self.modules = dict(graph_module.named_modules())

    def run(self):
        for node in self.module.graph.nodes:
            if node.op == "placeholder":
                self.values[node] = self.importer.data_argument(node)
            elif "constant" in node.meta:
                self.values[node] = _Constant(node.meta["constant"])
            elif node.op == "get_attr":
                self.values[node] = self.importer.tensor_argument(
                    node, self.module, node.target)
            elif node.op == "output":
                return self.values_of(node.args[0])
            else:
                self.values[node] = self.translate(node)
        raise AssertionError("an fx graph ends with its output node")

    def values_of(self, argument):
        if isinstance(argument, torch.fx.Node):
            value = self.values[argument]
            if isinstance(value, _Unavailable):
                _fail(argument, f"reading {value.what} is not supported")
            if isinstance(value, (_LogSoftmax, _Constant)):
                value = self.values[argument] = value.materialize(self.emit)
            return value
        if isinstance(argument, (tuple, list)):
            return type(argument)(self.values_of(a) for a in argument)
        return argument

    def shape(self, node):
        meta = node.meta.get("tensor_meta")
        if meta is None or not hasattr(meta, "shape"):
            _fail(node, f"'{node.format_node()}' does not produce one tensor")
        return tuple(meta.shape)

    def parameter(self, node, module_path, name):
        return self.importer.tensor_argument(node, self.module,
                                             f"{module_path}.{name}")

    # --- dispatch -------------------------------------------------------

    def translate(self, node):
        # Shapes, sizes and arithmetic on them are Python values while the
        # example runs: they become constants of the step.
        if "concrete" in node.meta:
            return node.meta["concrete"]
        if "constant" in node.meta:
            return _Constant(node.meta["constant"])
        if node.op == "call_module":
            module = self.modules[node.target]
            handler = _MODULES.get(type(module))
            if handler is None:
                name = node.target.removeprefix(self.importer.prefix)
                _fail(node, f"unsupported module {type(module).__name__} "
                            f"('{name}')")
            return handler(self, node, module)
        target = node.target
        if node.op == "call_method":
            handler = _METHODS.get(target)
            name = f"Tensor.{target}"
        else:
            handler = _FUNCTIONS.get(target)
            name = getattr(target, "__name__", str(target))
        if handler is None:
            _fail(node, f"unsupported op {name}")
        return handler(self, node)

    def argument(self, node, index, keyword, default=None):
        if index < len(node.args):
            return node.args[index]
        return node.kwargs.get(keyword, default)


# --- modules ---------------------------------------------------------------


def _affine(emit, x, weight, bias):
    """x·weight^T + bias over the last dimension of `x`, as (rows, out)."""
    rows = math.prod(x.shape[:-1])
    flat = emit.reshape(x, (rows, x.shape[-1]))
    y = emit.matmul(flat, weight, (rows, weight.shape[0]), transpose_b=True)
    return emit.bias_add(y, bias) if bias is not None else y


def _linear(fn, node, x, weight, bias):
    return fn.emit.reshape(_affine(fn.emit, x, weight, bias), fn.shape(node))


def _linear_module(fn, node, module):
    x = fn.values_of(node.args[0])
    bias = fn.parameter(node, node.target, "bias") if module.bias is not None else None
    return _linear(fn, node, x, fn.parameter(node, node.target, "weight"), bias)


def _conv2d(fn, node, x, weight, bias, stride, padding, dilation, groups):
    if isinstance(padding, str):
        _fail(node, f"convolution padding '{padding}' is not supported; give "
                    "the padding as numbers")
    shape = fn.shape(node)
    attrs = (f"strides = {_array(_pair(stride))}, padding = {_array(_pair(padding))}, "
             f"dilations = {_array(_pair(dilation))}")
    if groups != 1:
        attrs += f", groups = {groups} : i64"
    y = fn.emit.op(f"mpt.conv2d {x.name}, {weight.name} {{{attrs}}} : {x.type}, "
                   f"{weight.type} -> {_tensor_type(shape)}", shape)
    if bias is not None:
        y = fn.emit.bias_add(y, bias, axis=1)
    return y


def _conv2d_module(fn, node, module):
    if module.padding_mode != "zeros":
        _fail(node, f"convolution padding_mode '{module.padding_mode}' is not "
                    "supported")
    bias = fn.parameter(node, node.target, "bias") if module.bias is not None else None
    return _conv2d(fn, node, fn.values_of(node.args[0]),
                   fn.parameter(node, node.target, "weight"), bias,
                   module.stride, module.padding, module.dilation, module.groups)


def _batch_norm_module(fn, node, module):
    if not module.affine or not module.track_running_stats:
        _fail(node, f"{type(module).__name__} '{node.target}' needs affine=True "
                    "and track_running_stats=True")
    if module.momentum is None:
        _fail(node, f"{type(module).__name__} '{node.target}': momentum=None "
                    "(a cumulative average) is not supported")
    x = fn.values_of(node.args[0])
    gamma = fn.parameter(node, node.target, "weight")
    beta = fn.parameter(node, node.target, "bias")
    mean = fn.parameter(node, node.target, "running_mean")
    var = fn.parameter(node, node.target, "running_var")
    emit = fn.emit
    operands = f"{x.name}, {gamma.name}, {beta.name}, {mean.name}, {var.name}"
    if not emit.training:
        return emit.op(f"mpt.batch_norm_inference {operands} "
                       f"{{epsilon = {_float(module.eps)} : f32}} : {x.type}, "
                       f"{gamma.type}", x.shape)
    y = _Value(emit.fresh("bn"), x.shape)
    names = [y.name] + [emit.fresh("bn") for _ in range(4)]
    emit.lines.append(
        f"  {', '.join(names)} = mpt.batch_norm {operands} "
        f"{{momentum = {_float(module.momentum)} : f32, "
        f"epsilon = {_float(module.eps)} : f32}} : {x.type}, {gamma.type}")
    fn.importer.carry(mean, names[3])
    fn.importer.carry(var, names[4])
    return y


def _layer_norm(fn, node, x, shape, weight, bias, eps):
    if len(shape) != 1:
        _fail(node, "layer norm over more than the last dimension "
                    f"(normalized_shape={list(shape)}) is not supported")
    if weight is None or bias is None:
        _fail(node, "layer norm without weight and bias is not supported")
    emit = fn.emit
    y = _Value(emit.fresh("ln"), x.shape)
    stats = _tensor_type(x.shape[:-1])
    emit.lines.append(
        f"  {y.name}, {emit.fresh('ln')}, {emit.fresh('ln')} = mpt.layer_norm "
        f"{x.name}, {weight.name}, {bias.name} {{epsilon = {_float(eps)} : f32}}"
        f" : {x.type}, {weight.type} -> {stats}")
    return y


def _layer_norm_module(fn, node, module):
    if not module.elementwise_affine:
        _fail(node, "LayerNorm without elementwise_affine is not supported")
    return _layer_norm(fn, node, fn.values_of(node.args[0]),
                       module.normalized_shape,
                       fn.parameter(node, node.target, "weight"),
                       fn.parameter(node, node.target, "bias"), module.eps)


def _pool2d(fn, node, op, x, kernel, stride, padding, more_attrs=""):
    """mpt.max_pool2d or mpt.avg_pool2d; no stride means the kernel's, as in
    PyTorch."""
    stride = stride if stride not in (None, [], ()) else kernel
    shape = fn.shape(node)
    attrs = (f"kernel = {_array(_pair(kernel))}, strides = {_array(_pair(stride))}, "
             f"padding = {_array(_pair(padding))}{more_attrs}")
    return fn.emit.op(f"mpt.{op} {x.name} {{{attrs}}} : {x.type} -> "
                      f"{_tensor_type(shape)}", shape)


def _max_pool2d(fn, node, x, kernel, stride, padding, dilation, ceil_mode):
    if _pair(dilation) != (1, 1) or ceil_mode:
        _fail(node, "max pooling with dilation or ceil_mode is not supported")
    return _pool2d(fn, node, "max_pool2d", x, kernel, stride, padding)


def _max_pool2d_module(fn, node, module):
    return _max_pool2d(fn, node, fn.values_of(node.args[0]), module.kernel_size,
                       module.stride, module.padding, module.dilation,
                       module.ceil_mode)


def _avg_pool2d(fn, node, x, kernel, stride, padding, ceil_mode,
                count_include_pad, divisor_override):
    if ceil_mode:
        _fail(node, "average pooling with ceil_mode=True is not supported")
    if divisor_override is not None:
        _fail(node, f"average pooling with divisor_override={divisor_override} "
                    "is not supported")
    return _pool2d(fn, node, "avg_pool2d", x, kernel, stride, padding,
                   f", count_include_pad = {'true' if count_include_pad else 'false'}")


def _avg_pool2d_module(fn, node, module):
    return _avg_pool2d(fn, node, fn.values_of(node.args[0]), module.kernel_size,
                       module.stride, module.padding, module.ceil_mode,
                       module.count_include_pad, module.divisor_override)


def _adaptive_avg_pool2d(fn, node, x, output_size):
    """To 1x1 a mean over the image; to a size that divides the input,
    PyTorch's windows are disjoint, of the quotient's size: avg_pool2d."""
    size = tuple(x.shape[2 + i] if s is None else s
                 for i, s in enumerate(_pair(output_size)))
    if size == (1, 1):
        return fn.emit.reduce_mean(x, [2, 3], keep_dims=True)
    if any(x.shape[2 + i] % size[i] for i in range(2)):
        _fail(node, f"adaptive average pooling from {x.shape[2]}x{x.shape[3]} "
                    f"to {size[0]}x{size[1]} is not supported (only to sizes that "
                    "divide the input)")
    kernel = tuple(x.shape[2 + i] // size[i] for i in range(2))
    return _avg_pool2d(fn, node, x, kernel, kernel, 0, False, True, None)


def _dropout(fn, node, p, training):
    """mpt.dropout in the training step; the identity in @predict. Its mask
    is mpt's own (a hash of the step's counter), not PyTorch's random
    stream; mpt-autodiff numbers the dropouts' streams."""
    x = fn.values_of(node.args[0])
    if not (fn.emit.training and training and p > 0):
        return x
    if not p < 1:
        _fail(node, f"dropout with p={p} zeroes every element; mpt.dropout "
                    "takes p in [0, 1)")
    return fn.emit.op(f"mpt.dropout {x.name} {{p = {_float64(p)} : f64}} : "
                      f"{x.type}", x.shape)


def _gelu(fn, node, x, approximate):
    if approximate == "tanh":
        return fn.emit.op(f"mpt.gelu {x.name} {{approximate}} : {x.type}", x.shape)
    if approximate != "none":
        _fail(node, f"GELU with approximate='{approximate}' is not supported")
    return fn.emit.unary("gelu", x)


def _embedding(fn, node, ids, weight, options):
    if (options.get("padding_idx") is not None
            or options.get("max_norm") is not None
            or options.get("scale_grad_by_freq") or options.get("sparse")):
        _fail(node, "embedding with padding_idx, max_norm, scale_grad_by_freq "
                    "or sparse gradients is not supported")
    if not isinstance(ids, _Value) or ids.element != "i32":
        _fail(node, "embedding ids must be an integer tensor input of the model")
    shape = fn.shape(node)
    return fn.emit.op(f"mpt.embedding {weight.name}, {ids.name} : {weight.type}, "
                      f"{ids.type} -> {_tensor_type(shape)}", shape)


def _embedding_module(fn, node, module):
    return _embedding(fn, node, fn.values_of(node.args[0]),
                      fn.parameter(node, node.target, "weight"), {
                          "padding_idx": module.padding_idx,
                          "max_norm": module.max_norm,
                          "scale_grad_by_freq": module.scale_grad_by_freq,
                          "sparse": module.sparse})


def _embedding_function(fn, node):
    ids, weight = (fn.values_of(a) for a in node.args[:2])
    names = ["padding_idx", "max_norm", "norm_type", "scale_grad_by_freq",
             "sparse"]
    options = dict(zip(names, node.args[2:]))
    options.update(node.kwargs)
    return _embedding(fn, node, ids, weight, options)


def _flatten(fn, node, *_):
    return fn.emit.reshape(fn.values_of(node.args[0]), fn.shape(node))


def _identity(fn, node, *_):
    return fn.values_of(node.args[0])


_MODULES = {
    nn.Linear: _linear_module,
    nn.Conv2d: _conv2d_module,
    nn.Embedding: _embedding_module,
    nn.BatchNorm2d: _batch_norm_module,
    nn.BatchNorm1d: _batch_norm_module,
    nn.LayerNorm: _layer_norm_module,
    nn.ReLU: lambda fn, node, m: fn.emit.unary("relu", fn.values_of(node.args[0])),
    nn.GELU: lambda fn, node, m: _gelu(fn, node, fn.values_of(node.args[0]),
                                       getattr(m, "approximate", "none")),
    nn.MaxPool2d: _max_pool2d_module,
    nn.AvgPool2d: _avg_pool2d_module,
    nn.AdaptiveAvgPool2d: lambda fn, node, m: _adaptive_avg_pool2d(
        fn, node, fn.values_of(node.args[0]), m.output_size),
    nn.Dropout: lambda fn, node, m: _dropout(fn, node, m.p, True),
    nn.Flatten: _flatten,
    nn.Identity: _identity,
    nn.Softmax: lambda fn, node, m: _softmax(fn, node, m.dim),
    nn.Sigmoid: lambda fn, node, m: fn.emit.unary("sigmoid", fn.values_of(node.args[0])),
    nn.Tanh: lambda fn, node, m: fn.emit.unary("tanh", fn.values_of(node.args[0])),
    nn.SiLU: lambda fn, node, m: fn.emit.unary("silu", fn.values_of(node.args[0])),
}


# --- functions and methods -----------------------------------------------


def _binary(name):
    def translate(fn, node):
        lhs, rhs = (fn.values_of(a) for a in node.args[:2])
        if not isinstance(lhs, _Value) and not isinstance(rhs, _Value):
            _fail(node, f"{name} of two Python numbers in the graph")
        shape = fn.shape(node)
        emit = fn.emit
        lhs, rhs = (emit.broadcast(v, shape) if isinstance(v, _Value)
                    else emit.constant(v, shape) for v in (lhs, rhs))
        return emit.arith(name, lhs, rhs)
    return translate


def _masked_fill(fn, node):
    """masked_fill(x, mask, -inf), the causal mask of attention, as adding a
    constant 0/-inf tensor: the same for finite x, and differentiable."""
    x = fn.values_of(node.args[0])
    value = fn.argument(node, 2, "value")
    mask = node.args[1].meta.get("constant") if isinstance(
        node.args[1], torch.fx.Node) else None
    if mask is None or value != float("-inf"):
        _fail(node, "masked_fill other than with -inf under a constant mask is "
                    "not supported")
    additive = torch.zeros(mask.shape).masked_fill(mask.bool(), float("-inf"))
    emit = fn.emit
    return emit.arith("addf", x, emit.broadcast(emit.tensor_constant(additive),
                                                x.shape))


def _softmax(fn, node, dim):
    x = fn.values_of(node.args[0])
    if dim not in (-1, len(x.shape) - 1):
        _fail(node, f"softmax over dimension {dim} (only the last) is not "
                    "supported")
    return fn.emit.unary("softmax", x)


def _reshape_node(fn, node):
    return fn.emit.reshape(fn.values_of(node.args[0]), fn.shape(node))


def _permute(fn, node):
    x = fn.values_of(node.args[0])
    dims = node.args[1:] if not isinstance(node.args[1], (tuple, list)) else node.args[1]
    rank = len(x.shape)
    return fn.emit.transpose(x, [d % rank for d in dims])


def _transpose(fn, node):
    x = fn.values_of(node.args[0])
    rank = len(x.shape)
    a, b = (d % rank for d in node.args[1:3])
    permutation = list(range(rank))
    permutation[a], permutation[b] = b, a
    return fn.emit.transpose(x, permutation)


def _matmul(fn, node):
    x, y = (fn.values_of(a) for a in node.args[:2])
    shape = fn.shape(node)
    if len(x.shape) != len(y.shape) or len(x.shape) not in (2, 3):
        _fail(node, f"matmul of shapes {list(x.shape)} and {list(y.shape)} "
                    "(only 2-d by 2-d and batched 3-d by 3-d) is not supported")
    return fn.emit.matmul(x, y, shape)


def _mean(fn, node):
    x = fn.values_of(node.args[0])
    dims = fn.argument(node, 1, "dim")
    keep = fn.argument(node, 2, "keepdim", False)
    rank = len(x.shape)
    dims = list(range(rank)) if dims is None else (
        [dims] if isinstance(dims, int) else list(dims))
    return fn.emit.reduce_mean(x, sorted(d % rank for d in dims), keep)


def _cross_entropy(fn, node, logits, target, options):
    """PyTorch's cross-entropy with reduction='mean': its ignore_index (-100
    unless set) and label smoothing become the op's attributes."""
    weight = options.get("weight")
    reduction = options.get("reduction", "mean")
    if weight is not None or reduction != "mean":
        _fail(node, "cross-entropy with class weights or a reduction other "
                    "than 'mean' is not supported")
    if len(logits.shape) != 2:
        _fail(node, f"cross-entropy of logits of shape {list(logits.shape)} "
                    "(only (N, C); view a sequence's as (N*T, C)) is not "
                    "supported")
    attributes = [f"ignore_index = {int(options.get('ignore_index', -100))} : i64"]
    smoothing = float(options.get("label_smoothing", 0.0))
    if smoothing:
        attributes.append(f"label_smoothing = {_float64(smoothing)} : f64")
    return fn.emit.op(f"mpt.softmax_cross_entropy {logits.name}, {target.name} "
                      f"{{{', '.join(attributes)}}} : {logits.type}, "
                      f"{target.type}", (), "loss")


def _cross_entropy_function(fn, node):
    logits, target = (fn.values_of(a) for a in node.args[:2])
    names = ["weight", "size_average", "ignore_index", "reduce", "reduction",
             "label_smoothing"]
    options = dict(zip(names, node.args[2:]))
    options.update(node.kwargs)
    return _cross_entropy(fn, node, logits, target, options)


def _cross_entropy_module(fn, node, module):
    logits, target = (fn.values_of(a) for a in node.args[:2])
    return _cross_entropy(fn, node, logits, target, {
        "weight": module.weight, "reduction": module.reduction,
        "ignore_index": module.ignore_index,
        "label_smoothing": module.label_smoothing})


_MODULES[nn.CrossEntropyLoss] = _cross_entropy_module
_MODULES[nn.MSELoss] = lambda fn, node, module: _mse_loss(fn, node, module.reduction)


class _LogSoftmax:
    """log_softmax, kept unwritten: nll_loss of it is the fused
    mpt.softmax_cross_entropy (PyTorch's MNIST example ends so); any other use
    writes it as the log of mpt.softmax."""

    def __init__(self, logits):
        self.logits = logits

    def materialize(self, emit):
        probabilities = emit.unary("softmax", self.logits)
        return emit.op(f"math.log {probabilities.name} : {probabilities.type}",
                       probabilities.shape)


def _log_softmax(fn, node):
    x = fn.values_of(node.args[0])
    dim = fn.argument(node, 1, "dim")
    if dim not in (-1, len(x.shape) - 1):
        _fail(node, f"log_softmax over dimension {dim} (only the last) is not "
                    "supported")
    return _LogSoftmax(x)


def _nll_loss(fn, node):
    log_probabilities = fn.values[node.args[0]]
    if not isinstance(log_probabilities, _LogSoftmax):
        _fail(node, "nll_loss of anything but log_softmax is not supported")
    names = ["weight", "size_average", "ignore_index", "reduce", "reduction"]
    options = dict(zip(names, node.args[2:]))
    options.update(node.kwargs)
    return _cross_entropy(fn, node, log_probabilities.logits,
                          fn.values_of(node.args[1]), options)


def _relu(fn, node):
    return fn.emit.unary("relu", fn.values_of(node.args[0]))


def _activation(name):
    return lambda fn, node: fn.emit.unary(name, fn.values_of(node.args[0]))


def _mse_loss(fn, node, reduction):
    prediction, target = (fn.values_of(a) for a in node.args[:2])
    if reduction != "mean":
        _fail(node, f"mse_loss with reduction '{reduction}' (only 'mean') is "
                    "not supported")
    if not isinstance(target, _Value) or prediction.shape != target.shape:
        _fail(node, "mse_loss of tensors of different shapes (broadcasting) is "
                    "not supported")
    return fn.emit.op(f"mpt.mse_loss {prediction.name}, {target.name} : "
                      f"{prediction.type}", (), "loss")


def _linear_function(fn, node):
    x, weight = (fn.values_of(a) for a in node.args[:2])
    bias = fn.values_of(fn.argument(node, 2, "bias"))
    return _linear(fn, node, x, weight, bias)


def _conv2d_function(fn, node):
    a = [fn.values_of(arg) for arg in node.args]
    a += [None] * (7 - len(a))
    get = lambda i, key, default: a[i] if a[i] is not None else node.kwargs.get(key, default)  # noqa: E731
    return _conv2d(fn, node, a[0], a[1], fn.values_of(get(2, "bias", None)),
                   get(3, "stride", 1), get(4, "padding", 0),
                   get(5, "dilation", 1), get(6, "groups", 1))


_FUNCTIONS = {
    operator.add: _binary("addf"), torch.add: _binary("addf"),
    operator.sub: _binary("subf"), torch.sub: _binary("subf"),
    operator.mul: _binary("mulf"), torch.mul: _binary("mulf"),
    operator.truediv: _binary("divf"), torch.div: _binary("divf"),
    operator.matmul: _matmul, torch.matmul: _matmul, torch.bmm: _matmul,
    torch.relu: _relu, F.relu: _relu,
    torch.tanh: _activation("tanh"), F.tanh: _activation("tanh"),
    torch.sigmoid: _activation("sigmoid"), F.sigmoid: _activation("sigmoid"),
    F.silu: _activation("silu"),
    F.mse_loss: lambda fn, node: _mse_loss(fn, node, node.kwargs.get(
        "reduction", node.args[4] if len(node.args) > 4 else "mean")),
    F.gelu: lambda fn, node: _gelu(fn, node, fn.values_of(node.args[0]),
                                   node.kwargs.get("approximate", "none")),
    torch.flatten: _reshape_node, torch.reshape: _reshape_node,
    torch.permute: _permute, torch.transpose: _transpose,
    torch.masked_fill: _masked_fill,
    torch.mean: _mean,
    F.softmax: lambda fn, node: _softmax(fn, node, fn.argument(node, 1, "dim")),
    torch.softmax: lambda fn, node: _softmax(fn, node, fn.argument(node, 1, "dim")),
    F.cross_entropy: _cross_entropy_function,
    F.log_softmax: _log_softmax, torch.log_softmax: _log_softmax,
    F.nll_loss: _nll_loss,
    F.linear: _linear_function,
    F.conv2d: _conv2d_function,
    F.embedding: _embedding_function,
    F.max_pool2d: lambda fn, node: _max_pool2d(
        fn, node, fn.values_of(node.args[0]), fn.argument(node, 1, "kernel_size"),
        fn.argument(node, 2, "stride"), fn.argument(node, 3, "padding", 0),
        fn.argument(node, 4, "dilation", 1), fn.argument(node, 5, "ceil_mode", False)),
    F.avg_pool2d: lambda fn, node: _avg_pool2d(
        fn, node, fn.values_of(node.args[0]), fn.argument(node, 1, "kernel_size"),
        fn.argument(node, 2, "stride"), fn.argument(node, 3, "padding", 0),
        fn.argument(node, 4, "ceil_mode", False),
        fn.argument(node, 5, "count_include_pad", True),
        fn.argument(node, 6, "divisor_override")),
    F.adaptive_avg_pool2d: lambda fn, node: _adaptive_avg_pool2d(
        fn, node, fn.values_of(node.args[0]), fn.argument(node, 1, "output_size")),
    F.dropout: lambda fn, node: _dropout(fn, node, fn.argument(node, 1, "p", 0.5),
                                         fn.argument(node, 2, "training", True)),
}

_METHODS = {
    "view": _reshape_node, "reshape": _reshape_node, "flatten": _reshape_node,
    "permute": _permute, "transpose": _transpose, "mean": _mean,
    "contiguous": lambda fn, node: fn.values_of(node.args[0]),
    "masked_fill": _masked_fill,
    "relu": _relu, "tanh": _activation("tanh"), "sigmoid": _activation("sigmoid"),
    "log_softmax": _log_softmax,
    "softmax": lambda fn, node: _softmax(fn, node, fn.argument(node, 1, "dim")),
}


# --- slicing, concatenation, attention ------------------------------------


def _dim_argument(fn, node, index, default=0):
    dim = fn.argument(node, index, "dim", default)
    return dim % len(fn.values_of(node.args[0]).shape)


def _concat(fn, node):
    tensors = fn.values_of(fn.argument(node, 0, "tensors"))
    shape = fn.shape(node)
    dim = fn.argument(node, 1, "dim", 0) % len(shape)
    if len(tensors) == 1:
        return tensors[0]
    names = ", ".join(t.name for t in tensors)
    types = ", ".join(t.type for t in tensors)
    return fn.emit.op(f"tensor.concat dim({dim}) {names} : ({types}) -> "
                      f"{_tensor_type(shape)}", shape)


def _pieces(fn, node, x, dim):
    """The results of split, chunk or unbind: consecutive slices along `dim`
    with the sizes the example run gave them."""
    metas = node.meta.get("tensor_meta")
    offset, pieces = 0, []
    for meta in metas:
        shape = tuple(meta.shape)
        size = shape[dim] if len(shape) == len(x.shape) else 1
        offsets = [offset if d == dim else 0 for d in range(len(x.shape))]
        sizes = [size if d == dim else s for d, s in enumerate(x.shape)]
        pieces.append(fn.emit.reshape(fn.emit.extract_slice(x, offsets, sizes),
                                      shape))
        offset += size
    return tuple(pieces)


def _split(fn, node):
    return _pieces(fn, node, fn.values_of(node.args[0]),
                   _dim_argument(fn, node, 2))


def _unbind(fn, node):
    return _pieces(fn, node, fn.values_of(node.args[0]),
                   _dim_argument(fn, node, 1))


def _narrow(fn, node):
    x = fn.values_of(node.args[0])
    dim = _dim_argument(fn, node, 1)
    start = fn.argument(node, 2, "start") % x.shape[dim]
    sizes = list(fn.shape(node))
    return fn.emit.extract_slice(
        x, [start if d == dim else 0 for d in range(len(x.shape))], sizes)


class _Unavailable:
    """A result the importer does not compute (attention weights): an error
    where a node reads it."""

    def __init__(self, what):
        self.what = what


def _getitem(fn, node):
    container = fn.values[node.args[0]]
    index = node.args[1]
    if isinstance(container, tuple):
        return container[index]
    x = fn.values_of(node.args[0])
    if not isinstance(x, _Value):
        _fail(node, "indexing something other than a tensor or a tuple of "
                    "tensors is not supported")
    return _index(fn, node, x, index)


def _index(fn, node, x, index):
    """x[index] for integers, slices with a positive step, `...` and None:
    one tensor.extract_slice, then a reshape that drops the integer-indexed
    dimensions and adds the None ones."""
    items = list(index) if isinstance(index, tuple) else [index]
    for item in items:
        if not (item is None or item is Ellipsis or isinstance(item, (int, slice))):
            _fail(node, f"indexing with {type(item).__name__} (only integers, "
                        "slices, ... and None) is not supported")
        if isinstance(item, slice) and not all(
                isinstance(v, (int, type(None)))
                for v in (item.start, item.stop, item.step)):
            _fail(node, "a slice with tensor bounds is not supported")
    rank = len(x.shape)
    explicit = sum(1 for i in items if i is not None and i is not Ellipsis)
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items[at:at + 1] = [slice(None)] * (rank - explicit)
    items += [slice(None)] * (rank - sum(1 for i in items if i is not None))
    offsets, sizes, strides = [], [], []
    dims = iter(range(len(x.shape)))
    for item in items:
        if item is None:
            continue
        size = x.shape[next(dims)]
        if isinstance(item, int):
            offsets.append(item % size)
            sizes.append(1)
            strides.append(1)
            continue
        start, stop, step = item.indices(size)
        if step <= 0:
            _fail(node, f"a slice with step {step} is not supported")
        offsets.append(start)
        sizes.append(len(range(start, stop, step)))
        strides.append(step)
    sliced = fn.emit.extract_slice(x, offsets, sizes, strides)
    return fn.emit.reshape(sliced, fn.shape(node))


def _attention(fn, node, q, k, v, causal):
    """softmax(q k^T / sqrt(d) [+ causal mask]) v over (batch, length, d)
    tensors, as in PyTorch: q scaled first."""
    emit = fn.emit
    batch, length, depth = q.shape
    source = k.shape[1]
    scores = emit.matmul(emit.scale(q, 1.0 / math.sqrt(depth)), k,
                         (batch, length, source), transpose_b=True)
    if causal:
        mask = torch.ones(length, source).tril().logical_not()
        additive = torch.zeros(length, source).masked_fill(mask, float("-inf"))
        scores = emit.arith("addf", scores, emit.broadcast(
            emit.tensor_constant(additive), scores.shape))
    return emit.matmul(emit.unary("softmax", scores), v,
                       (batch, length, v.shape[2]))


def _scaled_dot_product_attention(fn, node):
    q, k, v = (fn.values_of(fn.argument(node, i, name))
               for i, name in enumerate(("query", "key", "value")))
    if (fn.argument(node, 3, "attn_mask") is not None
            or fn.argument(node, 4, "dropout_p", 0.0)
            or fn.argument(node, 6, "scale") is not None):
        _fail(node, "scaled_dot_product_attention with attn_mask, dropout_p "
                    "or scale is not supported")
    flat = lambda t: fn.emit.reshape(  # noqa: E731
        t, (math.prod(t.shape[:-2]),) + t.shape[-2:])
    out = _attention(fn, node, flat(q), flat(k), flat(v),
                     fn.argument(node, 5, "is_causal", False))
    return fn.emit.reshape(out, fn.shape(node))


def _multihead_attention(fn, node, module):
    """nn.MultiheadAttention without masks or dropout, from its packed
    in_proj_weight (one parameter, as in PyTorch, sliced into q, k and v),
    in_proj_bias and out_proj."""
    name = node.target.removeprefix(fn.importer.prefix)
    options = dict(zip(["key_padding_mask", "need_weights", "attn_mask",
                        "average_attn_weights", "is_causal"], node.args[3:]))
    options.update(node.kwargs)
    if (options.get("key_padding_mask") is not None
            or options.get("attn_mask") is not None or options.get("is_causal")):
        _fail(node, f"MultiheadAttention '{name}' with a mask is not supported")
    if fn.emit.training and module.dropout > 0:
        _fail(node, f"MultiheadAttention '{name}' with dropout "
                    f"(p={module.dropout}) in training is not supported")
    if (not module._qkv_same_embed_dim or module.in_proj_bias is None
            or module.bias_k is not None or module.add_zero_attn):
        _fail(node, f"MultiheadAttention '{name}' with kdim/vdim, bias=False, "
                    "add_bias_kv or add_zero_attn is not supported")
    emit = fn.emit
    embed, heads = module.embed_dim, module.num_heads
    depth = embed // heads
    weight = fn.parameter(node, node.target, "in_proj_weight")
    bias = fn.parameter(node, node.target, "in_proj_bias")
    batch_first = module.batch_first

    def heads_of(x, part):
        if not batch_first:
            x = emit.transpose(x, [1, 0, 2])
        batch, length, _ = x.shape
        w = emit.extract_slice(weight, [part * embed, 0], [embed, embed])
        b = emit.extract_slice(bias, [part * embed], [embed])
        y = emit.transpose(emit.reshape(_affine(emit, x, w, b),
                                        (batch, length, heads, depth)),
                           [0, 2, 1, 3])
        return emit.reshape(y, (batch * heads, length, depth))

    q, k, v = (heads_of(fn.values_of(fn.argument(node, i, name)), i)
               for i, name in enumerate(("query", "key", "value")))
    out = _attention(fn, node, q, k, v, causal=False)
    batch = out.shape[0] // heads
    length = out.shape[1]
    out = emit.transpose(emit.reshape(out, (batch, heads, length, depth)),
                         [0, 2, 1, 3])
    out = emit.reshape(_affine(
        emit, emit.reshape(out, (batch, length, embed)),
        fn.parameter(node, node.target, "out_proj.weight"),
        fn.parameter(node, node.target, "out_proj.bias")), (batch, length, embed))
    if not batch_first:
        out = emit.transpose(out, [1, 0, 2])
    return out, _Unavailable(f"the attention weights of MultiheadAttention "
                             f"'{name}'")


_MODULES[nn.MultiheadAttention] = _multihead_attention
_FUNCTIONS.update({
    torch.cat: _concat, torch.concat: _concat,
    operator.getitem: _getitem,
    torch.narrow: _narrow, torch.split: _split, torch.chunk: _split,
    torch.unbind: _unbind,
})
_METHODS.update({
    "narrow": _narrow, "split": _split, "chunk": _split, "unbind": _unbind,
    "__getitem__": _getitem,
    "expand": lambda fn, node: fn.emit.broadcast(fn.values_of(node.args[0]),
                                                 fn.shape(node)),
})
if hasattr(F, "scaled_dot_product_attention"):  # torch 2.x
    _FUNCTIONS[F.scaled_dot_product_attention] = _scaled_dot_product_attention


# --- the step --------------------------------------------------------------


class ImportedStep:
    """An imported training step: the module's text and what it names.

    `mlir` is the step; `initial_state` maps each parameter and buffer the
    step takes to the f32 tensor it starts from (PyTorch names); `aliases`
    maps each tied name to the parameter that holds it; `data` lists the data
    inputs as (name, shape, element type), the labels last;
    `state_dict_keys` the module's state_dict keys, in order."""

    def __init__(self, mlir, initial_state, parameters, buffers, aliases,
                 data, state_dict_keys):
        self.mlir = mlir
        self.initial_state = initial_state
        self.parameters = parameters
        self.buffers = buffers
        self.aliases = aliases
        self.data = data
        self.state_dict_keys = state_dict_keys


_OPTIMIZER_KEYS = {
    torch.optim.SGD: ("sgd", {"lr": "lr", "momentum": "momentum",
                              "dampening": "dampening",
                              "weight_decay": "weight_decay"}),
    torch.optim.Adam: ("adam", {"lr": "lr", "eps": "epsilon",
                                "weight_decay": "weight_decay"}),
    torch.optim.AdamW: ("adamw", {"lr": "lr", "eps": "epsilon",
                                  "weight_decay": "weight_decay"}),
    torch.optim.RMSprop: ("rmsprop", {"lr": "lr", "alpha": "alpha",
                                      "eps": "epsilon",
                                      "weight_decay": "weight_decay",
                                      "momentum": "momentum"}),
    torch.optim.Adagrad: ("adagrad", {"lr": "lr", "lr_decay": "lr_decay",
                                      "weight_decay": "weight_decay",
                                      "eps": "epsilon"}),
    torch.optim.Adadelta: ("adadelta", {"lr": "lr", "rho": "rho",
                                        "eps": "epsilon",
                                        "weight_decay": "weight_decay"}),
}


def _optimizer_entries(optimizer, group):
    """mpt.optimizer entries of one torch.optim parameter group."""
    kind, keys = _OPTIMIZER_KEYS[type(optimizer)]
    entries = {mpt: float(group[torch_key]) for torch_key, mpt in keys.items()}
    if kind == "sgd":
        if group.get("nesterov"):
            entries["nesterov"] = True
    elif kind == "rmsprop":
        # Always given, so that a group without centering overrides one with.
        entries["centered"] = bool(group["centered"])
    elif kind == "adagrad":
        # Adagrad fills every parameter's sum from its constructor's value,
        # whatever the parameter group says.
        entries["initial_accumulator_value"] = float(
            optimizer.defaults["initial_accumulator_value"])
    elif kind in ("adam", "adamw"):
        entries["beta1"], entries["beta2"] = (float(b) for b in group["betas"])
    return kind, entries


def _check_optimizer(optimizer):
    if type(optimizer) not in _OPTIMIZER_KEYS:
        raise ImportError(f"unsupported optimizer {type(optimizer).__name__} "
                          "(SGD, Adam, AdamW, RMSprop, Adagrad and "
                          "Adadelta are)")
    for group in optimizer.param_groups:
        for flag in ("amsgrad", "maximize", "foreach", "capturable",
                     "differentiable", "fused"):
            if group.get(flag):
                raise ImportError(f"{type(optimizer).__name__} with {flag}=True "
                                  "is not supported")


class _Raw(str):
    """An attribute written as it is: a nested dictionary, an f64."""


def _attribute_dict(entries):
    parts = []
    for key, value in entries.items():
        if value is True:
            parts.append(key)
        elif value is False:
            parts.append(f"{key} = false")
        elif isinstance(value, _Raw):
            parts.append(f"{key} = {value}")
        elif isinstance(value, str):
            parts.append(f'{key} = "{value}"')
        else:
            parts.append(f"{key} = {_float(value)} : f32")
    return "{" + ", ".join(parts) + "}"


# --- learning-rate schedules ------------------------------------------------


def _schedule_attribute(schedule):
    """An mpt `lr_schedule` dictionary: integers as i64, numbers as f64."""
    def value(v):
        if isinstance(v, str):
            return f'"{v}"'
        if isinstance(v, int):
            return str(v)
        if isinstance(v, list):
            return "[" + ", ".join(_float64(x) for x in v) + "]"
        return _float64(v)
    return _Raw("{" + ", ".join(f"{k} = {value(v)}" for k, v in schedule.items())
                + "}")


def _closed_form_schedule(scheduler):
    """The mpt schedule that computes `scheduler`'s rates, as a function of a
    group's base rate, or None where mpt has none for it."""
    schedulers = torch.optim.lr_scheduler
    kind = type(scheduler)
    if kind is schedulers.StepLR:
        return lambda base: {"kind": "step", "step_size": scheduler.step_size,
                             "gamma": float(scheduler.gamma)}
    if kind is schedulers.CosineAnnealingLR:
        return lambda base: {"kind": "warmup_cosine", "warmup_steps": 0,
                             "total_steps": scheduler.T_max,
                             "min_lr": float(scheduler.eta_min)}
    if kind is schedulers.LinearLR and scheduler.end_factor == 1.0:
        # After the warmup, a cosine from the base rate to itself: constant.
        return lambda base: {"kind": "warmup_cosine",
                             "warmup_steps": scheduler.total_iters,
                             "total_steps": scheduler.total_iters + 1,
                             "start_factor": float(scheduler.start_factor),
                             "min_lr": base}
    if kind is schedulers.SequentialLR:
        parts = scheduler._schedulers
        if (len(parts) == 2 and type(parts[0]) is schedulers.LinearLR
                and parts[0].end_factor == 1.0
                and type(parts[1]) is schedulers.CosineAnnealingLR
                and list(scheduler._milestones) == [parts[0].total_iters]):
            warmup, cosine = parts
            return lambda base: {"kind": "warmup_cosine",
                                 "warmup_steps": warmup.total_iters,
                                 "total_steps": warmup.total_iters + cosine.T_max,
                                 "start_factor": float(warmup.start_factor),
                                 "min_lr": float(cosine.eta_min)}
    return None


def _tabulated_rates(scheduler, optimizer, total_steps):
    """Each group's rates over `total_steps` steps of `scheduler`, which is
    stepped and then put back as it was."""
    groups = optimizer.param_groups
    saved = (copy.deepcopy(scheduler.state_dict()), [g["lr"] for g in groups])
    rates = []
    with warnings.catch_warnings():
        # Stepping a scheduler before its optimizer steps warns.
        warnings.simplefilter("ignore")
        for _ in range(total_steps):
            rates.append([g["lr"] for g in groups])
            scheduler.step()
    scheduler.load_state_dict(saved[0])
    for group, lr in zip(groups, saved[1]):
        group["lr"] = lr
    return [[float(step[i]) for step in rates] for i in range(len(groups))]


def _lr_schedules(scheduler, optimizer, total_steps):
    """The mpt `lr_schedule` of each parameter group of `optimizer` under
    `scheduler`, with the group's base rate: a closed form for StepLR,
    CosineAnnealingLR, LinearLR (to a factor of 1) and SequentialLR of
    LinearLR then CosineAnnealingLR, else the rates of `total_steps` steps as
    a table."""
    name = type(scheduler).__name__
    if isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
        raise ImportError(f"{name} follows a metric, which a compiled "
                          "schedule cannot")
    if getattr(scheduler, "optimizer", None) is not optimizer:
        raise ImportError(f"the {name} schedules another optimizer than the "
                          "step's")
    if scheduler.last_epoch != 0:
        raise ImportError(f"the {name} has already stepped (last_epoch "
                          f"{scheduler.last_epoch}); the step's schedule starts "
                          "from step 0")
    bases = [float(g["initial_lr"]) for g in optimizer.param_groups]
    closed_form = _closed_form_schedule(scheduler)
    if closed_form is not None:
        return [(base, closed_form(base)) for base in bases]
    if total_steps is None:
        raise ImportError(f"{name} has no closed form in mpt; pass "
                          "total_steps to tabulate its rates over that many "
                          "steps")
    tables = _tabulated_rates(scheduler, optimizer, total_steps)
    return [(base, {"kind": "table", "values": table})
            for base, table in zip(bases, tables)]


class _Importer:
    def __init__(self, model, example_inputs, eval_inputs, target, loss,
                 optimizer, lr_schedules=None):
        self.model = model
        self.inputs = example_inputs
        self.eval_inputs = eval_inputs
        self.target = target
        self.loss = loss
        self.optimizer = optimizer
        # Per parameter group: (base rate, mpt lr_schedule), or None.
        self.lr_schedules = lr_schedules
        # Parameters by identity, under the name named_parameters() gives them
        # (tied ones once, under their first name).
        self.canonical = {id(p): name for name, p in model.named_parameters()}
        self.buffer_names = {name for name, _ in model.named_buffers()}
        self.used = {}      # argument name -> _Value
        self.aliases = {}   # tied name -> canonical name
        self.carried = {}   # buffer name -> SSA name of its next value
        self.prefix = ""
        self.data_values = []

    # --- arguments --------------------------------------------------------

    def tensor_argument(self, node, graph_module, target):
        name = target[len(self.prefix):] if target.startswith(self.prefix) else None
        if name is None:
            _fail(node, f"'{target}' is not a parameter or buffer of the model")
        tensor = self.lookup(node, name)
        if isinstance(tensor, nn.Parameter):
            canonical = self.canonical.get(id(tensor))
            if canonical is None:
                _fail(node, f"'{name}' is not a parameter the model registers")
            if canonical != name:
                self.aliases[name] = canonical
            name = canonical
        elif name not in self.buffer_names:
            _fail(node, f"'{name}' is a tensor attribute, not a parameter or a "
                        "registered buffer")
        if tensor.dtype != torch.float32:
            _fail(node, f"'{name}' is {tensor.dtype}; the step takes float32 "
                        "parameters and buffers")
        if name not in self.used:
            self.used[name] = _Value(f"%{name}", tensor.shape)
        return self.used[name]

    def lookup(self, node, name):
        module_path, _, attribute = name.rpartition(".")
        try:
            module = self.model.get_submodule(module_path) if module_path else self.model
        except AttributeError:
            _fail(node, f"no submodule '{module_path}' in the model")
        tensor = getattr(module, attribute, None)
        if not isinstance(tensor, torch.Tensor):
            _fail(node, f"'{name}' is not a tensor of the model")
        return tensor

    def data_argument(self, node):
        meta = node.meta.get("tensor_meta")
        if meta is None:
            _fail(node, f"input '{node.name}' is not a tensor")
        element = _DTYPES.get(meta.dtype)
        if element is None:
            _fail(node, f"input '{node.name}' is {meta.dtype}; the step takes "
                        "float32 data and int32/int64 labels and ids")
        value = _Value(f"%{node.name}", meta.shape, element)
        self.data_values.append(value)
        return value

    def carry(self, buffer, next_name):
        self.carried[buffer.name[1:]] = next_name

    # --- functions ----------------------------------------------------------

    def wrapper(self):
        """The model and its loss as one module, whose forward the train step
        traces: forward(<model inputs>, target) -> loss."""
        names = list(inspect.signature(self.model.forward).parameters)
        names = names[:len(self.inputs)]
        if "target" in names:
            raise ImportError("the model's forward has an input named 'target', "
                              "the name the importer gives the labels")
        source = (f"def forward(self, {', '.join(names)}, target):\n"
                  f"    return self.loss(self.model({', '.join(names)}), target)\n")
        namespace = {}
        exec(source, namespace)  # noqa: S102 - builds a signature fx can trace
        wrapper_type = type("TrainStep", (nn.Module,), {"forward": namespace["forward"]})
        wrapper = wrapper_type()
        wrapper.model = self.model
        if isinstance(self.loss, nn.Module):
            wrapper.loss = self.loss
        else:
            wrapper.__dict__["loss"] = self.loss
        return wrapper

    def translate(self, root, inputs, training, prefix):
        self.prefix = prefix
        self.data_values = []
        module = _trace(root, inputs, training)
        function = _Function(self, module, training)
        result = function.run()
        return function.emit.lines, result, self.data_values

    def check_ties(self):
        """Parameter objects of their own that share memory: the same tensor
        under two names must be one parameter object (it then becomes one
        parameter of the step), or the copies would drift apart as they
        train; in another layout it cannot be either."""
        seen = {}
        for name, parameter in self.model.named_parameters():
            key = (parameter.untyped_storage().data_ptr()
                   if hasattr(parameter, "untyped_storage")
                   else parameter.storage().data_ptr())
            if key in seen:
                other_name, other = seen[key]
                layout = (tuple(parameter.shape), parameter.stride(),
                          parameter.storage_offset())
                other_layout = (tuple(other.shape), other.stride(),
                                other.storage_offset())
                if layout != other_layout:
                    raise ImportError(
                        f"'{name}' shares memory with '{other_name}' in a "
                        f"different layout (shape {list(parameter.shape)}, "
                        f"strides {list(parameter.stride())} against "
                        f"{list(other.shape)}, {list(other.stride())}); tie "
                        "the same parameter object instead")
                self.canonical[id(parameter)] = other_name
            else:
                seen[key] = (name, parameter)

    def run(self):
        _check_optimizer(self.optimizer)
        self.check_ties()
        train_lines, loss, train_data = self.translate(
            self.wrapper(), self.inputs + (self.target,), True, "model.")
        # Before @predict adds its own reads: a parameter only it reads gets
        # no gradient either.
        self.read_in_training = set(self.used)
        if not isinstance(loss, _Value) or loss.shape != () or loss.element != "f32":
            raise ImportError("the loss is not one float32 scalar")
        predict_lines, logits, predict_data = self.translate(
            self.model, self.eval_inputs, False, "")
        if not isinstance(logits, _Value):
            raise ImportError("the model's forward must return one tensor (the "
                              "logits) for the eval step")
        return self.render(train_lines, loss, train_data, predict_lines, logits,
                           predict_data)

    def ordered_arguments(self):
        """Every parameter (those the forward does not read too, frozen, so
        that the step's state is the model's whole state_dict) and the
        buffers the forward reads."""
        parameters = [n for n, p in self.model.named_parameters()
                      if self.canonical[id(p)] == n]
        for name in parameters:
            self.used.setdefault(name, _Value(f"%{name}",
                                              self.lookup(None, name).shape))
        buffers = [n for n, _ in self.model.named_buffers() if n in self.used]
        return parameters, buffers

    def frozen(self, name, read_by_forward):
        """A parameter PyTorch would not change: requires_grad=False, or
        read by no op of the training forward (it gets no gradient)."""
        return not self.lookup(None, name).requires_grad or not read_by_forward

    def group_entries(self, group):
        """mpt.optimizer entries of parameter group #`group`, with its
        schedule: the scheduler's base rate replaces the group's current
        one, which the scheduler's first step may already have scaled."""
        kind, entries = _optimizer_entries(self.optimizer,
                                           self.optimizer.param_groups[group])
        if self.lr_schedules is not None:
            base, schedule = self.lr_schedules[group]
            entries["lr"] = _Raw(_float64(base))
            entries["lr_schedule"] = _schedule_attribute(schedule)
        return kind, entries

    def render(self, train_lines, loss, train_data, predict_lines, logits,
               predict_data):
        parameters, buffers = self.ordered_arguments()
        groups = self.optimizer.param_groups
        kind, entries = self.group_entries(0)
        group_of = {id(p): i for i, g in enumerate(groups) for p in g["params"]}
        arguments = []
        for name in parameters:
            if self.frozen(name, name in self.read_in_training):
                arguments.append(f"%{name}: {self.used[name].type} "
                                 "{mpt.param, mpt.frozen}")
                continue
            attrs = "mpt.param"
            group = group_of.get(id(self.lookup(None, name)))
            if group is None:
                raise ImportError(f"parameter '{name}' is in no parameter group "
                                  "of the optimizer")
            _, own = self.group_entries(group)
            override = {k: v for k, v in own.items() if entries.get(k) != v}
            if override:
                attrs += f", mpt.optimizer = {_attribute_dict(override)}"
            arguments.append(f"%{name}: {self.used[name].type} {{{attrs}}}")
        for name in buffers:
            arguments.append(f"%{name}: {self.used[name].type} {{mpt.state}}")
        arguments += [f"{v.name}: {v.type} {{mpt.data}}" for v in train_data]
        state = parameters + buffers
        results = [(self.carried[b], self.used[b].type,
                    f"mpt.next = {state.index(b)}") for b in buffers if b in self.carried]
        results.append((loss.name, loss.type, 'mpt.metric = "loss"'))
        optimizer = dict(kind=kind, **entries)
        lines = ["// Imported from PyTorch by mpt-import-torch.",
                 "func.func @train_step(" + ",\n    ".join(arguments) + ")",
                 "    -> (" + ", ".join(f"{t} {{{a}}}" for _, t, a in results) + ")",
                 f"    attributes {{mpt.train_step, mpt.optimizer = "
                 f"{_attribute_dict(optimizer)}}} {{"]
        lines += train_lines
        lines.append(f"  return {', '.join(n for n, _, _ in results)} : "
                     f"{', '.join(t for _, t, _ in results)}")
        lines.append("}")
        predict_arguments = [f"%{n}: {self.used[n].type} {{mpt.state_of = {i}}}"
                             for i, n in enumerate(state)]
        predict_arguments += [f"{v.name}: {v.type} {{mpt.data}}" for v in predict_data]
        lines += ["",
                  "func.func @predict(" + ",\n    ".join(predict_arguments) +
                  f") -> {logits.type} attributes {{mpt.eval_step}} {{"]
        lines += predict_lines
        lines += [f"  return {logits.name} : {logits.type}", "}", ""]
        initial = {n: self.lookup(None, n).detach().to(torch.float32).clone()
                   for n in state}
        data = [(v.name[1:], v.shape, v.element) for v in train_data]
        keys = list(self.model.state_dict().keys())
        return ImportedStep("\n".join(lines), initial, parameters, buffers,
                            dict(self.aliases), data, keys)


def _tuple(inputs):
    return (inputs,) if isinstance(inputs, torch.Tensor) else tuple(inputs)


def import_module(model, example_inputs, target, loss=F.cross_entropy,
                  optimizer=None, eval_inputs=None, lr_scheduler=None,
                  total_steps=None):
    """Imports `model` (a torch.nn.Module) trained on `loss(model(*inputs),
    target)` by `optimizer` (a torch.optim SGD, Adam, AdamW, RMSprop, Adagrad
    or Adadelta over its parameters; default SGD with lr 0.01) into an
    ImportedStep. `example_inputs` (a tensor or a tuple) and `target` fix the
    shapes: the batch of the training step; `eval_inputs`, if given, the eval
    step's (another batch size, for the last partial batch or inference).
    `lr_scheduler`, a fresh torch.optim.lr_scheduler of `optimizer`, becomes
    part of the step, which then steps it once per applied
    (not skipped) step; one without a closed form in mpt is tabulated over
    `total_steps` steps, its last rate holding after them."""
    if optimizer is None:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    example_inputs = _tuple(example_inputs)
    eval_inputs = example_inputs if eval_inputs is None else _tuple(eval_inputs)
    lr_schedules = (None if lr_scheduler is None else
                    _lr_schedules(lr_scheduler, optimizer, total_steps))
    return _Importer(model, example_inputs, eval_inputs, target, loss,
                     optimizer, lr_schedules).run()
