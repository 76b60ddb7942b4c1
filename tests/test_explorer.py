"""mha.explorer: what each state of the controls shows, the static explorer's
frame tree and links, the live explorer's controls and text box, and the
fingerprint its text form carries."""

from __future__ import annotations

import io
import itertools
from dataclasses import replace

import ipywidgets as widgets
import numpy
import pytest
import torch
from PIL import Image

import mha
from mha.explorer import frames
from mha.explorer.model import MASKS, MAX_PAD, Settings, attention_maps, caption
from mha.training import PREVIOUS_WORD, load

SMALL = {
    "sentences": mha.SENTENCES[:2],
    "head_counts": (1, 4),
    "masks": MASKS,
    "weights": ("random",),
}


def every_settings(sentences, head_counts, masks, weights):
    for sentence, n_heads, mask, weight in itertools.product(
        sentences, head_counts, masks, weights
    ):
        for n_pad in range(1, MAX_PAD + 1) if mask == "padding" else [1]:
            yield Settings(sentence, n_heads, mask, n_pad, weight)


def run_links(explorer) -> None:
    """What the browser does with the jslinks: copy each source trait to its target."""
    for link in explorer.links:
        (source, source_trait), (target, target_trait) = link.source, link.target
        setattr(target, target_trait, getattr(source, source_trait))


def shown_frame(explorer) -> str:
    """Follow the selected page of every Stack down to the frame on screen."""
    node = explorer.children[-1]
    while isinstance(node, widgets.Stack):
        node = node.children[node.selected_index]
    return node.value


def set_controls(explorer, settings: Settings) -> None:
    for name, control in explorer.controls.items():
        control.value = getattr(settings, name)


@pytest.fixture(scope="module")
def static():
    return mha.attention_explorer(**SMALL, mode="static")


def test_static_explorer_holds_every_combination_linked_to_its_controls(static):
    assert static.mode == "static"
    assert len(static.fingerprints) == len(list(every_settings(**SMALL)))
    assert set(static.controls) == {
        "sentence",
        "mask",
        "n_pad",
        "n_heads",
    }  # one weight: none
    for name, control in static.controls.items():
        links = [link for link in static.links if link.source[0] is control]
        assert links, f"{name} drives nothing on the static page"
        for link in links:
            assert link.source[1] == "index" and link.target[1] == "selected_index"
            assert isinstance(link.target[0], widgets.Stack)


def test_every_static_frame_is_the_live_computation(static):
    for settings in every_settings(**SMALL):
        set_controls(static, settings)
        run_links(static)
        assert shown_frame(static) == frames.frame_html(settings)[0], settings


def test_the_padding_slider_shows_with_the_padding_mask_only(static):
    slider = static.controls["n_pad"]
    holder = next(
        c
        for c in static.children
        if isinstance(c, widgets.Stack) and slider in c.children
    )
    for mask in MASKS:
        static.controls["mask"].value = mask
        run_links(static)
        assert (holder.children[holder.selected_index] is slider) == (mask == "padding")


@pytest.mark.parametrize(
    ("mask", "weights"), [("causal", "random"), ("padding", "trained")]
)
def test_a_frame_shows_what_the_layer_computes(mask, weights):
    settings = Settings(mha.SENTENCES[2], 2, mask, 2, weights)
    tokens, probs = attention_maps(settings)
    ex = mha.running_example(2)
    ids = ex.ids[2:3].clone()  # (1, 6)
    n_pad = 2 if mask == "padding" else 0
    ids[0, 6 - n_pad :] = ex.vocab.pad_id
    assert tokens == ex.vocab.decode(ids[0])
    allowed = (
        (ids != ex.vocab.pad_id)[:, None, None, :] if n_pad else torch.ones(6, 6).tril()
    )
    with torch.no_grad():
        if weights == "trained":
            _, expected = load(PREVIOUS_WORD, 2, dtype=torch.float64)(ids, allowed)
        else:
            X = ex.position(ex.embed(ids))
            _, expected = ex.attention(X, X, X, allowed)
    torch.testing.assert_close(probs, expected[0], atol=1e-12, rtol=0)


def test_each_frame_says_what_it_shows():
    everything = list(
        every_settings(mha.SENTENCES[:2], (1, 8), MASKS, ("random", "trained"))
    )
    captions = {
        caption(settings, attention_maps(settings)[0]) for settings in everything
    }
    assert len(captions) == len(everything)  # no two frames share a description
    page, _ = frames.frame_html(Settings(sentence="a <b> & c"))
    assert "a &lt;b&gt; &amp; c" in page and "<b>" not in page
    assert page.count("<img ") == 1 and 'alt="' in page and "<figcaption" in page


# --- live -------------------------------------------------------------------------------


@pytest.fixture
def live():
    return mha.attention_explorer(mode="live")


def test_live_explorer_follows_each_control(live):
    settings = live.settings
    for name, value in [
        ("weights", "trained"),
        ("sentence", mha.SENTENCES[2]),
        ("mask", "padding"),
        ("n_pad", 3),
        ("n_heads", 8),
    ]:
        live.controls[name].value = value
        settings = replace(settings, **{name: value})
        assert live.settings == settings
        assert live.view.value == frames.frame_html(settings)[0]


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("?!, ...", "at least one word"),
        ("one two three four five six seven eight nine ten eleven", "at most 10"),
    ],
)
def test_live_text_box_refuses_a_bad_sentence_and_keeps_working(live, typed, message):
    live.text.value = "what is next"
    before = live.view.value
    live.text.value = typed
    assert message in live.message.value
    assert live.view.value == before  # the last good picture stays
    live.controls["n_heads"].value = 2
    assert live.settings == Settings("what is next", 2)


def test_live_text_box_escapes_markup_and_names_unknown_words(live):
    typed = "<script>alert('x')</script> <b>hello</b> what"
    live.text.value = typed
    assert live.settings.sentence == typed
    for html in (live.message.value, live.view.value):
        assert "<script>" not in html and "<b>" not in html
    assert "&lt;script&gt;" in live.view.value
    assert (
        "scriptalertxscript" in live.message.value
        and "&lt;unk&gt;" in live.message.value
    )


def test_the_mode_comes_from_the_environment(monkeypatch):
    one = {"head_counts": (1,), "masks": ("none",), "weights": ("random",)}
    monkeypatch.setenv("MHA_EXPLORER", "static")
    assert mha.attention_explorer(**one).mode == "static"
    monkeypatch.delenv("MHA_EXPLORER")
    assert mha.attention_explorer(**one).mode == "live"


# --- what the frames look like, and the fingerprint ------------------------------------------


def test_the_fast_redraw_looks_like_a_fresh_figure():
    settings = Settings(mha.SENTENCES[1], 8, "causal")
    # Just before, other maps and other labels on the same kept figure (same length
    # and label width): nothing of them may remain.
    frames.frame_png(Settings("example paragraph is this a basic", 8, "none"))
    png, tokens, probs = frames.frame_png(settings)
    fresh = mha.display_attention(
        tokens,
        tokens,
        probs,
        8,
        2,
        4,
        annotate=False,
        figsize=frames.FRAME_INCHES,
        dpi=frames.DPI,
    )
    ours, theirs = (
        numpy.asarray(Image.open(io.BytesIO(data)).convert("RGB"), dtype=float)
        for data in (png, mha.plotting.to_png(fresh))
    )
    assert ours.shape == theirs.shape
    # Colour quantisation and the cells' edges differ a little; a wrong or stale
    # map would change whole cells.
    difference = numpy.abs(ours - theirs).max(axis=-1)
    assert difference.mean() < 3 and (difference > 60).mean() < 0.002


def one_frame_explorer():
    return mha.attention_explorer(
        [mha.SENTENCES[0]], (4,), ("none",), ("random",), mode="static"
    )


def test_the_fingerprint_follows_the_frames_data_not_their_pixels(monkeypatch):
    base = one_frame_explorer()

    def shifted(delta):
        def maps(settings):
            tokens, probs = attention_maps(settings)
            probs = probs.clone()
            probs[1, 2, 3] += delta
            return tokens, probs

        return maps

    monkeypatch.setattr(frames, "attention_maps", shifted(1e-9))
    assert repr(one_frame_explorer()) == repr(base)
    monkeypatch.setattr(frames, "attention_maps", shifted(0.05))
    assert repr(one_frame_explorer()) != repr(base)
    monkeypatch.undo()

    frame_png = frames.frame_png

    def one_pixel_changed(settings):
        png, tokens, probs = frame_png(settings)
        image = Image.open(io.BytesIO(png)).convert("RGB")
        image.putpixel((0, 0), (255, 0, 0))
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        return buffer.getvalue(), tokens, probs

    monkeypatch.setattr(frames, "frame_png", one_pixel_changed)
    repainted = one_frame_explorer()
    assert shown_frame(repainted) != shown_frame(base)
    assert repr(repainted) == repr(base)


# --- bad input -----------------------------------------------------------------------------

BAD_INPUT = [
    (lambda: mha.attention_explorer(mode="kernel"), ValueError, "mode",
     "one of ('live', 'static')", "got 'kernel'"),
    (lambda: mha.attention_explorer(head_counts=(3,)), ValueError, "head_counts",
     "non-empty subset of (1, 2, 4, 8)", "got (3,)"),
    (lambda: mha.attention_explorer(masks=("causal", "diagonal")), ValueError, "masks",
     "non-empty subset", "got ('causal', 'diagonal')"),
    (lambda: mha.attention_explorer(weights=()), ValueError, "weights", "non-empty subset",
     "got ()"),
    (lambda: mha.attention_explorer(sentences=()), ValueError, "sentences",
     "at least one sentence", "got ()"),
    (lambda: mha.attention_explorer(sentences=["!!"]), ValueError, "sentences",
     "at least one word", "got '!!'"),
    (lambda: Settings(n_heads=3), ValueError, "n_heads", "one of (1, 2, 4, 8)", "got 3"),
    (lambda: Settings(mask="future"), ValueError, "mask", "one of ('none', 'causal', "
     "'padding')", "got 'future'"),
    (lambda: Settings(weights="pretrained"), ValueError, "weights", "one of", "got 'pretrained'"),
    (lambda: Settings(n_pad=10), ValueError, "n_pad", "in [0, 9]", "got 10"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "error", "name", "expected", "given"), BAD_INPUT)
def test_bad_input_is_refused_with_a_clear_message(
    fails_with, call, error, name, expected, given
):
    fails_with(call, error, name, expected, given)
