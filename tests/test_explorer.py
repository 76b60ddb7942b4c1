"""mha.explorer: what an explorer is given and the networks it makes, the
package's reading of a setting, the weights as the page receives them, the
notebook forms (the front end with its data, a digest for nbval), and the
page's words and look, the package's. The page's own numbers are held equal
to the package's by node (tests/test_explorer_js.py) and in a real browser
(tests/browser/test_explorer_numbers.py)."""

from __future__ import annotations

import html
import inspect
import json
import re

import pytest
import torch
from refusal import refuses, row_ids

import mha
from mha import training
from mha.explorer import models
from mha.explorer.look import caption, page
from mha.explorer.models import Network, decoded, padded, reading, weights_data
from mha.explorer.notebook import MIME, front_end, title
from mha.plotting import palette
from mha.plotting.heatmap import heatmap
from mha.plotting.palette import BLOCKED_FACE, BLOCKED_LINES, HEAD_COLOURS
from mha.training import AGREEMENT, NEIGHBOURS, PREVIOUS_WORD


@pytest.fixture(scope="module")
def playground():
    return mha.attention_explorer(weights=["trained", "random"])


def test_the_running_example_s_options_are_its_two_weights_cut_into_each_head_count():
    choice, found = models.networks(None, None, ("trained", "random"), (1, 2, 4, 8))
    assert choice == "Weights:" and list(found) == ["trained", "random"]
    for n in (1, 2, 4, 8):
        random, trained = found["random"][n], found["trained"][n]
        ex = mha.running_example(n, weights="random")
        assert random.n_heads == trained.n_heads == n
        assert torch.equal(random.layers[0].Wq.weight, ex.attention.Wq.weight)
        shipped = training.load(PREVIOUS_WORD, n, dtype=torch.float64)
        assert torch.equal(trained.layers[0].Wk.weight, shipped.attention.Wk.weight)
        assert torch.equal(trained.embed.lut.weight, shipped.embed.lut.weight)
    four = mha.running_example()  # with four heads, the running example's own layer
    assert torch.equal(
        found["trained"][4].layers[0].Wv.weight, four.attention.Wv.weight
    )


def test_a_task_gives_its_shipped_models_with_their_answers_and_where_they_are_read():
    _, found = models.networks(AGREEMENT, None, (), (1, 2), seed=2)
    (by_heads,) = found.values()
    network = by_heads[2]
    shipped = training.load(AGREEMENT, 2, seed=2, dtype=torch.float64)
    assert torch.equal(network.readouts[0].weight, shipped.readouts[0].weight)
    assert network.answers == ("verb",) and network.at == ("be",)
    assert models._read_at(NEIGHBOURS) == (None, None)  # at every position
    assert models._read_at(PREVIOUS_WORD) == (None,)


def test_a_model_built_or_trained_in_the_notebook_can_be_explored():
    run = training.train(PREVIOUS_WORD, 2, steps=5)
    (network,) = models.networks(run, None, (), ())[1]["model"].values()
    assert network.model is run.model and network.n_heads == 2
    alone = training.ToyModel(len(NEIGHBOURS.vocab), 2, n_heads=8)
    _, found = models.networks(alone, NEIGHBOURS, (), ())
    assert found["model"][8].answers == ("previous", "next")
    ex = mha.running_example(2, weights="random")
    assert models.networks(ex, None, (), ())[1]["model"][2].layers == (ex.attention,)
    choice, found = models.networks(
        {"a": PREVIOUS_WORD, "b": NEIGHBOURS}, None, (), (4,)
    )
    assert choice == "Model:" and list(found) == ["a", "b"]


def test_the_first_layer_a_reader_builds_reads_the_running_example():
    """mha.MultiHeadAttention(8, 2) or nn.MultiheadAttention(8, 2), as built in
    chapter 5 or 8: its maps are the layer's on the running example's X, and
    the reader's layer stays as it was (a float64 copy is explored)."""
    torch.manual_seed(0)
    ex = mha.running_example()
    mine = mha.MultiHeadAttention(8, 2)
    theirs = torch.nn.MultiheadAttention(8, 2, batch_first=True)
    for layer, as_ours in ((mine, mine), (theirs, mha.from_torch(theirs))):
        (network,) = models.networks(layer, None, (), ())[1]["model"].values()
        got = reading(network, ex.tokens[1]).probs[0]  # (n_heads, q_len, k_len)
        X = ex.X[1:2].float()  # (1, 6, 8)
        want = as_ours(X, X, X)[1][0]
        torch.testing.assert_close(got.float(), want, atol=1e-5, rtol=0)
    assert mine.Wq.weight.dtype == torch.float32 and mine.training
    assert isinstance(mha.attention_explorer(mine), mha.explorer.notebook.Explorer)


@pytest.mark.parametrize("mask", ["none", "causal", "padding"])
def test_a_reading_is_the_model_s_own_forward_pass(mask):
    network = models._of_task(NEIGHBOURS, 4)
    tokens = padded(mha.tokenize(mha.SENTENCES[1]), mask, 2)
    found = reading(network, tokens, mask)
    ids = torch.tensor([NEIGHBOURS.vocab.encode(tokens)])
    allowed = {
        "none": None,
        "causal": mha.causal_mask(6),
        "padding": mha.padding_mask(ids, 0),
    }[mask]
    with torch.no_grad():
        logits, probs = network.model(ids, allowed)
        x = network.position(network.embed(ids))
        output, _ = network.layers[0](x, x, x, allowed)
    assert torch.equal(found.probs[0], probs[0])
    assert torch.equal(found.outputs[0], output[0])
    assert [torch.equal(a, logits[0, :, i]) for i, a in enumerate(found.logits)] == [
        True,
        True,
    ]
    blocked = {"none": 0, "causal": 15, "padding": 12}[mask]
    assert int(found.blocked.sum()) == blocked
    assert found.tokens[-2:] == (["<pad>"] * 2 if mask == "padding" else tokens[-2:])


def test_a_reading_of_the_running_example_s_layer_is_its_attention():
    network = models._running_example(2, "random")
    ex = mha.running_example(2, weights="random")
    found = reading(network, ex.tokens[0], "causal")
    out, probs = ex.attention(ex.X[:1], ex.X[:1], ex.X[:1], mha.causal_mask(6))
    assert torch.equal(found.probs[0], probs[0]) and torch.equal(
        found.outputs[0], out[0]
    )
    assert found.logits == () and found.answers == {}  # no readout shown


def test_a_residual_stack_adds_each_layer_to_its_input():
    network = models._running_example(4, "random")
    layer = network.layers[0]
    model = training.ToyModel(
        len(network.vocab), dtype=torch.float64, n_layers=2, residual=True
    )
    model.embed, model.position = network.embed, network.position
    model.layers = torch.nn.ModuleList([layer, layer])  # one layer used twice
    stacked = Network(network.vocab, model)
    ex = mha.running_example(4, weights="random")
    found = reading(stacked, ex.tokens[0])
    x1 = ex.X[:1] + ex.attention(ex.X[:1], ex.X[:1], ex.X[:1])[0]
    out2, probs2 = ex.attention(x1, x1, x1)
    assert torch.allclose(found.outputs[1], out2[0]) and torch.equal(
        found.probs[1], probs2[0]
    )


def test_the_page_receives_every_weight_exactly():
    for network in (
        models._running_example(4, "random"),
        models._of_task(AGREEMENT, 8),
    ):
        data = weights_data(network)
        assert data["vocab"] == network.vocab.itos
        assert torch.equal(decoded(data["embed"]), network.embed.lut.weight)
        assert torch.equal(decoded(data["pe"]), network.position.pe[0])
        layer = data["layers"][0]
        assert torch.equal(decoded(layer["Wo"]), network.layers[0].Wo.weight)
        assert torch.equal(decoded(layer["bq"]), network.layers[0].Wq.bias)
    # Trained weights are float32 values: sent as float32, random draws as float64.
    assert weights_data(models._of_task(AGREEMENT, 8))["embed"]["dtype"] == "float32"
    assert (
        weights_data(models._running_example(4, "random"))["embed"]["dtype"]
        == "float64"
    )
    readout = weights_data(models._of_task(AGREEMENT, 8))["readouts"][0]
    assert (readout["name"], readout["at"]) == ("verb", "be")


def test_each_set_of_weights_is_sent_once_with_the_head_counts_it_is_cut_into(
    playground,
):
    data = playground.data
    random = [m for m in data["models"] if m["option"] == "random"]
    assert random == [{"option": "random", "heads": [1, 2, 4, 8], "weights": 4}]
    trained = [m["heads"] for m in data["models"] if m["option"] == "trained"]
    assert trained == [[1], [2], [4], [8]] and len(data["weights"]) == 5
    assert data["initial"] == {
        "option": "trained", "nHeads": 4, "mask": "none", "nPad": 1,
        "sentence": mha.SENTENCES[0],
    }  # fmt: skip


@pytest.mark.parametrize(
    ("options", "controls"),
    [
        ({"masks": ["none"], "weights": ["random"]}, ["sentence", "n_heads"]),
        ({"head_counts": [4], "weights": ["random"]}, ["sentence", "mask", "n_pad"]),
        ({"model": AGREEMENT, "masks": ["padding"]}, ["sentence", "n_pad", "n_heads"]),
        ({}, ["model", "sentence", "mask", "n_pad", "n_heads"]),
    ],
)
def test_a_control_appears_where_there_is_a_choice(options, controls):
    assert mha.attention_explorer(**options).controls() == controls


def test_sentences_default_to_the_book_s_or_the_task_s_own():
    assert mha.attention_explorer().sentences == mha.SENTENCES
    own = mha.attention_explorer(AGREEMENT).sentences
    assert len(own) == 3 and len(set(own)) == 3
    for sentence in own:
        assert all(t in AGREEMENT.vocab for t in mha.tokenize(sentence))
        assert "be" in mha.tokenize(sentence)


def test_the_text_form_is_a_note_and_digests_that_follow_the_maps_and_weights(
    playground,
):
    text = repr(playground)
    assert text.startswith(
        "Run this cell to use the attention explorer here (controls: "
        "weights, sentence, mask, padding, heads)"
    )
    assert re.search(r"\[weights [0-9a-f]{12}, first maps [0-9a-f]{12}\]$", text)
    assert repr(mha.attention_explorer(weights=["trained", "random"])) == text
    other = mha.attention_explorer(
        weights=["trained", "random"], sentences=mha.SENTENCES[1:]
    )
    weights_digest = text.split("first maps")[0]
    assert repr(other).split("first maps")[0] == weights_digest  # the same weights
    assert repr(other) != text  # other maps
    assert (
        repr(mha.attention_explorer(weights=["random"])).split("first")[0]
        != weights_digest
    )


def test_a_notebook_stores_the_front_end_its_data_and_the_first_picture(playground):
    bundle = playground._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html", MIME}
    page = bundle["text/html"]
    data = json.loads(
        re.search(
            r'<script type="application/json" class="mha-data">(.*?)</script>', page
        ).group(1)
    )
    assert data == json.loads(bundle[MIME]) == json.loads(json.dumps(playground.data))
    assert front_end("explorer.js") in page and front_end("explorer.css") in page
    assert re.search(r'<img src="data:image/png;base64,[A-Za-z0-9+/=]+"', page)
    assert html.escape(playground.note()) in page


def test_markup_in_a_sentence_stays_text_inside_the_script():
    explorer = mha.attention_explorer(sentences=["I wonder <what> will come"])
    page = explorer._repr_mimebundle_()["text/html"]
    assert "<what>" not in page and "\\u003cwhat>" in page


def test_the_picture_title_names_the_model_heads_and_mask():
    assert (
        title("trained", "Weights:", 4, "causal")
        == "trained weights, 4 heads, causal mask"
    )
    assert title("two layers", "Model:", 1, "none") == "two layers, 1 head, no mask"
    assert title("agreement", None, 8, "padding") == "8 heads, padding mask"
    # A model causal in every layer blocks keys whatever the mask: the title says so.
    assert (
        title("two layers", "Model:", 4, "none", causal=True)
        == "two layers, 4 heads, causal (the model's own)"
    )
    assert (
        title("x", None, 2, "padding", causal=True) == "2 heads, padding mask, causal"
    )
    assert title("x", None, 2, "causal", causal=True) == "2 heads, causal mask"


def test_the_page_gets_every_word_and_colour_from_the_package(playground):
    """The data holds the page's words and look (the package's colour map,
    ticks, greys, head colours and grid; a title and a caption for each
    model, head count and mask); given again, stored data gets this
    package's words and look and loses what it no longer holds."""
    data = playground.data
    assert list(data)[0] == "choice"  # tests/nbval_sanitize.cfg finds it by that
    assert data["look"]["headColours"] == list(HEAD_COLOURS)
    assert data["look"]["columns"] == {"1": 1, "2": 2, "4": 2, "8": 4}
    assert data["look"]["blocked"]["light"] == {
        "face": BLOCKED_FACE,
        "lines": BLOCKED_LINES,
    }
    assert [text for _, text in data["look"]["ticks"]] == [
        f"{p:g}" for p in palette.PROBABILITY_TICKS
    ]
    assert len(data["look"]["colours"]) == 256 * 6
    fmt = inspect.signature(heatmap).parameters["fmt"].default  # the maps' numbers
    assert fmt.format(0.125) == f"{0.125:.{data['look']['decimals']}f}"
    assert (
        data["titles"]["random"]["2"]["causal"]
        == "random weights, 2 heads, causal mask"
    )
    assert (
        data["captions"]["trained"]["8"]["padding"].format(sentence="a b", n_pad=1)
        == "“a b” · trained weights · 8 heads (d_key = 1)"
        " · padding mask: 1 <pad> in place of the last words"
    )
    stored = {**data, "headColours": ["#000000"], "words": {"show": "old"}}
    assert page(stored) == data
    two = mha.attention_explorer(
        {"one layer": training.load(training.FRONTED, 4, 0),
         "two layers": training.load(training.FRONTED, 4, 0, n_layers=2)},
        vocab=training.FRONTED,
    ).data  # fmt: skip
    # Each part of the setting said once, and truly: a model causal in every
    # layer has a causal mask, whatever the mask control says; the layer shown.
    said = two["captions"]["two layers"]["4"]["none"]
    assert said.format(sentence="s", layer=2, n_layers=2) == (
        "“s” · two layers · 4 heads (d_key = 2) · causal mask (the model's own)"
        " · layer 2 of 2 shown"
    )
    assert "no mask" not in said and said.count("layers ") == 1
    assert caption("{x}", "Model:", 1, 8, "none").format(sentence="s") == (
        "“s” · {x} · 1 head (d_key = 8) · no mask"
    )


BAD_INPUT = [
    (lambda: mha.attention_explorer(head_counts=(3,)), ValueError, "head_counts",
     "non-empty subset of (1, 2, 4, 8)", "got (3,)"),
    (lambda: mha.attention_explorer(masks=("causal", "diagonal")), ValueError, "masks",
     "non-empty subset", "got ('causal', 'diagonal')"),
    (lambda: mha.attention_explorer(weights=()), ValueError, "weights", "non-empty subset",
     "got ()"),
    (lambda: mha.attention_explorer(weights="random"), TypeError, "weights", "list of",
     "got the str 'random'"),
    (lambda: mha.attention_explorer(sentences=()), ValueError, "sentences",
     "at least one sentence", "got ()"),
    (lambda: mha.attention_explorer(sentences="I wonder"), TypeError, "sentences",
     "list of str", "got str 'I wonder'"),
    (lambda: mha.attention_explorer(sentences=["!!"]), ValueError, "sentences",
     "at least one word", "got '!!'"),
    (lambda: mha.attention_explorer(sentences=["the cat"]), ValueError, "sentences",
     "the model's words", "unknown: the, cat"),
    (lambda: mha.attention_explorer(sentences=["a " * 41]), ValueError, "sentences",
     "at most 10 words", "got 41 in 'a a"),
    (lambda: mha.attention_explorer("agreement"), TypeError, "model", "a mha.training.Task",
     "got str"),
    (lambda: mha.attention_explorer(mha.MultiHeadAttention(16, 2)), ValueError,
     "model as a layer", "d_model=8", "got d_model=16"),
    (lambda: mha.attention_explorer(training.ToyModel(16)), TypeError, "vocab",
     "mha.Vocab or the mha.training.Task", "got NoneType"),
    (lambda: mha.attention_explorer(AGREEMENT, seed=7), ValueError, "seed", "one of",
     "got 7"),
    (lambda: mha.attention_explorer({}), ValueError, "model as a dict", "labels",
     "got {}"),
    (lambda: mha.attention_explorer({"a": mha.running_example(2), "b": PREVIOUS_WORD}),
     ValueError, "model's entries", "same head counts", "a: [2], b: [1, 2, 4, 8]"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)


def test_the_explorer_s_code_and_every_shipped_model_s_weights_fit_in_100_kb_gzipped():
    """explorer.js, explorer.css and the weights of every model the explorers
    ship (the running example's layer, trained and random, and each task's
    models at every head count, the fronted task's one- and two-layer
    models), as the page receives them, each gzipped."""
    import gzip

    explorers = [
        mha.attention_explorer(weights=["trained", "random"]),
        *(
            mha.attention_explorer(task)
            for task in (PREVIOUS_WORD, NEIGHBOURS, AGREEMENT)
        ),
        mha.attention_explorer(
            {
                "one layer": training.load(training.FRONTED, 4, 0),
                "two layers": training.load(training.FRONTED, 4, 0, n_layers=2),
            },
            vocab=training.FRONTED,
        ),
    ]
    weights = {
        json.dumps(w, sort_keys=True) for e in explorers for w in e.data["weights"]
    }
    assert len(weights) == 5 + 4 + 4 + 4 + 2  # each distinct set once
    sizes = [
        len(gzip.compress(front_end(n).encode(), 6))
        for n in ("explorer.js", "explorer.css")
    ]
    sizes += [len(gzip.compress(w.encode(), 6)) for w in weights]
    assert sum(sizes) <= 100 * 1024, sizes
