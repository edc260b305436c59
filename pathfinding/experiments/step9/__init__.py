"""Step 9, what the numbers say: the paper's tables beside the package's own rows, and its running example.

:mod:`~pathfinding.experiments.step9.paper` holds the paper's tables as data with their captions;
:mod:`~pathfinding.experiments.step9.readings` checks the chapter's readings of them against their
rows; :mod:`~pathfinding.experiments.step9.rows` measures the package's rows on the MuSiQue tuning
set; :mod:`~pathfinding.experiments.step9.casestudy` walks "Which Stanford professor works on the
neuroscience of Alzheimer's?" through the package on the HippoRAG v1 university corpus. Notebook 08
reads all four.
"""
