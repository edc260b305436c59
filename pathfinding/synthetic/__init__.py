"""Synthetic graphs and instances: the path-finding generator and everything that competes on it.

* :mod:`~pathfinding.synthetic.instances` -- Step 9's generator
(:func:`~pathfinding.synthetic.instances.make_instance`);
* :mod:`~pathfinding.synthetic.toy` -- named tiny graphs (the chapter's two stars, the meet-node toy);
* :mod:`~pathfinding.synthetic.variation` -- instances whose trials sample graphs, not relabellings;
* :mod:`~pathfinding.synthetic.following` -- path-following instances and question texts;
* :mod:`~pathfinding.synthetic.rankers` and :mod:`~pathfinding.synthetic.chaining` -- the rankers
  and the iterative (IRCoT-shaped) retrievers;
* :mod:`~pathfinding.synthetic.graphs` -- seeded random graphs; :mod:`~pathfinding.synthetic.corpus`
  -- a synthetic text corpus with triples, for indexing at scale.
"""
