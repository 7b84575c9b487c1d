"""Set-up run in every LocalCluster worker process as it starts (a Dask preload module).

A terminal's Ctrl-C reaches the whole process group: the command's process
and its workers. The command stops the run and says what was kept; the
workers ignore SIGINT, so none of them prints a traceback of its own. They
stop when the command closes the cluster.
"""

import signal
import threading


def dask_setup(worker) -> None:
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
