"""The input features of sts-extras' ``evaluate`` modules: score columns encoded in one step.

Every module of ``metrics/`` declares its inputs as :meth:`ScoreFeatures.of` (float64 columns
encoded for Arrow in one numpy conversion each) beside the input checks of
:class:`~sts_extras.integrations.evaluate.modules.RealScoreColumns`. It is a module of its own
because it imports ``datasets``, which :func:`sts_extras.metric_path` does not need.
"""

from __future__ import annotations

import datasets
import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["ScoreFeatures"]


class ScoreFeatures(datasets.Features):
    """Float64 score columns whose batches are encoded for Arrow in one numpy conversion each.

    ``evaluate`` hands every batch of ``compute`` and ``add_batch`` to ``features.encode_batch``
    before writing it to Arrow; ``datasets.Features.encode_batch`` turns each column into a list
    and encodes it item by item in Python, which for a float64 column applies ``float`` to each
    value (about 1 s per 10⁶ scores). One numpy conversion per column gives the same float64
    values.

    Declare a module's inputs as ``ScoreFeatures.of("predictions", "references")`` and put
    :class:`~sts_extras.integrations.evaluate.modules.RealScoreColumns` in its bases: the
    encoding converts like ``float`` does, and the mixin has refused booleans, strings and
    complex numbers, naming the column, before it runs.

    Examples
    --------
    >>> from sts_extras.integrations.evaluate.columns import ScoreFeatures
    >>> features = ScoreFeatures.of("predictions", "references")
    >>> features
    {'predictions': Value('float64'), 'references': Value('float64')}
    >>> features.encode_batch({"predictions": [1, 2.5], "references": (0.5, 3)})["references"]
    array([0.5, 3. ])
    """

    @classmethod
    def of(cls, *names: str) -> ScoreFeatures:
        """Features of float64 columns named ``names``, in this order."""
        return cls({name: datasets.Value("float64") for name in names})

    def encode_batch(self, batch: dict[str, ArrayLike]) -> dict[str, NDArray[np.float64]]:
        """Each column as a 1-D float64 array: the values of ``float`` applied item by item.

        Raises
        ------
        ValueError
            The columns are not those of the features (as ``datasets.Features.encode_batch``).
        TypeError
            A column is not a 1-D sequence of numbers; ``evaluate`` reports it as a
            ``ValueError`` showing the expected format, as it does for the item-by-item encoding.
        """
        if set(batch) != set(self):
            raise ValueError(f"Column mismatch between batch {set(batch)} and features {set(self)}")
        encoded = {}
        for name, column in batch.items():
            try:
                values = np.asarray(column, dtype=np.float64)
            except ValueError as error:  # e.g. ragged nested lists
                raise TypeError(f"`{name}` must be a 1-D sequence of numbers ({error}).") from None
            if values.ndim != 1:
                raise TypeError(f"`{name}` must be a 1-D sequence of numbers, got {values.ndim}-D.")
            encoded[name] = values
        return encoded
