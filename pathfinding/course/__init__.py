"""What the notebooks call besides the engine: exercise checks, teaching checks and pictures.

:mod:`~pathfinding.course.exercises` judges a student's answers, :mod:`~pathfinding.course.teaching`
checks a notebook's numbers without crashing the lesson, :mod:`~pathfinding.course.draw` and
:mod:`~pathfinding.course.diagrams` draw the walk and the chapter's steps (and where a notebook sits
in the pipeline), :mod:`~pathfinding.course.tables` prints small tables as HTML,
:mod:`~pathfinding.course.costs` is the offline/online bill, :mod:`~pathfinding.course.monitoring`
watches index recall without gold triples, :mod:`~pathfinding.course.explorers` puts sliders on
four notebooks' numbers in a kernel, and :mod:`~pathfinding.course.page_explorers` makes the same
sliders work in a static book page.
"""
