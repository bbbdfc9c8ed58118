"""Two sessions of one CUDA program, stepping in turn, through the C API
(python/mpt/_runtime.py): each has its own buffers, so each gets its own
CUDA graph. Run on the recording driver; prints the training-step captures
and graph launches it made, for FileCheck.

    two_sessions.py MODULE LOG STEPS
"""
import ctypes
import sys

from mpt import _runtime as rt

module, log, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
runtime = rt.lib()
options = rt.CompileOptions()
runtime.mpt_compile_options_init(ctypes.byref(options))
options.device = rt.DEVICES["cuda"]
program = ctypes.c_void_p()
rt.check(runtime.mpt_program_compile(module.encode(), ctypes.byref(options),
                                     ctypes.byref(program)))
sessions = []
for seed in (1, 2):
    session = ctypes.c_void_p()
    rt.check(runtime.mpt_session_create(program, seed, ctypes.byref(session)))
    sessions.append(session)
# The MLP's batch: 128 images of 784 floats and their labels.
images = (ctypes.c_float * (128 * 784))()
labels = (ctypes.c_int32 * 128)()
for session in sessions:
    for name, dtype, data in (("x", 0, images), ("y", 4, labels)):
        rt.check(runtime.mpt_session_bind_input(
            session, 0, name.encode(), dtype, data, ctypes.sizeof(data)))
for _ in range(steps):
    for session in sessions:
        rt.check(runtime.mpt_session_step(session, None))
for session in sessions:
    runtime.mpt_session_free(session)
runtime.mpt_program_free(program)

calls = open(log).read().splitlines()
print("captures:", sum(line.startswith("cuStreamBeginCapture") for line in calls))
print("graph launches:", sum(line.startswith("cuGraphLaunch") for line in calls))
print("uncaptured train_step runs:",
      sum(line == "cuLaunchKernel train_step_kernel" for line in calls))
