"""tokenize and Vocab: from raw text to padded id batches."""

import re
import unicodedata

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import mha
from mha import PAD, UNK, Vocab, tokenize

# --------------------------------------------------------------------------- tokenize


def test_book_sentence_gives_six_tokens_without_comma():
    assert tokenize("Hello, what is a basic split?") == [
        "hello", "what", "is", "a", "basic", "split",
    ]


def test_lowercases():
    assert tokenize("ThIs IS LOUD") == ["this", "is", "loud"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("end. Start; middle: (aside) [x] {y} end!", ["end", "start", "middle", "aside", "x", "y",
                                                      "end"]),
        ('"quoted" -- dash', ["quoted", "dash"]),
        ("a+b=c $5 <tag> 100%", ["abc", "5", "tag", "100"]),
    ],
)
def test_ascii_punctuation_and_symbols_removed(text, expected):
    assert tokenize(text) == expected


def test_apostrophes_are_deleted_not_split():
    # Deleted, not replaced by a space: one token per word.
    assert tokenize("Don't stop, it's Anna's") == ["dont", "stop", "its", "annas"]
    # The typographic apostrophe (U+2019) behaves like the ASCII one.
    assert tokenize("Don\u2019t") == ["dont"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\u00abBonjour\u00bb, dit-il\u2026", ["bonjour", "ditil"]),  # « » … and hyphen
        ("\u00bfQu\u00e9 tal? \u00a1Bien!", ["qué", "tal", "bien"]),  # ¿ ¡ and an accent kept
        ("\u201csmart\u201d \u2014 quotes", ["smart", "quotes"]),  # “ ” —
        ("caf\u00e9 \u00c9T\u00c9", ["café", "été"]),  # accented letters survive, lowercased
        ("\u3002\u65e5\u672c\u3001\u8a9e", ["日本語"]),  # CJK full stop and comma removed
    ],
)
def test_unicode_punctuation_removed(text, expected):
    assert tokenize(text) == expected


def test_any_whitespace_separates_and_collapses():
    text = "  one\ttwo\n\nthree \r\n four\u00a0five\u2003six  "
    assert tokenize(text) == ["one", "two", "three", "four", "five", "six"]


def test_punctuation_between_spaces_does_not_make_empty_tokens():
    assert tokenize("a , b ; c") == ["a", "b", "c"]


@given(st.text(max_size=40))
def test_tokens_never_hold_punctuation_symbols_or_whitespace(text):
    try:
        tokens = tokenize(text)
    except ValueError:
        # Only allowed when nothing but punctuation/symbols/whitespace was given.
        assert all(
            ch.isspace() or unicodedata.category(ch)[0] in "PS" for ch in text.lower()
        )
        return
    assert tokens
    for token in tokens:
        assert token
        assert not any(ch.isspace() for ch in token)
        assert not any(unicodedata.category(ch)[0] in "PS" for ch in token)


@pytest.mark.parametrize("bad", [None, 3, b"bytes", ["a", "list"]])
def test_non_str_raises_type_error(bad):
    with pytest.raises(TypeError, match=rf"text must be a str, got {type(bad).__name__}"):
        tokenize(bad)


@pytest.mark.parametrize("text", ["", "   ", "?!,", " \n\t", "... -- !!"])
def test_no_word_raises_value_error_naming_text_and_value(text):
    with pytest.raises(ValueError, match=r"^text must .*got " + re.escape(repr(text)) + "$"):
        tokenize(text)


# --------------------------------------------------------------------------- Vocab

CORPUS = ["The cat sat.", "A dog!", "the CAT"]
# Built by hand: specials first, then the words in alphabetical order.
ITOS = ["<pad>", "<unk>", "a", "cat", "dog", "sat", "the"]


@pytest.fixture
def vocab() -> Vocab:
    return Vocab.from_corpus(CORPUS)


def test_special_tokens():
    assert PAD == "<pad>" and UNK == "<unk>"
    v = Vocab(["zebra"])
    assert v.stoi[PAD] == v.pad_id == 0
    assert v.stoi[UNK] == v.unk_id == 1


def test_from_corpus_table(vocab):
    assert vocab.itos == ITOS
    assert len(vocab) == len(ITOS)
    assert "cat" in vocab and "The" not in vocab


def test_stoi_and_itos_are_inverse(vocab):
    assert len(vocab.stoi) == len(vocab.itos)
    for i, token in enumerate(vocab.itos):
        assert vocab.stoi[token] == i


def test_from_corpus_does_not_depend_on_sentence_order():
    assert Vocab.from_corpus(CORPUS[::-1]).itos == Vocab.from_corpus(CORPUS).itos


def test_specials_in_words_are_not_duplicated():
    assert Vocab(["b", PAD, "a", UNK, "a"]).itos == [PAD, UNK, "a", "b"]


def test_from_corpus_rejects_single_string():
    with pytest.raises(TypeError, match="sentences"):
        Vocab.from_corpus("The cat sat")


@pytest.mark.parametrize("bad", ["", 3])
def test_words_must_be_non_empty_strings(bad):
    with pytest.raises(TypeError, match=r"words must be non-empty strings, got " + repr(bad)):
        Vocab(["ok", bad])


def test_encode_known_and_unknown(vocab):
    # "bird" and "flew" are unknown → <unk> = 1
    assert vocab.encode("The bird, the cat; flew") == [6, 1, 6, 3, 1]
    assert vocab.encode(["cat", "CAT", "dog"]) == [3, 1, 4]  # token lists are not re-tokenized


def test_decode(vocab):
    assert vocab.decode([6, 3, 5, 0, 1]) == ["the", "cat", "sat", "<pad>", "<unk>"]
    assert vocab.decode(torch.tensor([2, 4])) == ["a", "dog"]


def test_decode_errors(vocab):
    with pytest.raises(ValueError, match=r"ids must lie in \[0, 7\), got 7"):
        vocab.decode([1, 7])
    with pytest.raises(ValueError, match=r"ids must lie in \[0, 7\), got -1"):
        vocab.decode([-1])
    with pytest.raises(ValueError, match=r"ids must be one-dimensional, got shape \(1, 2\)"):
        vocab.decode(torch.tensor([[1, 2]]))


def test_encode_decode_round_trip(vocab):
    assert vocab.decode(vocab.encode("a dog sat the cat")) == ["a", "dog", "sat", "the", "cat"]


def test_encode_batch_pads_and_masks(vocab):
    ids, is_token = vocab.encode_batch(["the cat sat", "A dog", "cat"])
    expected_ids = torch.tensor([[6, 3, 5], [2, 4, 0], [3, 0, 0]])
    expected_mask = torch.tensor([[True, True, True], [True, True, False], [True, False, False]])
    assert ids.dtype == torch.long and ids.shape == (3, 3)
    assert is_token.dtype == torch.bool and is_token.shape == (3, 3)
    assert torch.equal(ids, expected_ids)
    assert torch.equal(is_token, expected_mask)
    # The mask is exactly "not padding" here because no real token is <pad>.
    assert torch.equal(is_token, ids != vocab.pad_id)


def test_encode_batch_with_length(vocab):
    ids, is_token = vocab.encode_batch(["the cat sat", "dog"], length=5)
    assert torch.equal(ids, torch.tensor([[6, 3, 5, 0, 0], [4, 0, 0, 0, 0]]))
    assert torch.equal(
        is_token,
        torch.tensor([[True, True, True, False, False], [True, False, False, False, False]]),
    )


def test_encode_batch_length_exactly_longest_is_fine(vocab):
    ids, _ = vocab.encode_batch(["the cat sat", "dog"], length=3)
    assert ids.shape == (2, 3)


def test_encode_batch_length_too_short(vocab):
    with pytest.raises(
        ValueError, match=r"length must be at least the longest sentence \(3 tokens\), got 2"
    ):
        vocab.encode_batch(["the cat sat", "dog"], length=2)


@pytest.mark.parametrize("bad", [[], "the cat"])
def test_encode_batch_needs_a_list_of_sentences(vocab, bad):
    with pytest.raises(ValueError, match="sentences must be a non-empty list"):
        vocab.encode_batch(bad)


def test_encode_batch_mask_feeds_padding_converters(vocab):
    """The (batch, length) mask from encode_batch is accepted by to_key_padding_mask."""
    _, is_token = vocab.encode_batch(["the cat sat", "dog"])
    assert torch.equal(mha.to_key_padding_mask(is_token), ~is_token)
