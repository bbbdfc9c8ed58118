"""Runs a command (one rank's mpt-run), sends it SIGNAL a second after the
file FILE exists (a checkpoint rank 0 wrote), and ends as the command did:
with its exit status, or killed by the same signal.

signal-after.py SIGNAL FILE COMMAND...
"""

import os
import signal
import subprocess
import sys
import time

signum = getattr(signal, sys.argv[1])
# The launcher talks to its rank over an inherited file descriptor (PMI).
process = subprocess.Popen(sys.argv[3:], close_fds=False)
while not os.path.exists(sys.argv[2]) and process.poll() is None:
    time.sleep(0.1)
time.sleep(1)
process.send_signal(signum)
status = process.wait()
if status < 0:
    os.kill(os.getpid(), -status)
sys.exit(status)
