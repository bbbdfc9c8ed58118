"""Runs a command (one rank's mpt-run), and kills it with SIGKILL once the
file FILE exists (a checkpoint rank 0 wrote), a second later.

kill-after.py FILE COMMAND...
"""

import os
import signal
import subprocess
import sys
import time

# The launcher talks to its rank over an inherited file descriptor (PMI).
process = subprocess.Popen(sys.argv[2:], close_fds=False)
while not os.path.exists(sys.argv[1]) and process.poll() is None:
    time.sleep(0.1)
time.sleep(1)
process.send_signal(signal.SIGKILL)
process.wait()
os.kill(os.getpid(), signal.SIGKILL)
