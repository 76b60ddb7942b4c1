"""mha.text: the tokenizer and the vocabulary."""

from __future__ import annotations

import unicodedata

import pytest
import torch
from hypothesis import given, strategies as st
from refusal import refuses, row_ids

from mha.text import PAD, UNK, Vocab, tokenize


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Hello, what is a basic split?", ["hello", "what", "is", "a", "basic", "split"]),
        ("end. (aside) [x] {y}; z: a+b=c $5 <tag> 100%", ["end", "aside", "x", "y", "z", "abc",
                                                         "5", "tag", "100"]),
        ("Don't stop, it\u2019s Anna's", ["dont", "stop", "its", "annas"]),  # deleted, not split
        ("\u00abBonjour\u00bb, dit-il\u2026 \u00bfQu\u00e9?", ["bonjour", "ditil", "qué"]),
        ("caf\u00e9 \u00c9T\u00c9 \u3002\u65e5\u672c\u3001\u8a9e", ["café", "été", "日本語"]),
        ("  one\ttwo\n\nthree \r\n four\u00a0five , six ", ["one", "two", "three", "four", "five",
                                                          "six"]),
    ],
)  # fmt: skip
def test_tokenize_lowercases_and_removes_every_punctuation_mark(text, tokens):
    assert tokenize(text) == tokens


@given(st.text(max_size=40))
def test_tokens_are_lowercase_words_without_punctuation_or_space(text):
    try:
        tokens = tokenize(text)
    except ValueError:  # only when the text holds no letter or digit at all
        assert all(
            ch.isspace() or unicodedata.category(ch)[0] in "PS" for ch in text.lower()
        )
        return
    assert tokens and all(tokens)
    for token in tokens:
        assert token == token.lower()
        assert not any(
            ch.isspace() or unicodedata.category(ch)[0] in "PS" for ch in token
        )


CORPUS = ["The cat sat.", "A dog!", "the CAT"]
ITOS = ["<pad>", "<unk>", "a", "cat", "dog", "sat", "the"]  # specials, then A to Z


@pytest.fixture
def vocab() -> Vocab:
    return Vocab.from_corpus(CORPUS)


def test_vocabulary_holds_the_specials_then_the_words_in_order(vocab):
    assert vocab.itos == ITOS and len(vocab) == len(ITOS)
    assert (vocab.pad_id, vocab.unk_id) == (ITOS.index(PAD), ITOS.index(UNK)) == (0, 1)
    assert all(vocab.stoi[token] == i for i, token in enumerate(ITOS))
    assert "cat" in vocab and "The" not in vocab
    assert Vocab.from_corpus(CORPUS[::-1]).itos == ITOS  # in any order of sentences
    assert Vocab(["b", PAD, "a", UNK, "a"]).itos == [PAD, UNK, "a", "b"]


def test_unknown_words_become_unk_and_decode_shows_specials(vocab):
    assert vocab.encode("The bird, the cat; flew") == [6, 1, 6, 3, 1]
    assert vocab.encode(["cat", "CAT"]) == [3, 1]  # tokens are not tokenized again
    assert vocab.decode([6, 3, 5, 0, 1]) == ["the", "cat", "sat", PAD, UNK]
    assert vocab.decode(torch.tensor([2, 4])) == ["a", "dog"]


@pytest.mark.parametrize("length", [None, 5])
def test_encode_batch_pads_short_sentences_and_marks_real_tokens(vocab, length):
    ids, is_token = vocab.encode_batch(["the cat sat", "A dog", "cat"], length=length)
    pad = [0] * ((length or 3) - 3)
    assert ids.dtype == torch.long and is_token.dtype == torch.bool
    assert ids.tolist() == [[6, 3, 5, *pad], [2, 4, 0, *pad], [3, 0, 0, *pad]]
    assert is_token.tolist() == [[i < n for i in range(length or 3)] for n in (3, 2, 1)]


# Each row, a case of the test below: the call, its error, and what the message
# names: the argument, what was expected, what was given.
BAD_INPUT = [
    (lambda: tokenize(b"bytes"), TypeError, "text", "a str", "got bytes"),
    (lambda: tokenize(" ?!, \n"), ValueError, "text", "at least one word", "got ' ?!, \\n'"),
    (lambda: Vocab.from_corpus("The cat"), TypeError, "sentences", "a list of strings",
     "got a single str"),
    (lambda: Vocab(["ok", ""]), TypeError, "words", "non-empty strings", "got ''"),
    (lambda: Vocab(["ok", 3]), TypeError, "words", "non-empty strings", "got 3"),
    (lambda: Vocab(ITOS).decode([1, 7]), ValueError, "ids[1]", "in [0, 6]", "got 7"),
    (lambda: Vocab("the cat"), TypeError, "words", "a list of tokens",
     "got a single str 'the cat'"),
    (lambda: Vocab(ITOS).encode(["cat", 3]), TypeError, "text", "a list of tokens (strs)",
     "got int 3 at text[1]"),
    (lambda: Vocab(ITOS).decode(torch.tensor([[1, 2]])), ValueError, "ids", "one-dimensional",
     "got shape (1, 2)"),
    (lambda: Vocab(ITOS).encode_batch(["a b c", "a"], length=2), ValueError, "length",
     "at least the longest sentence (3 tokens)", "got 2"),
    (lambda: Vocab(ITOS).encode_batch([]), ValueError, "sentences", "non-empty list", "got []"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)


def test_tokens_within_a_length_or_a_clear_error():
    from mha.text import tokens_within

    assert tokens_within("The cat sat.", 3) == ["the", "cat", "sat"]
    with pytest.raises(ValueError, match="sentence must have at most 2 words .* got 3"):
        tokens_within("The cat sat.", 2)
    with pytest.raises(ValueError, match="text must contain at least one word"):
        tokens_within("?!", 2)
