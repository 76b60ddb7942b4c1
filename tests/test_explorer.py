"""The attention explorer: its control tree, its static frames against the live
computation, and the live text box's handling of bad input."""

from __future__ import annotations

import itertools

import ipywidgets as widgets
import pytest
import torch

import mha
from mha import explorer as E

SMALL = {"sentences": mha.SENTENCES[:2], "head_counts": (1, 4), "masks": E.MASKS,
         "weights": ("random",)}


def simulate_browser(explorer) -> None:
    """Do what the browser does with jslinks: copy every source trait to its target."""
    for link in explorer.links:
        (source, source_trait), (target, target_trait) = link.source, link.target
        setattr(target, target_trait, getattr(source, source_trait))


def shown_frame(root) -> str:
    """Follow the selected page of every Stack down to the frame that is visible."""
    node = root.children[-1]
    while isinstance(node, widgets.Stack):
        node = node.children[node.selected_index]
    assert isinstance(node, widgets.HTML)
    return node.value


def set_controls(explorer, settings: E.Settings) -> None:
    for name, control in explorer.controls.items():
        control.value = getattr(settings, name)


def all_settings(sentences, head_counts, masks, weights):
    for sentence, n_heads, mask, weight in itertools.product(sentences, head_counts, masks,
                                                             weights):
        pads = range(1, E.MAX_PAD + 1) if mask == "padding" else [1]
        for n_pad in pads:
            yield E.Settings(sentence, n_heads, mask, n_pad, weight)


@pytest.fixture(scope="module")
def small_static():
    return E.static_explorer(**SMALL)


def test_static_frame_count_is_every_combination(small_static):
    expected = len(list(all_settings(**SMALL)))
    assert expected == 2 * 2 * (1 + 1 + E.MAX_PAD)
    assert small_static.n_frames == expected


def test_static_controls_and_links(small_static):
    controls = small_static.controls
    assert set(controls) == {"sentence", "mask", "n_pad", "n_heads"}  # one weight: no control
    assert isinstance(controls["n_heads"], widgets.SelectionSlider)
    assert list(controls["n_heads"].options) == [1, 4]
    # Every control drives at least one Stack through a browser-side link.
    for name, control in controls.items():
        links = [link for link in small_static.links if link.source[0] is control]
        assert links, f"{name} is not linked to anything"
        assert all(w.source[1] == "index" and w.target[1] == "selected_index" for w in links)
        assert all(isinstance(w.target[0], widgets.Stack) for w in links)
    # One link per Stack of the frame tree, plus the padding slider's holder.
    stacks, todo = 0, [small_static.children[-1]]
    while todo:
        node = todo.pop()
        if isinstance(node, widgets.Stack):
            stacks += 1
            todo.extend(node.children)
    assert len(small_static.links) == stacks + 1


def test_padding_slider_shows_only_with_padding_mask(small_static):
    holder = next(c for c in small_static.children if isinstance(c, widgets.Stack)
                  and small_static.controls["n_pad"] in c.children)
    for mask in E.MASKS:
        small_static.controls["mask"].value = mask
        simulate_browser(small_static)
        visible = holder.children[holder.selected_index]
        assert (visible is small_static.controls["n_pad"]) == (mask == "padding")


def test_every_static_frame_equals_the_live_computation(small_static):
    live = E.live_explorer(**SMALL)
    for settings in all_settings(**SMALL):
        set_controls(small_static, settings)
        simulate_browser(small_static)
        set_controls(live, settings)
        assert live.settings == settings
        assert live.message.value == ""
        assert shown_frame(small_static) == live.view.value == E.frame_html(settings)


def test_caption_states_the_settings():
    settings = E.Settings(mha.SENTENCES[1], 2, "padding", 3, "trained")
    tokens, probs = E.attention_maps(settings)
    assert tokens[-3:] == ["<pad>"] * 3 and probs.shape == (2, 6, 6)
    text = E.caption(settings, tokens)
    for part in (mha.SENTENCES[1], "2 heads", "d_key = 4", "padding mask", "3 trailing <pad>",
                 "trained weights"):
        assert part in text
    assert "1 head (d_key = 8)" in E.caption(E.Settings(n_heads=1), tokens)


def test_frames_match_the_layer():
    """A frame's maps are the running example's layer applied to the (padded) sentence."""
    settings = E.Settings(mha.SENTENCES[2], 4, "padding", 2, "random")
    tokens, probs = E.attention_maps(settings)
    ex = mha.running_example()
    ids = ex.ids[2:3].clone()
    ids[0, -2:] = ex.vocab.pad_id
    X = ex.position(ex.embed(ids))
    _, expected = ex.attention(X, X, X, ids[:, None, None, :] != ex.vocab.pad_id)
    torch.testing.assert_close(probs, expected[0], rtol=0, atol=0)
    assert probs[:, :, -2:].eq(0).all()


def test_frame_html_has_alt_text_and_caption():
    html = E.frame_html(E.Settings())
    assert html.count("<img ") == 1 and 'alt="Attention maps' in html
    assert "<figcaption" in html and "4 heads (d_key = 2)" in html


@pytest.fixture
def live():
    return E.live_explorer()


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("", "type at least one word"),
        ("   ", "type at least one word"),
        ("?!, ...", "at least one word"),
        ("one two three four five six seven eight nine ten eleven", "at most 10"),
    ],
)
def test_live_text_box_refuses_bad_sentences(live, typed, expected):
    live.text.value = "what is next"
    before = live.view.value
    live.text.value = typed
    assert expected in live.message.value
    assert live.view.value == before  # the last good picture stays
    live.controls["n_heads"].value = 2  # and the explorer keeps working
    assert live.settings.n_heads == 2 and "2 heads" in live.view.value


def test_live_text_box_warns_about_unknown_words(live):
    live.text.value = "I wonder about attention"
    assert "about, attention" in live.message.value and "<unk>" not in live.message.value
    assert "&lt;unk&gt;" in live.message.value
    assert live.settings.sentence == "I wonder about attention"
    assert "I wonder about attention" in live.view.value


def test_live_text_box_escapes_markup(live):
    typed = "<script>alert('x')</script> <b>hello</b> what"
    live.text.value = typed
    assert "<script" not in live.message.value and "<b>" not in live.message.value
    assert "<script" not in live.view.value and "&lt;script&gt;" in live.view.value
    assert live.settings.sentence == typed


def test_live_follows_every_control(live):
    live.controls["weights"].value = "trained"
    live.controls["sentence"].value = mha.SENTENCES[2]
    live.controls["mask"].value = "padding"
    live.controls["n_pad"].value = 3
    live.controls["n_heads"].value = 8
    expected = E.Settings(mha.SENTENCES[2], 8, "padding", 3, "trained")
    assert live.settings == expected
    assert live.view.value == E.frame_html(expected)


def test_mode_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("MHA_EXPLORER", "static")
    assert E.attention_explorer(masks=["none"], weights=["random"],
                                head_counts=(1,)).mode == "static"
    monkeypatch.delenv("MHA_EXPLORER")
    assert E.attention_explorer(head_counts=(1,)).mode == "live"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"mode": "kernel"}, "mode must be 'live' or 'static', got 'kernel'"),
        ({"head_counts": (3,)}, r"head_counts must be a non-empty subset of \(1, 2, 4, 8\)"),
        ({"masks": ("causal", "diagonal")}, "masks must be a non-empty subset"),
        ({"weights": ()}, "weights must be a non-empty subset"),
        ({"sentences": ()}, "sentences must hold at least one sentence"),
        ({"sentences": ("!!",)}, "at least one word"),
    ],
)
def test_bad_explorer_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        E.attention_explorer(**kwargs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_heads": 3}, r"n_heads must be one of \(1, 2, 4, 8\), got 3"),
        ({"mask": "future"}, "mask must be one of"),
        ({"weights": "pretrained"}, "weights must be one of"),
        ({"n_pad": 10}, r"n_pad must lie in \[0, 10\), got 10"),
    ],
)
def test_bad_settings(kwargs, message):
    with pytest.raises(ValueError, match=message):
        E.Settings(**kwargs)


def test_fast_redraw_looks_like_a_fresh_figure():
    """Frames reuse a figure's background; they must look like a fresh display_attention."""
    import io

    import numpy as np
    from PIL import Image

    settings = E.Settings(mha.SENTENCES[1], 8, "causal", 1, "random")
    tokens, probs = E.attention_maps(settings)
    E.frame_png(E.Settings(mha.SENTENCES[1], 8, "none", 1, "random"))  # leave other maps drawn
    png, _ = E.frame_png(settings)
    fresh = mha.display_attention(tokens, tokens, probs, 8, 2, 4, annotate=False,
                                  head_size=E.PANEL_INCHES[8], dpi=80)
    ours = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=float)
    theirs = np.asarray(Image.open(io.BytesIO(mha.plotting.to_png(fresh))).convert("RGB"),
                        dtype=float)
    assert ours.shape == theirs.shape
    # Only colour quantisation and resampling at the cells' edges differ: tiny on
    # average and large almost nowhere (a wrong map in a panel changes whole cells).
    difference = np.abs(ours - theirs).max(axis=-1)
    assert difference.mean() < 3
    assert (difference > 60).mean() < 0.002
