"""The package's Step 9 rows (pathfinding.experiments.step9.rows): fewer distractors on the tuning set."""

import pytest

from pathfinding.errors import InvalidValueError


def test_distractor_rows_keep_every_supporting_passage():
    from pathfinding.experiments.step9.rows import distractor_rows

    rows = distractor_rows((0.25,), seed=0)
    ((name, r),) = rows.items()
    assert name.endswith(" passages") and r.shape == (100, 4)
    assert ((0 <= r) & (r <= 1)).all()
    with pytest.raises(InvalidValueError, match="shares"):
        distractor_rows((0.0,))
