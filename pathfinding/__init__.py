"""pathfinding: HippoRAG's path-finding claim as code a student can run, poke and measure.

HippoRAG (Gutiérrez et al., NeurIPS 2024, arXiv:2405.14831) answers multi-hop questions by spreading
Personalized PageRank mass from the query's entities over a knowledge graph. This package builds the
synthetic path-finding instances of the chapter, the rankers that compete on them, and the
experiments that measure them.
"""

from pathfinding.instances import PathFindingInstance, make_instance

__all__ = ["PathFindingInstance", "make_instance"]
__version__ = "0.1.0"
