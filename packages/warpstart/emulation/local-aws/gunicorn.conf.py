"""gunicorn settings of the local AWS (`gunicorn -c gunicorn.conf.py app:app`): it ends with its owner.

The master runs under `setpriv --pdeathsig KILL` (core/processes.mts); these hooks give the same to
its worker, which would otherwise notice a dead master only at its next poll (about a second), and
make a hang-up end the master instead of reloading it (gunicorn's own meaning of SIGHUP).
"""
import ctypes
import os
import signal

PR_SET_PDEATHSIG = 1


def on_starting(server):
    # setpriv arms the signal just after its owner started it: an owner that died in between left
    # this master to init already, and nothing would ever end it.
    owner = os.environ.get("WARPSTART_OWNER_PID")
    if owner and os.getppid() != int(owner):
        os._exit(1)


def when_ready(server):
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def post_fork(server, worker):
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != server.pid:
        os._exit(1)
