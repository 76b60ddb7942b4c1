"""mha.explorer: what each state of the controls shows, the static explorer's
page (its form, its frames and their images) and notebook forms, the live
explorer's controls and text box, and the fingerprint its text form carries."""

from __future__ import annotations

import base64
import io
import json
import re
from dataclasses import replace
from html.parser import HTMLParser

import numpy
import pytest
import torch
from PIL import Image

import mha
from mha.explorer import frames
from mha.explorer.choices import NAMES, Choices
from mha.explorer.model import MASKS, MAX_PAD, Settings, attention_maps, caption
from mha.explorer.static import MIME
from mha.training import PREVIOUS_WORD, load

SMALL = {
    "sentences": mha.SENTENCES[:2],
    "head_counts": (1, 4),
    "masks": MASKS,
    "weights": ("random",),
}


def every_settings(sentences, head_counts, masks, weights):
    """Every state, counted here independently of Choices.every_settings."""
    found = []
    for sentence in sentences:
        for n_heads in head_counts:
            for mask in masks:
                for weight in weights:
                    for n_pad in range(1, MAX_PAD + 1) if mask == "padding" else [1]:
                        found.append(Settings(sentence, n_heads, mask, n_pad, weight))
    return found


def image(url: str) -> Image.Image:
    head, data = url.split(",", 1)
    assert head in ("data:image/webp;base64", "data:image/png;base64"), head
    return Image.open(io.BytesIO(base64.b64decode(data)))


def pixels(picture: Image.Image) -> numpy.ndarray:
    return numpy.asarray(picture.convert("RGB"), dtype=float)


class Elements(HTMLParser):
    """Every start tag of some HTML, as (tag, attributes), and the text of each label."""

    def __init__(self, text: str):
        super().__init__()
        self.tags, self.texts, self._open = [], {}, []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._open.append(len(self.tags) - 1)

    def handle_endtag(self, tag):
        if self._open:
            self._open.pop()

    def handle_data(self, data):
        for index in self._open:
            self.texts[index] = self.texts.get(index, "") + data

    def find(self, tag, **attributes):
        return [
            (i, a)
            for i, (t, a) in enumerate(self.tags)
            if t == tag and all(a.get(k) == v for k, v in attributes.items())
        ]


@pytest.fixture(scope="module")
def static():
    return mha.attention_explorer(**SMALL, mode="static")


@pytest.fixture(scope="module")
def page(static):
    text = static.page()
    data = json.loads(
        re.search(
            r'<script type="application/json" class="mha-frames">(.*?)</script>', text
        ).group(1)
    )
    return text, data


def test_static_explorer_holds_every_state_once(static):
    assert static.mode == "static"
    expected = every_settings(**SMALL)
    assert sorted(static.frames) == sorted({static.choices.key(s) for s in expected})
    assert len(static.frames) == len(expected) == len(static.fingerprints)
    assert {f.settings for f in static.frames.values()} == set(expected)
    assert list(static.controls) == ["sentence", "mask", "n_pad", "n_heads"]


@pytest.mark.parametrize(
    ("options", "controls"),
    [
        ({"masks": ["none"], "weights": ["random"]}, ["sentence", "n_heads"]),
        ({"head_counts": [4], "weights": ["random"]}, ["sentence", "mask", "n_pad"]),
        (
            {"masks": ["padding"], "sentences": mha.SENTENCES[:1]},
            ["weights", "n_pad", "n_heads"],
        ),
    ],
)
def test_a_control_appears_where_there_is_a_choice(options, controls):
    assert list(Choices(**options).controls()) == controls
    live = Choices(**options).controls(always_sentence=True)
    assert list(live) == sorted({"sentence", *controls}, key=list(NAMES).index)


def test_a_frame_key_names_each_control_s_option_and_skips_the_hidden_slider():
    choices = Choices(**SMALL)
    assert choices.key(Settings(mha.SENTENCES[1], 4, "causal", 3)) == "1.1.-.1"
    assert choices.key(Settings(mha.SENTENCES[0], 1, "padding", 3)) == "0.2.2.0"


def test_every_static_frame_is_the_live_computation(static):
    for key, frame in static.frames.items():
        fresh = frames.draw(frame.settings)
        assert (frame.caption, frame.fingerprint) == (fresh.caption, fresh.fingerprint)
        assert key == static.choices.key(frame.settings)


def test_the_page_lists_every_frame_with_its_two_images(static, page):
    text, data = page
    assert data["controls"] == list(static.controls)
    assert set(data["frames"]) == set(static.frames)
    assert len(set(data["images"])) == len(data["images"])  # each image once
    for key, (background, maps, frame_caption) in data["frames"].items():
        frame = static.frames[key]
        assert frame_caption == frame.caption
        under, over = image(data["images"][background]), image(data["images"][maps])
        assert frame.layers()[0].size == under.size
        assert under.size == over.size == frames.SIZE
        assert over.mode == "RGBA" and under.mode == "RGB"
        both = Image.alpha_composite(under.convert("RGBA"), over)
        # Colour reduction of the background moves a few shades, no more.
        assert numpy.abs(pixels(both) - pixels(frame.picture())).max() < 40
    # Frames of one layout share their background image.
    backgrounds = {f[0] for f in data["frames"].values()}
    layouts = {(f.settings.n_heads, f.tokens) for f in static.frames.values()}
    assert len(backgrounds) == len(layouts) < len(data["frames"])


def test_the_page_shows_the_first_frame_before_any_script(static, page):
    text, data = page
    background, maps, frame_caption = data["frames"][
        static.choices.key(static.settings)
    ]
    found = Elements(text)
    (_, under), (_, over) = found.find("img")
    assert (
        under["src"] == data["images"][background]
        and under["class"] == "mha-background"
    )
    assert over["src"] == data["images"][maps] and over["alt"] == ""
    assert under["alt"] == frames.ALT + frame_caption
    assert (under["width"], under["height"]) == tuple(str(n) for n in frames.SIZE)
    ((index, _),) = found.find("figcaption")
    assert found.texts[index] == frame_caption


def test_the_page_has_a_labelled_form_control_for_each_control(static, page):
    text, _ = page
    found = Elements(text)
    settings = static.settings
    legends = [found.texts[i] for i, _ in found.find("legend")]
    assert legends == ["Mask:"]
    radios = [a for _, a in found.find("input", type="radio")]
    assert [(a["name"], a["value"]) for a in radios] == [
        ("mask", "0"),
        ("mask", "1"),
        ("mask", "2"),
    ]
    assert ["checked" in a for a in radios] == [m == settings.mask for m in MASKS]
    assert [a.get("data-reveals") for a in radios] == [None, None, "n_pad"]
    labels = {a["for"]: found.texts[i] for i, a in found.find("label") if "for" in a}
    ((_, menu),) = found.find("select")
    assert labels[menu["id"]] == "Sentence:" and menu["name"] == "sentence"
    options = [(a["value"], "selected" in a) for _, a in found.find("option")]
    assert options == [("0", True), ("1", False)]
    sliders = {a["name"]: a for _, a in found.find("input", type="range")}
    assert labels[sliders["n_pad"]["id"]] == "Padding tokens:"
    assert labels[sliders["n_heads"]["id"]] == "Heads:"
    assert json.loads(sliders["n_heads"]["data-labels"]) == ["1", "4"]
    heads = sliders["n_heads"]
    assert (heads["min"], heads["max"], heads["value"], heads["aria-valuetext"]) == (
        "0", "1", "1", "4",
    )  # fmt: skip
    # Ids are unique on the page, and the padding row hides without its mask.
    ids = [a["id"] for _, a in found.tags if "id" in a]
    assert len(ids) == len(set(ids))
    assert found.find("div", **{"class": "mha-row mha-revealed"})


def test_a_notebook_stores_the_page_the_first_frame_and_a_fingerprint(static):
    bundle = static._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html", MIME}
    assert bundle["text/plain"] == repr(static)
    assert "[20 views, content " in bundle["text/plain"]
    first = static.frames[static.choices.key(static.settings)]
    assert bundle["text/html"].startswith(first.html())
    assert "Run this cell to use the attention explorer" in bundle["text/html"]
    assert bundle[MIME] == static.page()


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
    everything = every_settings(mha.SENTENCES[:2], (1, 8), MASKS, ("random", "trained"))
    captions = {
        caption(settings, attention_maps(settings)[0]) for settings in everything
    }
    assert len(captions) == len(everything)  # no two frames share a description
    page = frames.draw(Settings(sentence="a <b> & c")).html()
    assert "a &lt;b&gt; &amp; c" in page and "<b>" not in page
    assert page.count("<img ") == 1 and 'alt="' in page and "<figcaption" in page


# --- live -------------------------------------------------------------------------------


@pytest.fixture
def live():
    return mha.attention_explorer(mode="live")


def enter(live, text: str) -> None:
    """Type ``text`` into the box and press Enter, as the browser sends them."""
    live.text.value = text
    live.text._handle_string_msg(live.text, {"event": "submit"}, [])


def test_live_explorer_follows_each_control(live):
    settings = live.settings
    assert live.controls["n_pad"].layout.display == "none"
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
        assert live.view.value == frames.draw(settings).html("fast")
        assert live.fingerprints == [frames.draw(settings).fingerprint]
    assert live.controls["n_pad"].layout.display is None  # shown with the padding mask


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("?!, ...", "at least one word"),
        ("one two three four five six seven eight nine ten eleven", "at most 10"),
    ],
)
def test_live_text_box_refuses_a_bad_sentence_and_keeps_working(live, typed, message):
    enter(live, "what is next")
    before = live.view.value
    enter(live, typed)
    assert message in live.message.value
    assert live.view.value == before  # the last good picture stays
    live.controls["n_heads"].value = 2
    assert live.settings == Settings("what is next", 2)


def test_live_sentence_menu_names_the_sentence_shown(live):
    live.text.value = "the cat sat"
    assert live.settings.sentence == mha.SENTENCES[0]  # shown on Enter only
    enter(live, "the cat sat")
    menu = live.controls["sentence"]
    assert menu.value == "the cat sat" and menu.label == "your sentence: the cat sat"
    menu.value = mha.SENTENCES[1]
    assert live.text.value == "" and live.settings.sentence == mha.SENTENCES[1]
    menu.value = "the cat sat"  # the typed one stays listed
    assert live.text.value == "the cat sat"
    enter(live, "")  # cleared: back to the sentence chosen above
    assert live.settings.sentence == mha.SENTENCES[1]
    assert "the box is empty" in live.message.value


def test_live_text_box_escapes_markup_and_names_unknown_words(live):
    typed = "<script>alert('x')</script> <b>hello</b> what"
    enter(live, typed)
    assert live.settings.sentence == typed
    for html in (live.message.value, live.view.value):
        assert "<script>" not in html and "<b>" not in html
    assert "&lt;script&gt;" in live.view.value
    assert (
        "scriptalertxscript" in live.message.value
        and "&lt;unk&gt;" in live.message.value
    )


def test_live_explorer_draws_the_next_frames_while_the_reader_looks(monkeypatch):
    """In a kernel (an event loop), once a frame has been shown for a moment, the
    frames one change away are drawn; a change meanwhile starts again from it."""
    import asyncio

    from mha.explorer import live as live_module

    monkeypatch.setattr(live_module, "WARM_AFTER", 0.05)

    async def session():
        explorer = mha.attention_explorer(head_counts=(2, 4), mode="live")
        explorer.controls["mask"].value = "causal"
        await asyncio.sleep(1.0)
        return explorer

    explorer = asyncio.run(session())
    shown = explorer.settings
    expected = {
        replace(shown, **{name: value})
        for name, values in [
            ("weights", ("trained",)),
            ("sentence", mha.SENTENCES[1:]),
            ("mask", ("none", "padding")),
            ("n_heads", (2,)),
        ]
        for value in values
    }
    assert expected <= set(explorer._drawn)
    page, fingerprint = explorer._drawn[replace(shown, n_heads=2)]
    assert page == frames.draw(replace(shown, n_heads=2)).html("fast")


def test_live_explorer_draws_a_typed_sentence_when_the_reader_pauses(monkeypatch):
    """While the reader types, the frame of the text so far is drawn once they
    pause, not shown: Enter shows it."""
    import asyncio

    from mha.explorer import live as live_module

    monkeypatch.setattr(live_module, "WARM_AFTER", 60)  # no other drawing ahead

    async def session():
        explorer = mha.attention_explorer(mode="live")
        for text in ("the", "the cat", "the cat sat"):
            explorer.text.value = text
            await asyncio.sleep(0.01)  # quicker than the pause: nothing drawn
        await asyncio.sleep(live_module.TYPING_PAUSE + 0.2)
        return explorer

    explorer = asyncio.run(session())
    drawn = {settings.sentence for settings in explorer._drawn}
    assert "the cat sat" in drawn and not drawn & {"the", "the cat"}
    assert explorer.settings.sentence == mha.SENTENCES[0]
    enter(explorer, "the cat sat")
    assert explorer.settings.sentence == "the cat sat"


def test_live_notebook_forms_hold_the_frame_and_its_fingerprint(live):
    bundle = live._repr_mimebundle_()
    assert bundle["text/plain"] == repr(live)
    assert "[1 view, content " in bundle["text/plain"]
    assert bundle["text/html"].startswith(live.view.value)


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
    frames.draw(Settings("example paragraph is this a basic", 8, "none"))
    frame = frames.draw(settings)
    fresh = mha.display_attention(
        list(frame.tokens), list(frame.tokens), frame.attention, 8, 2, 4,
        annotate=False, figsize=frames.FRAME_INCHES, dpi=frames.DPI,
    )  # fmt: skip
    ours = pixels(frame.picture())
    theirs = pixels(Image.open(io.BytesIO(mha.plotting.to_png(fresh))))
    assert ours.shape == theirs.shape
    # The cells' edges differ a little; a wrong or stale map would change whole cells.
    difference = numpy.abs(ours - theirs).max(axis=-1)
    assert difference.mean() < 3 and (difference > 60).mean() < 0.002


def test_the_maps_layer_holds_the_maps_only():
    background, maps = frames.draw(Settings(mha.SENTENCES[0], 4, "none")).layers()
    alpha = numpy.asarray(maps)[..., 3]
    assert 0.05 < (alpha > 0).mean() < 0.5  # the maps, not the labels or the colour bar
    bare = numpy.asarray(background.convert("L"), dtype=float)
    # Under the maps the background is blank, but for the maps' frames (both draw them).
    assert (bare[alpha == 255] > 250).mean() > 0.9


def one_frame_explorer():
    return mha.attention_explorer(
        [mha.SENTENCES[0]], (4,), ("none",), ("random",), mode="static"
    )


def test_the_fingerprint_follows_the_frames_data_not_their_pixels(monkeypatch):
    base = one_frame_explorer()
    base_page = base.page()

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

    draw_maps = frames.Canvas.maps

    def one_pixel_changed(canvas, attention):
        maps = draw_maps(canvas, attention)
        maps.putpixel((0, 0), (255, 0, 0, 255))
        return maps

    monkeypatch.setattr(frames.Canvas, "maps", one_pixel_changed)
    repainted = one_frame_explorer()
    assert repainted.page() != base_page
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
