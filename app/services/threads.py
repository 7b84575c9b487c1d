"""One BLAS and OpenMP thread per computation in the server.

The server runs every visitor's script in a thread of its own, on a machine
whose cores those visitors share. A multi-threaded BLAS in each of them
oversubscribes the cores: on a busy two-core machine a 100-dimension SVD of
the Words page took 7 s with two OpenBLAS threads and 0.9 s with one. The
limit applies to the libraries loaded when it is set, so they are loaded first.
"""

from __future__ import annotations

import numpy  # noqa: F401  (loads numpy's BLAS)
import scipy.linalg  # noqa: F401  (scipy's BLAS and LAPACK)
import sklearn.utils.extmath  # noqa: F401  (scikit-learn's OpenMP runtime)
from threadpoolctl import threadpool_limits

#: Threads each BLAS / OpenMP library may use in the server.
THREADS = 1

LIMITS = threadpool_limits(limits=THREADS)
