"""A task described by data: what it asks, how its sentences are drawn, where its
weights are shipped; and the two copying tasks, whose right attention pattern
is known in advance.

A task's sentences come in batches of one length (no padding, so no padding
mask while training). Each position may have one answer per readout of the
model (:class:`Batch`): the word one position back, the word one position
ahead, the form of a verb. With each answer the batch says *where* it can be
read: the position of the key that holds it, so that the attention on the right
key can be measured, whatever the task.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

from mha._checks import check_choice, check_int
from mha.defaults import D_MODEL, MAX_LENGTH, SENTENCES
from mha.text import Vocab, tokens_within
from mha.training.model import HEAD_COUNTS, Reading, read

IGNORE = -100  # the target cross_entropy skips (a position with nothing to answer)
DATA = Path(__file__).resolve().parents[1] / "data"  # the shipped weights


@dataclass(frozen=True)
class Batch:
    """Sentences of one length and what a model should answer at each position.

    Attributes:
        ids: ``(n_sentences, length)`` word ids.
        targets: ``(n_sentences, length, n_answers)``, the id of the right
            answer of each readout at each position; ``IGNORE`` where there is
            nothing to answer.
        keys: ``(n_sentences, length, n_answers)``, the position whose word the
            answer comes from (the key a query should attend to); ``-1`` where
            there is no answer.
        decoys: ``(n_sentences, length, n_answers)``, a position a plausible
            wrong strategy would read the answer from, where doing so gives the
            wrong answer (the nearest noun, when its number differs from the
            subject's); ``-1`` elsewhere, and everywhere for tasks without one.
    """

    ids: torch.Tensor
    targets: torch.Tensor
    keys: torch.Tensor
    decoys: torch.Tensor


#: The signature of a task's draw, ``draw(vocab, generator, n_sentences, length,
#: held_out)``, which returns a :class:`Batch`; ``held_out`` is ``False``
#: (training sentences), ``True`` (held-out ones) or the name of one of the
#: task's :attr:`~Task.splits`.
Draw = Callable[[Vocab, torch.Generator, int, int, "bool | str"], Batch]


@dataclass(frozen=True)
class Task:
    """A toy task, described by data.

    Attributes:
        name: a short name; the shipped weights are ``data/<name>.pt``.
        asks: what the task asks, in one line a chapter can print.
        answers: the name of each answer, one readout of the model each.
        words: the words of its sentences (the vocabulary adds ``<pad>`` and
            ``<unk>``).
        lengths: the shortest and the longest training sentence (both included);
            every training batch has one length drawn from this range.
        test_lengths: the lengths of the held-out sentences
            :func:`~mha.training.measures.behaviour` measures on.
        test_sentences: how many held-out sentences of each test length.
        draw: how a batch is drawn (see :data:`Draw`); ``held_out=True``
            draws sentences that training never sees, where the task has such
            a split (random strings of words are all new anyway).
        seeds: the training seeds whose models are shipped.
        steps, batch_size, lr: the training settings of the shipped models.
        train_batches: ``None`` (the default): every training step draws a
            fresh batch; a number: training draws that many batches once, a
            fixed training set, and every step takes one of them at random
            (for a task whose sentences cost more to draw than a step costs).
        max_length: the longest sentence the model's positional encoding covers.
        splits: named kinds of held-out sentences, each with its test
            lengths, ``((name, lengths), ...)``: ``held_out=name`` draws
            them (none by default).
        depths: the numbers of attention layers of the shipped models (1:
            the book's pipeline; 2: two layers on a residual stream, causal
            in both; see :func:`~mha.training.loop.new_model`).
        head_counts: the head counts of the shipped models, each head
            ``d_model // n_heads`` wide.
        layouts: shipped one-layer models whose heads have a width of their
            own, ``((n_heads, d_key), ...)`` (none by default).
        next_word: the answer at a position is the word after it, so a model
            that saw it could copy it: every model of the task is causal,
            one layer or two.
    """

    name: str
    asks: str
    answers: tuple[str, ...]
    words: tuple[str, ...]
    lengths: tuple[int, int]
    test_lengths: tuple[int, ...]
    draw: Draw
    test_sentences: int = 1000
    seeds: tuple[int, ...] = (0,)
    steps: int = 600
    batch_size: int = 128
    lr: float = 0.03
    train_batches: int | None = None
    max_length: int = MAX_LENGTH
    splits: tuple[tuple[str, tuple[int, ...]], ...] = ()
    depths: tuple[int, ...] = (1,)
    head_counts: tuple[int, ...] = HEAD_COUNTS
    layouts: tuple[tuple[int, int], ...] = ()
    next_word: bool = False

    def __repr__(self) -> str:
        return f"Task({self.name!r}: {self.asks})"

    def __post_init__(self):
        low, high = self.lengths
        check_int("lengths[0]", low)
        check_int("lengths[1]", high, minimum=low, maximum=self.max_length)
        for length in self.test_lengths:
            check_int("test_lengths[i]", length, maximum=self.max_length)
        if not self.answers or not self.seeds:
            raise ValueError(
                f"answers and seeds must not be empty, got {self.answers} and {self.seeds}"
            )
        if self.train_batches is not None:
            check_int("train_batches", self.train_batches)
        for name, lengths in self.splits:
            for length in lengths:
                check_int(f"splits[{name!r}] lengths", length, maximum=self.max_length)
        for depth in self.depths:
            check_choice("depths[i]", depth, (1, 2))
        for n_heads in self.head_counts:
            check_choice("head_counts[i]", n_heads, HEAD_COUNTS)
        for layout in self.layouts:
            if not (isinstance(layout, tuple) and len(layout) == 2):
                raise ValueError(
                    f"layouts[i] must be a pair (n_heads, d_key), got {layout!r}"
                )
            check_int("layouts[i] n_heads", layout[0])
            check_int("layouts[i] d_key", layout[1])

    @functools.cached_property
    def vocab(self) -> Vocab:
        """The task's vocabulary (``<pad>``, ``<unk>``, then its words)."""
        return Vocab(self.words)

    @property
    def weights_file(self) -> Path:
        """The file of the task's shipped weights, ``data/<name>.pt`` in the package."""
        return DATA / f"{self.name}.pt"

    def batch(
        self,
        generator: torch.Generator,
        n_sentences: int,
        length: int,
        held_out: bool | str = False,
    ) -> Batch:
        """``n_sentences`` random sentences of ``length`` words and their
        answers: training sentences, held-out ones (``held_out=True``) or
        held-out ones of one of the task's :attr:`splits` (its name)."""
        if not isinstance(generator, torch.Generator):
            raise TypeError(
                f"generator must be a torch.Generator, got {type(generator).__name__}"
            )
        check_int("n_sentences", n_sentences)
        low, high = self.lengths
        check_int("length", length, minimum=low, maximum=max(high, *self.test_lengths))
        if not isinstance(held_out, str):
            held_out = bool(held_out)
        elif held_out not in dict(self.splits):
            choices = ", ".join(["True", "False", *map(repr, dict(self.splits))])
            raise ValueError(f"held_out must be one of {choices}, got {held_out!r}")
        return self.draw(self.vocab, generator, n_sentences, length, held_out)

    def test_batches(self, seed: int = 1234, split: str | None = None) -> list[Batch]:
        """The held-out sentences: ``test_sentences`` of each test length,
        seeded; with ``split``, those of one of the task's :attr:`splits`.

        They are drawn once per task, seed and split, and each call gets its
        own copy (a measure of every head of every seed asks for them again
        and again; a caller may change its copy)."""
        check_int("seed", seed, minimum=0)
        if split is not None:
            check_choice("split", split, tuple(dict(self.splits)))
        return [
            Batch(b.ids.clone(), b.targets.clone(), b.keys.clone(), b.decoys.clone())
            for b in _held_out(self, seed, split)
        ]

    def read(self, model: torch.nn.Module, sentence: str) -> Reading:
        """What ``model`` (trained on this task) makes of ``sentence``
        (:func:`~mha.training.model.read`): its tokens, the model's answers at
        every position by name and the attention maps, ready for
        :func:`~mha.plotting.core.display_attention`."""
        tokens, _ = self.encode(sentence)
        return read(model, self.vocab, tokens, answers=self.answers)

    def encode(self, sentence: str) -> tuple[list[str], torch.Tensor]:
        """The tokens of ``sentence`` and their ids ``(1, L)``, ready for the model.

        Raises:
            ValueError: a word is not in the task's vocabulary, or the sentence
                is longer than ``max_length``.
        """
        tokens = tokens_within(sentence, self.max_length)
        unknown = [token for token in tokens if token not in self.vocab]
        if unknown:
            raise ValueError(
                f"sentence must use the {self.name} task's words "
                f"({', '.join(self.words)}), got {', '.join(map(repr, unknown))}"
            )
        return tokens, torch.tensor([self.vocab.encode(tokens)])  # (1, L)


@dataclass(frozen=True)
class CopyAt:
    """The draw of a copying task: random strings of words, and at every
    position the words ``offsets`` away (-1 the previous word, +1 the next).

    Words are drawn uniformly, ``<pad>`` and ``<unk>`` excluded; an answer
    whose position falls outside the sentence is ``IGNORE``. Random strings
    are all new, so ``held_out`` changes nothing.
    """

    offsets: tuple[int, ...]

    def __call__(
        self,
        vocab: Vocab,
        generator: torch.Generator,
        n_sentences: int,
        length: int,
        held_out: bool = False,
    ) -> Batch:
        first = vocab.unk_id + 1  # real words only
        shape = (n_sentences, length)
        ids = torch.randint(first, len(vocab), shape, generator=generator)
        offsets = torch.tensor(self.offsets)  # (n_answers,)
        keys = torch.arange(length)[:, None] + offsets  # (length, n_answers)
        keys = keys.where((keys >= 0) & (keys < length), -1)  # -1: outside
        keys = keys.expand(n_sentences, -1, -1)  # (n_sentences, length, n_answers)
        read = ids.gather(1, keys.clamp(min=0).flatten(1)).view_as(keys)
        targets = read.where(keys >= 0, IGNORE)  # (n_sentences, length, n_answers)
        return Batch(ids, targets, keys.clone(), torch.full_like(keys, -1))


_WORDS = tuple(Vocab.from_corpus(SENTENCES).itos[2:])  # the running example's 14

#: *Copy the previous word*, which one head can do by looking one position back.
PREVIOUS_WORD = Task(
    name="previous_word",
    asks="at every position, the word one position back",
    answers=("previous",),
    words=_WORDS,
    lengths=(2, 8),
    test_lengths=(6,),
    draw=CopyAt((-1,)),
)

#: *Name both neighbours*, two patterns at once, which one row of a head's map cannot hold.
NEIGHBOURS = Task(
    name="neighbours",
    asks="at every position, the word one position back and the word one ahead",
    answers=("previous", "next"),
    words=_WORDS,
    lengths=(3, 8),
    test_lengths=(6,),
    draw=CopyAt((-1, 1)),
    seeds=(0, 1, 2, 3, 4),
    lr=0.1,
    # Every head count with every head width, beside the conventional
    # 1 x 8, 2 x 4, 4 x 2 and 8 x 1 of head_counts: the two varied apart;
    # and one head twice as wide, sixteen heads of one feature.
    layouts=tuple(
        (n, d_key) for n in HEAD_COUNTS for d_key in HEAD_COUNTS if n * d_key != D_MODEL
    )
    + ((1, 16), (16, 1)),
)


def check_task(task: object) -> Task:
    """``task`` must be a :class:`Task`, such as ``mha.training.PREVIOUS_WORD``."""
    if not isinstance(task, Task):
        raise TypeError(
            "task must be a mha.training.Task such as mha.training.PREVIOUS_WORD, "
            f"got {type(task).__name__} {task!r}"
        )
    return task


@functools.cache
def _held_out(task: Task, seed: int, split: str | None) -> tuple[Batch, ...]:
    """:meth:`Task.test_batches`, drawn (its arguments checked there)."""
    if split is None:
        held_out, lengths = True, task.test_lengths
    else:
        held_out, lengths = split, dict(task.splits)[split]
    generator = torch.Generator().manual_seed(seed)
    return tuple(
        task.batch(generator, task.test_sentences, length, held_out)
        for length in lengths
    )
