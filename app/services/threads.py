"""One BLAS and OpenMP thread per computation in the server.

The server runs every visitor's script in a thread of its own, on a machine
whose cores those visitors share. A multi-threaded BLAS in each of them
oversubscribes the cores: on a busy two-core machine a 100-dimension SVD of
the Words page took 7 s with two OpenBLAS threads and 0.9 s with one.
Libraries not loaded yet (scipy's BLAS, scikit-learn's OpenMP) read the
environment when they load; those already loaded (numpy's BLAS) are limited
in place.
"""

from __future__ import annotations

import os

from threadpoolctl import threadpool_limits

#: Threads each BLAS / OpenMP library may use in the server.
THREADS = 1
#: Threads of a computation with a pool of its own, given as embedcore's ``n_jobs`` (t-SNE's gradient, the
#: maps' neighbour searches): two, as t-SNE had before embedcore took the parameter. A map is computed once
#: per data set and seed and shared by every session.
JOBS = 2

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, str(THREADS))
LIMITS = threadpool_limits(limits=THREADS)
