"""Ballot files for annotators: one comparison per row, with the ids and texts of both pairs.

A ballot is a list of comparisons: two items (sentence pairs), and the question "which pair's
sentences are closer in meaning?". It is written in two forms:

* a flat CSV (:func:`ballot_table`), one row per comparison, with the columns
  :data:`BALLOT_COLUMNS`; it is also the input file of an MTurk-style batch, whose results
  come back as ``Input.<column>`` plus the worker's ``Answer.choice`` (read by
  :mod:`sts_extras.annotation.votes`);
* a Label Studio import file (:func:`label_studio_tasks`): a JSON list of tasks
  ``{"data": {<the same columns>}}``, with the labeling configuration :data:`LABEL_CONFIG`
  (a ``Choices`` control named ``choice`` with the options :data:`CHOICES`) written beside it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "BALLOT_COLUMNS",
    "CHOICES",
    "CHOICE_A",
    "CHOICE_B",
    "CHOICE_TIE",
    "LABEL_CONFIG",
    "ballot_table",
    "label_config_path",
    "label_studio_tasks",
]

#: Columns of a ballot CSV with texts (``comparison_id`` is unique over a campaign).
BALLOT_COLUMNS = (
    "comparison_id",
    "ballot",
    "item_a",
    "item_b",
    "a_sentence1",
    "a_sentence2",
    "b_sentence1",
    "b_sentence2",
)
#: The answers of a comparison, as shown to annotators and stored in their results.
CHOICE_A = "Pair A"
CHOICE_B = "Pair B"
CHOICE_TIE = "Equally similar"
CHOICES = (CHOICE_A, CHOICE_B, CHOICE_TIE)

#: Label Studio labeling configuration of a ballot: both pairs side by side and one
#: single-choice answer (``from_name`` ``choice``) that the export stores as
#: ``{"type": "choices", "value": {"choices": ["Pair A"]}}``.
LABEL_CONFIG = f"""<View>
  <Header value="Which pair of sentences is closer in meaning?"/>
  <View style="display: flex; gap: 2em;">
    <View style="flex: 1;">
      <Header value="{CHOICE_A}" size="5"/>
      <Text name="a_sentence1" value="$a_sentence1"/>
      <Text name="a_sentence2" value="$a_sentence2"/>
    </View>
    <View style="flex: 1;">
      <Header value="{CHOICE_B}" size="5"/>
      <Text name="b_sentence1" value="$b_sentence1"/>
      <Text name="b_sentence2" value="$b_sentence2"/>
    </View>
  </View>
  <Choices name="choice" toName="a_sentence1" choice="single-radio" required="true">
    <Choice value="{CHOICE_A}"/>
    <Choice value="{CHOICE_B}"/>
    <Choice value="{CHOICE_TIE}"/>
  </Choices>
</View>
"""


def ballot_table(pairs: ArrayLike, ballot: int, texts: pd.DataFrame | None = None) -> pd.DataFrame:
    """The comparisons of one ballot as a table.

    Parameters
    ----------
    pairs : array_like, shape (n, 2)
        Item ids of each comparison (:func:`~sts_extras.annotation.design.draw_pairs`).
    ballot : int
        The ballot number (1 for the first).
    texts : pandas.DataFrame, optional
        :func:`~sts_extras.annotation.tables.read_pairs` output. With it the table has the
        columns :data:`BALLOT_COLUMNS`; without, only ``item_a,item_b,ballot``.

    Examples
    --------
    >>> import pandas as pd
    >>> texts = pd.DataFrame({"id": ["1", "2"], "sentence1": ["A cat.", "Rain."],
    ...                       "sentence2": ["A dog.", "Sun."]})
    >>> row = ballot_table([["2", "1"]], 1, texts).iloc[0]
    >>> row.comparison_id, row.item_a, row.a_sentence1, row.b_sentence1
    ('b1-00001', '2', 'Rain.', 'A cat.')
    """
    import pandas as pd

    pairs = np.asarray(pairs, dtype=object).reshape(-1, 2)
    if texts is None:
        return pd.DataFrame({"item_a": pairs[:, 0], "item_b": pairs[:, 1], "ballot": ballot})
    by_id = texts.set_index("id")
    first = by_id.loc[pairs[:, 0]]
    second = by_id.loc[pairs[:, 1]]
    return pd.DataFrame(
        {
            "comparison_id": [f"b{ballot}-{index:05d}" for index in range(1, len(pairs) + 1)],
            "ballot": ballot,
            "item_a": pairs[:, 0],
            "item_b": pairs[:, 1],
            "a_sentence1": first["sentence1"].to_numpy(),
            "a_sentence2": first["sentence2"].to_numpy(),
            "b_sentence1": second["sentence1"].to_numpy(),
            "b_sentence2": second["sentence2"].to_numpy(),
        }
    )


def label_studio_tasks(table: pd.DataFrame) -> str:
    """Label Studio's import format of a ballot: ``[{"data": {<column>: <value>, ...}}, ...]``.

    Every column of :func:`ballot_table` (with texts) goes into ``data``; the export returns
    ``data`` unchanged, which is how the votes find their items again. One task per line.
    """
    tasks = [
        json.dumps({"data": {column: _plain(value) for column, value in row.items()}},
                   ensure_ascii=False)
        for row in table.to_dict(orient="records")
    ]  # fmt: skip
    return "[\n" + ",\n".join(tasks) + "\n]\n"


def _plain(value: object) -> object:
    """A JSON value: numpy integers become ``int``."""
    return int(value) if isinstance(value, np.integer) else value


def label_config_path(tasks_path: Path) -> Path:
    """Where the labeling configuration of ``tasks_path`` goes: beside it, suffix ``.xml``."""
    return Path(tasks_path).with_suffix(".xml")
