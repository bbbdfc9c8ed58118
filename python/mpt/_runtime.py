"""ctypes binding of libmpt_runtime.so, the C API of <mpt/runtime.h>.

The structs mirror the header field for field; test/Python/abi.test compares
their sizes and offsets with a C compiler's, so a field added to the header
without its twin here fails a test instead of corrupting memory.
"""

import ctypes
import os

STATUS_NAMES = {
    1: "INVALID_ARGUMENT", 2: "NOT_FOUND", 3: "DATA_LOSS", 4: "COMPILE_ERROR",
    5: "INTERNAL", 6: "OUT_OF_MEMORY", 7: "FAILED_PRECONDITION", 8: "IO_ERROR",
    9: "UNAVAILABLE",
}

DTYPE_F32, DTYPE_F16, DTYPE_BF16, DTYPE_I64, DTYPE_I32, DTYPE_BOOL = range(6)
PRECISIONS = {"fp32": 0, "f32": 0, "f16": 1, "bf16": 2}
DEVICES = {"cpu": 0, "cuda": 1}
LOSS_SCALES = {"auto": 0, "dynamic": 1, "static": 2, "none": 3}
RECOMPUTE = {"none": 0, "sqrt": 1, "marked": 2}
FUNCTION_TRAIN, FUNCTION_EVAL = 0, 1
MAX_RANK = 8


class Error(RuntimeError):
    """A failed runtime call: `code` is the status name, the message the
    runtime's own."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class TensorInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("dtype", ctypes.c_int32),
        ("rank", ctypes.c_int64),
        ("shape", ctypes.c_int64 * MAX_RANK),
        ("num_elements", ctypes.c_int64),
        ("num_bytes", ctypes.c_size_t),
        ("num_classes", ctypes.c_int64),
        ("is_parameter", ctypes.c_int32),
        ("has_ignored_label", ctypes.c_int32),
        ("ignored_label", ctypes.c_int64),
        ("table_rows", ctypes.c_int64),
    ]


class CompileOptions(ctypes.Structure):
    _fields_ = [
        ("precision", ctypes.c_int32),
        ("device", ctypes.c_int32),
        ("loss_scale", ctypes.c_int32),
        ("init_scale", ctypes.c_double),
        ("growth_interval", ctypes.c_int64),
        ("min_scale", ctypes.c_double),
        ("max_scale", ctypes.c_double),
        ("dump_prefix", ctypes.c_char_p),
        ("cpu_kernels", ctypes.c_int),
        ("parallel_min_iterations", ctypes.c_int64),
        ("persistent_working_copies", ctypes.c_int),
        ("comm", ctypes.c_void_p),
        ("grad_reduce", ctypes.c_int32),
        ("bucket_bytes", ctypes.c_int64),
        ("micro_batches", ctypes.c_int64),
        ("precision_report", ctypes.c_char_p),
        ("recompute", ctypes.c_int32),
        ("cuda_graphs", ctypes.c_int),
    ]


MEMORY_CATEGORIES = ("parameters", "masters", "working_copies", "gradients",
                     "activations", "optimizer_state", "other_state", "data",
                     "workspace", "total")


class MemoryBytes(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in MEMORY_CATEGORIES]


class StepMetrics(ctypes.Structure):
    _fields_ = [
        ("loss", ctypes.c_float),
        ("loss_scale", ctypes.c_float),
        ("skipped", ctypes.c_int),
        ("grad_zero", ctypes.c_int64),
        ("grad_nonfinite", ctypes.c_int64),
        ("bytes_all_reduced", ctypes.c_int64),
        ("peak_memory", MemoryBytes),
    ]


STRUCTS = {"mpt_memory_bytes_t": MemoryBytes,
           "mpt_tensor_info_t": TensorInfo,
           "mpt_compile_options_t": CompileOptions,
           "mpt_step_metrics_t": StepMetrics}


def library_path():
    """MPT_RUNTIME_LIBRARY, or the library three directories up: the build
    tree and an installed prefix both keep this package in
    lib/python3/dist-packages/mpt beside lib/libmpt_runtime.so."""
    path = os.environ.get("MPT_RUNTIME_LIBRARY")
    if path:
        return path
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "..",
                                         "libmpt_runtime.so"))


def _declare(lib):
    status = ctypes.c_void_p
    handle = ctypes.c_void_p
    p = ctypes.POINTER
    signatures = {
        "mpt_status_code": (ctypes.c_int, [status]),
        "mpt_status_message": (ctypes.c_char_p, [status]),
        "mpt_status_free": (None, [status]),
        "mpt_compile_options_init": (None, [p(CompileOptions)]),
        "mpt_program_compile": (status, [ctypes.c_char_p, p(CompileOptions),
                                         p(handle)]),
        "mpt_program_free": (None, [handle]),
        "mpt_program_has_eval": (ctypes.c_int, [handle]),
        "mpt_program_num_inputs": (ctypes.c_int64, [handle, ctypes.c_int32]),
        "mpt_program_input_info": (status, [handle, ctypes.c_int32,
                                            ctypes.c_int64, p(TensorInfo)]),
        "mpt_program_num_outputs": (ctypes.c_int64, [handle, ctypes.c_int32]),
        "mpt_program_output_info": (status, [handle, ctypes.c_int32,
                                             ctypes.c_int64, p(TensorInfo)]),
        "mpt_session_create": (status, [handle, ctypes.c_uint64, p(handle)]),
        "mpt_session_free": (None, [handle]),
        "mpt_session_bind_input": (status, [handle, ctypes.c_int32,
                                            ctypes.c_char_p, ctypes.c_int32,
                                            ctypes.c_void_p, ctypes.c_size_t]),
        "mpt_session_step": (status, [handle, p(StepMetrics)]),
        "mpt_session_step_metric": (status, [handle, ctypes.c_char_p,
                                             p(ctypes.c_double)]),
        "mpt_program_warnings": (ctypes.c_char_p, [handle]),
        "mpt_session_eval": (status, [handle]),
        "mpt_session_read_output": (status, [handle, ctypes.c_int32,
                                             ctypes.c_char_p, ctypes.c_int32,
                                             ctypes.c_void_p, ctypes.c_size_t]),
        "mpt_session_num_state": (ctypes.c_int64, [handle]),
        "mpt_session_state_info": (status, [handle, ctypes.c_int64,
                                            p(TensorInfo)]),
        "mpt_session_read_state": (status, [handle, ctypes.c_char_p,
                                            ctypes.c_void_p, ctypes.c_int64]),
        "mpt_session_write_state": (status, [handle, ctypes.c_char_p,
                                             ctypes.c_void_p, ctypes.c_int64]),
        "mpt_session_save": (status, [handle, ctypes.c_char_p,
                                      ctypes.c_int64]),
        "mpt_session_load": (status, [handle, ctypes.c_char_p,
                                      p(ctypes.c_int64)]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


_lib = None


def lib():
    """The loaded library, loaded on first use so that importing the package
    (and the importer, which needs no runtime) works without it."""
    global _lib
    if _lib is None:
        path = library_path()
        try:
            _lib = _declare(ctypes.CDLL(path))
        except OSError as error:
            raise Error("NOT_FOUND",
                        f"cannot load the mpt runtime library {path}: {error} "
                        "(set MPT_RUNTIME_LIBRARY to libmpt_runtime.so)") from None
    return _lib


def check(status):
    """Raises the runtime's error for a non-NULL status, and frees it."""
    if not status:
        return
    runtime = lib()
    code = runtime.mpt_status_code(status)
    message = runtime.mpt_status_message(status).decode()
    runtime.mpt_status_free(status)
    raise Error(STATUS_NAMES.get(code, str(code)), message)


def tensor_info_dict(info):
    return {"name": info.name.decode(), "dtype": info.dtype,
            "shape": tuple(info.shape[:info.rank]),
            "num_elements": info.num_elements,
            "num_classes": info.num_classes,
            "ignored_label": (info.ignored_label if info.has_ignored_label
                              else None),
            "is_parameter": bool(info.is_parameter)}
