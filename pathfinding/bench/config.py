"""The benchmark's fixed settings, shared by every file of :mod:`pathfinding.bench`."""

from __future__ import annotations

RESTART_PROB = 0.5
N_ITER = 30
TOL = 1e-10
REFERENCE_ITER = 200
COMMAND = "python -m pathfinding bench"
# The peers' thread pools (OpenMP, BLAS). Our kernels have no parallel=True, so they run on one thread
# whatever numba's pool size; NUMBA_NUM_THREADS is only set for the JIT subprocess, never in this
# process (numba refuses a new value once its pool has started).
THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
