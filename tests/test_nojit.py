"""Parity pass: the same kernels as plain Python (NUMBA_DISABLE_JIT=1) give the same numbers."""

import json
import os
import subprocess
import sys

import numpy as np

SCRIPT = """
import json, numpy as np
from pathfinding.synthetic.instances import make_instance
from pathfinding.synthetic.rankers import RANKERS
from pathfinding.core.scoring import passage_scores
from pathfinding.core.ppr import personalized_pagerank
out = {}
for hops in (1, 2):
    inst = make_instance(hops, rng=11)
    for name, score in RANKERS.items():
        out[f"{name}-{hops}"] = score(inst).tolist()
    pi = RANKERS["ppr"](inst)
    out[f"passages-{hops}"] = passage_scores(pi, inst.mentions).tolist()
    R = np.random.default_rng(0).random((inst.n_nodes, 3))
    out[f"block-{hops}"] = personalized_pagerank(inst.graph, R, tol=0, max_iter=20).tolist()
print(json.dumps(out))
"""


def _run(disable_jit: bool) -> dict:
    env = dict(os.environ, NUMBA_DISABLE_JIT="1" if disable_jit else "0")
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def test_kernels_agree_with_and_without_jit():
    jit, py = _run(False), _run(True)
    assert jit.keys() == py.keys()
    for key in jit:
        np.testing.assert_allclose(jit[key], py[key], rtol=0, atol=1e-13, err_msg=key)
