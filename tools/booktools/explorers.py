"""Reading and driving an attention explorer in a page, as a reader would,
for the browser tests and the benchmarks; and the package's side of each
comparison.

An explorer is a ``.mha-explorer`` element holding its data (a JSON script
element) and, once ``explorer.js`` has run, its form, its picture (an SVG of
the maps) and what it says about it. The page's own functions are at
``window.mhaExplorer`` (``compute``, ``tokenize``, ``colour``, ``title``), the
explorer's state at ``root.mhaExplorer.state``. What the page shows is
checked against the package: the chapter's explorer call is run here and
its networks read each setting (``mha.explorer.models.reading``).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import torch

import mha
from mha.explorer.models import decoded, padded, reading
from mha.explorer.notebook import title

EXPLORER = ".mha-explorer"
TOLERANCE = 1e-5  # the page's numbers against the package's
# (What the page returns, it returns as JSON text: Playwright checks every value
# of a returned object one by one, a minute for a few million numbers.)
DATA_JS = "r => r.querySelector('script.mha-data').textContent"

# What an explorer shows now: its state, the picture's title and each map
# cell (its probability or "blocked", the colour it is given, its number if
# drawn, and the colour the canvas shows: a pixel read away from the cell's
# number and outline), the picture itself (its pixels, as a data URL), the
# caption, the description, the answers and the message.
SHOWN_JS = """(root) => {
    const canvas = root.querySelector('canvas.mha-maps');
    const picture = root.mhaExplorer.picture;
    const ratio = canvas.width / picture.width;
    const copy = document.createElement('canvas');  // read once, on a canvas of its own
    [copy.width, copy.height] = [canvas.width, canvas.height];
    const g = copy.getContext('2d', {willReadFrequently: true});
    g.drawImage(canvas, 0, 0);
    const pixels = g.getImageData(0, 0, canvas.width, canvas.height);
    const pixel = (x, y) => {
        const i = (Math.floor(y * ratio) * canvas.width + Math.floor(x * ratio)) * 4;
        return '#' + [0, 1, 2].map(k => pixels.data[i + k].toString(16).padStart(2, '0'))
            .join('');
    };
    const cells = m => m.cells.flatMap((row, i) => row.map((c, j) => {
        const at = i === picture.row ? 0.75 : 0.25;  // off the outline of the row described
        return [c.p === null ? 'blocked' : String(c.p), c.fill,
                pixel(m.x + (j + 0.5) * m.cell, m.y + (i + at) * m.cell)];
    }));
    return JSON.stringify({state: Object.assign({}, root.mhaExplorer.state),
            title: picture.title, maps: picture.maps.map(cells),
            numbers: picture.maps.map(m => m.cells.flat().filter(c => c.number !== null)
                .map(c => c.number)),
            picture: canvas.toDataURL(),
            caption: root.querySelector('figcaption').textContent,
            description: root.querySelector('.mha-description').textContent,
            answers: [...root.querySelectorAll('.mha-answers p')].map(p => p.textContent),
            message: root.querySelector('.mha-message').textContent});
}"""


def explorer_call(notebook: Path) -> str:
    """The source of a chapter's explorer cell (one call of mha.attention_explorer)."""
    cells = json.loads(notebook.read_text())["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    (call,) = [s for s in sources if s.lstrip().startswith("mha.attention_explorer(")]
    return call


def chapter_explorer(page_path: str, root_dir: Path):
    """The package's explorer of a built page: its chapter's call, run here."""
    notebook = root_dir / page_path.replace(".html", ".ipynb")
    return eval(explorer_call(notebook), {"mha": mha})  # the chapter's own code


def data(root) -> dict:
    return json.loads(root.evaluate(DATA_JS))


def assert_same_data(page: dict, package: dict, where: str = "data") -> None:
    """The explorer's data in the page is the package's: the same in all but
    the last digits of its weights (a tensor the package computes, such as
    the layer before training, differs in its last bits from one processor's
    kernels to another's, and may then travel as float64 rather than
    float32); everything else exactly."""
    if isinstance(page, dict) and set(page) == {"shape", "dtype", "data"}:
        torch.testing.assert_close(
            decoded(page), decoded(package), rtol=1e-12, atol=1e-12, msg=where
        )
    elif isinstance(page, dict):
        assert isinstance(package, dict) and page.keys() == package.keys(), where
        for key in page:
            assert_same_data(page[key], package[key], f"{where}.{key}")
    elif isinstance(page, list):
        assert isinstance(package, list) and len(page) == len(package), where
        for i, (a, b) in enumerate(zip(page, package, strict=True)):
            assert_same_data(a, b, f"{where}[{i}]")
    else:
        assert page == package, (where, page, package)


def shown(root) -> dict:
    return json.loads(root.evaluate(SHOWN_JS))


def expected(explorer, setting: dict):
    """The package's reading of a page setting (``option``, ``nHeads``,
    ``mask``, ``nPad``, ``sentence``), and its network."""
    network = explorer.network(setting["option"], setting["nHeads"])
    tokens = padded(mha.tokenize(setting["sentence"]), setting["mask"], setting["nPad"])
    return reading(network, tokens, setting["mask"]), network


def wait_until_drawn(root, timeout_ms: int = 15_000) -> None:
    root.page.wait_for_function(
        "r => r.mhaExplorer && r.mhaExplorer.picture",
        arg=root.element_handle(),
        timeout=timeout_ms,
    )


def control(root, name: str):
    """The control of ``name`` (``option``, ``sentence``, ``mask``, ``nPad``,
    ``nHeads``, ``text``, ``row``): its radio buttons, drop-down, slider or box."""
    return root.locator(f'[name="{name}"]')


def controls(root) -> list[str]:
    """The names of the form's controls shown, top to bottom (radio buttons once)."""
    return root.evaluate(
        """r => [...new Set([...r.querySelectorAll('form [name]')]
                 .filter(c => c.offsetParent !== null && c.type !== 'submit')
                 .map(c => c.name))]"""
    )


def options(root, name: str) -> list[str]:
    """The values a control offers, in order, as text."""
    return root.evaluate(
        """(r, name) => {
            const c = r.querySelector(`[name="${name}"]`);
            if (c.type === 'range') return JSON.parse(c.dataset.values).map(String);
            if (c.tagName === 'SELECT') return [...c.options].map(o => o.value);
            return [...r.querySelectorAll(`[name="${name}"]`)].map(i => i.value);
        }""",
        name,
    )


def kind(root, name: str) -> str:
    """``"buttons"``, ``"menu"`` or ``"slider"``."""
    tag = control(root, name).first.evaluate(
        "c => c.type === 'range' ? 'range' : c.tagName"
    )
    return {"range": "slider", "SELECT": "menu"}.get(tag, "buttons")


def pick(root, name: str, index: int) -> None:
    """Choose option ``index`` of a control with the mouse (a click on a
    button, a choice in the drop-down, a click on the slider's track)."""
    found = control(root, name)
    what = kind(root, name)
    if what == "buttons":
        value = options(root, name)[index]
        root.locator(f'label:has(> input[name="{name}"][value="{value}"])').click()
    elif what == "menu":
        found.select_option(index=index)
    else:
        box = found.bounding_box()
        last = len(options(root, name)) - 1
        thumb = min(box["height"], 16)  # the thumb's centre runs half a thumb in
        x = box["x"] + thumb / 2 + (box["width"] - thumb) * index / max(last, 1)
        root.page.mouse.click(x, box["y"] + box["height"] / 2)


def value_of(name: str, text: str):
    """A control's option text as the value of its setting."""
    return int(text) if name in ("nHeads", "nPad") else text


def type_sentence(root, text: str) -> None:
    """Type ``text`` into the box and press Enter."""
    box = control(root, "text")
    box.fill(text)
    box.press("Enter")


def is_colour(fill: str, p: float) -> bool:
    """Whether ``fill`` is the book's colour of probability ``p`` (cividis on
    the square-root scale, as matplotlib turns it into bytes)."""
    return fill == _colours()[min(255, int(float(_scale()(p)) * 256))]


@functools.cache
def _colours() -> list[str]:
    from matplotlib import colormaps

    table = colormaps["cividis"](range(256), bytes=True)[:, :3]
    return ["#" + bytes(int(v) for v in rgb).hex() for rgb in table]


@functools.cache
def _scale():
    from mha.plotting.palette import probability_scale

    return probability_scale()


def float_or_blocked(text: str) -> float | None:
    return None if text == "blocked" else float(text)


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text)


def check_picture(root, explorer) -> None:
    """What the explorer draws now is the package's reading of its state: every
    cell's probability (1e-5), its number where one is drawn, its colour; the
    title; the answers."""
    now = shown(root)
    want, network = expected(explorer, now["state"])
    s = now["state"]
    assert now["title"] == title(
        s["option"], explorer.choice, s["nHeads"], s["mask"], network.causal
    )
    maps = [m for probs in want.probs for m in probs]  # layer by layer, head by head
    assert len(now["maps"]) == len(maps)
    blocked = want.blocked.flatten().tolist()
    for k, (cells, probs, numbers) in enumerate(
        zip(now["maps"], maps, now["numbers"], strict=True)
    ):
        values = probs.flatten().tolist()
        assert len(cells) == len(values)
        for at, ((p, fill, seen), value, is_blocked) in enumerate(
            zip(cells, values, blocked, strict=True)
        ):
            if is_blocked:  # grey and hatched: a blend of two greys, no colour
                assert float_or_blocked(p) is None and fill is None
                assert seen[1:3] == seen[3:5] == seen[5:7], seen
            else:
                assert abs(float(p) - value) <= TOLERANCE and is_colour(fill, float(p))
                where = (s, f"map {k}", divmod(at, probs.shape[-1]))
                assert seen == fill, (where, fill, seen)
        if numbers:  # drawn where they fit: every cell that is not blocked
            shown_values = [v for v, b in zip(values, blocked, strict=True) if not b]
            assert numbers == [f"{v:.2f}" for v in shown_values]
    for answers, readout_answers, at in zip(
        now["answers"], list(want.answers.values()), network.at, strict=True
    ):
        if at is not None and at in want.tokens:
            assert f": {readout_answers[want.tokens.index(at)]} (probability" in answers
        elif at is None:
            pairs = [
                f"{t} → {a}" for t, a in zip(want.tokens, readout_answers, strict=True)
            ]
            assert answers.endswith(", ".join(pairs))
    assert now["message"] == ""
