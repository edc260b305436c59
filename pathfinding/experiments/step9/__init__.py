"""Step 9, what the numbers say: the paper's tables beside the package's own rows, and its running example.

:mod:`~pathfinding.experiments.step9.paper` holds the paper's Tables 2, 5 and 6 as data with their
sources; :mod:`~pathfinding.experiments.step9.rows` measures the package's rows on the MuSiQue tuning
set; :mod:`~pathfinding.experiments.step9.casestudy` walks "Which Stanford University professor works
on Alzheimer's?" through the package on the HippoRAG v1 university corpus. Notebook 08 reads all three.
"""
