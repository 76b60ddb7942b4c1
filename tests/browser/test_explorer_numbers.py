"""The page's numbers are the package's: in real Chromium, the explorer's own
forward pass (``window.mhaExplorer.compute``, in ``explorer.js``) on at least
100 random sentences and settings per model, against ``mha`` computing the
same settings (each layer's maps and output, the readouts' scores and
answers, to 1e-5); and what the explorer draws (each cell's probability,
its number and its colour, the title, the answers) for settings chosen
through its controls.

Models: the running example's layer (trained and random, 1, 2, 4 and 8
heads), the previous-word, neighbours and agreement models for 1, 2, 4 and 8
heads, the fronted task's shipped one- and two-layer models (as a reader
loads them, float32: ``mha.training.ToyModel``, the two-layer one on a
residual stream and causal in both layers), and two-layer models with a
residual stream and no causal mask (random weights)."""

from __future__ import annotations

import base64
import json
import random

import pytest
import torch
from test_explorer_layers import check_picture
from torch import nn

import mha
from booktools.explorers import (
    EXPLORER,
    assert_same_data,
    data,
    expected,
    options,
    pick,
    shown,
    type_sentence,
    value_of,
    wait_until_drawn,
)
from mha.explorer.models import MASKS
from mha.training import (
    AGREEMENT,
    FRONTED,
    NEIGHBOURS,
    PREVIOUS_WORD,
    ToyModel,
    load,
)

pytestmark = pytest.mark.browser
SETTINGS_PER_MODEL = 100
TOLERANCE = 1e-5  # explorers.TOLERANCE, for the drawn picture too


def two_layers(n_heads: int) -> nn.Module:
    """Two layers on a residual stream, not causal (random weights)."""
    torch.manual_seed(n_heads)
    model = ToyModel(
        len(AGREEMENT.vocab), n_heads=n_heads, max_length=15, dtype=torch.float64,
        n_layers=2, residual=True,
    )  # fmt: skip
    return model.eval().requires_grad_(False)


def wide_heads() -> nn.Module:
    """A one-layer toy model whose eight heads have two features each (16 in
    all, on d_model 8): a head width apart from the head count."""
    torch.manual_seed(8)
    model = ToyModel(len(NEIGHBOURS.vocab), 2, n_heads=8, dtype=torch.float64, d_key=2)
    return model.eval().requires_grad_(False)


def explorers() -> dict[str, object]:
    """Every model the explorers run, each in an explorer of its own."""
    return {
        "running example": mha.attention_explorer(weights=["trained", "random"]),
        "previous word": mha.attention_explorer(PREVIOUS_WORD),
        "neighbours": mha.attention_explorer(NEIGHBOURS),
        "agreement": mha.attention_explorer(AGREEMENT, seed=2),
        "fronted": mha.attention_explorer(
            {
                "one layer": load(FRONTED, 4, 1),
                "two layers": load(FRONTED, 4, 1, n_layers=2),
            },
            vocab=FRONTED,
        ),
        "two layers, 2 heads": mha.attention_explorer(two_layers(2), vocab=AGREEMENT),
        "two layers, 4 heads": mha.attention_explorer(two_layers(4), vocab=AGREEMENT),
        "8 heads of 2 features": mha.attention_explorer(wide_heads(), vocab=NEIGHBOURS),
    }


BLANK_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)


@pytest.fixture(scope="module")
def page_of_explorers(browser, tmp_path_factory):
    """One page holding every explorer, as a notebook shows them (each output's
    HTML), opened from the file system."""
    found = explorers()
    # Each explorer's first picture (matplotlib's PNG, shown until the page's
    # script draws) a blank pixel: none of these tests looks at it, and
    # drawing the eight of them took seconds of CPU.
    with pytest.MonkeyPatch.context() as patch:
        for e in found.values():
            patch.setattr(e, "picture", lambda: BLANK_PNG)
        body = "".join(
            f'<section data-name="{name}">{e._repr_mimebundle_()["text/html"]}</section>'
            for name, e in found.items()
        )
    path = tmp_path_factory.mktemp("explorers") / "explorers.html"
    path.write_text(
        f'<!doctype html><html lang="en"><meta charset="utf-8"><title>explorers</title>'
        f'<body style="max-width:720px;font-family:sans-serif">{body}</body></html>'
    )
    context = browser.new_context(viewport={"width": 760, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.as_uri())
    roots = {
        name: page.locator(f'section[data-name="{name}"] {EXPLORER}') for name in found
    }
    for root in roots.values():
        wait_until_drawn(root)
    yield page, found, roots, errors
    context.close()


def random_settings(
    rng: random.Random, explorer, option: str, n_heads: int, count: int
):
    network = explorer.network(option, n_heads)
    words = network.vocab.itos[2:]
    settings = []
    for _ in range(count):
        length = rng.randint(1, network.max_length)
        sentence = " ".join(rng.choice(words) for _ in range(length))
        mask = rng.choice(explorer.masks + MASKS)  # every mask, whatever is offered
        settings.append(
            {"option": option, "nHeads": n_heads, "mask": mask,
             "nPad": rng.randint(1, 3), "sentence": sentence}
        )  # fmt: skip
    return settings


# The page's forward pass for many settings at once: the numbers it computes
# (as JSON text, as booktools.explorers reads the page).
COMPUTE_JS = """(root, settings) => {
    const data = JSON.parse(root.querySelector('script.mha-data').textContent);
    return JSON.stringify(settings.map(s => {
        const r = window.mhaExplorer.compute(data, s);
        return {tokens: r.tokens, probs: r.layers.map(l => l.probs),
                outputs: r.layers.map(l => l.output), logits: r.logits,
                answers: r.answers.map(a => a.map(x => x.word)),
                blocked: r.blocked};
    }));
}"""


def largest_difference(page_values, tensor: torch.Tensor) -> float:
    """The largest difference, relative where a value is larger than 1 (an
    output or a logit of 20 is a float32 sum whose last digits differ from
    one processor's kernels to another's: 1.1e-5 under the default ones)."""
    page = torch.tensor(page_values, dtype=torch.float64)
    return float(((page - tensor).abs() / tensor.abs().clamp(min=1)).max())


def test_the_page_computes_what_the_package_computes(page_of_explorers):
    page, found, roots, errors = page_of_explorers
    rng = random.Random(0)
    checked = {}
    for name, explorer in found.items():
        assert_same_data(data(roots[name]), explorer.data)  # the page has mha's weights
        for option, by_heads in explorer.networks.items():
            for n_heads in by_heads:
                settings = random_settings(
                    rng, explorer, option, n_heads, SETTINGS_PER_MODEL
                )
                results = json.loads(roots[name].evaluate(COMPUTE_JS, settings))
                worst = 0.0
                for setting, got in zip(settings, results, strict=True):
                    want, network = expected(explorer, setting)
                    assert got["tokens"] == want.tokens
                    assert got["blocked"] == want.blocked.tolist()
                    assert len(got["probs"]) == len(want.probs) == len(network.layers)
                    for page_probs, probs in zip(got["probs"], want.probs, strict=True):
                        worst = max(worst, largest_difference(page_probs, probs))
                    for page_out, out in zip(got["outputs"], want.outputs, strict=True):
                        worst = max(worst, largest_difference(page_out, out))
                    for page_logits, logits in zip(
                        got["logits"], want.logits, strict=True
                    ):
                        worst = max(worst, largest_difference(page_logits, logits))
                    assert got["answers"] == list(want.answers.values())
                assert worst <= TOLERANCE, (name, option, n_heads, worst)
                checked[name, option, n_heads] = len(settings)
    assert errors == []
    # Every model: the running example's two weights and the three tasks at
    # every head count, the fronted task's two models, the two-layer models
    # at their head counts, the heads of a width of their own.
    assert len(checked) == 2 * 4 + 3 * 4 + 2 + 2 + 1
    assert min(checked.values()) >= 100


def test_what_the_explorer_draws_is_the_package_s_reading(page_of_explorers):
    """Settings chosen through the controls (and typed), the picture checked each time."""
    page, found, roots, errors = page_of_explorers
    rng = random.Random(1)
    for name, explorer in found.items():
        root = roots[name]
        root.scroll_into_view_if_needed()
        check_picture(root, explorer)
        names = [n for n in ("option", "sentence", "mask", "nPad", "nHeads")
                 if root.locator(f'[name="{n}"]').count()]  # fmt: skip
        for _ in range(8):
            control = rng.choice(names)
            if control == "nPad" and shown(root)["state"]["mask"] != "padding":
                pick(root, "mask", options(root, "mask").index("padding"))
            pick(root, control, rng.randrange(len(options(root, control))))
            check_picture(root, explorer)
        network = next(iter(next(iter(explorer.networks.values())).values()))
        typed = " ".join(rng.choice(network.vocab.itos[2:]) for _ in range(5))
        type_sentence(root, typed)
        assert shown(root)["state"]["sentence"] == typed
        check_picture(root, explorer)
        assert (
            value_of("nHeads", str(shown(root)["state"]["nHeads"]))
            in explorer.head_counts
        )
    assert errors == []
