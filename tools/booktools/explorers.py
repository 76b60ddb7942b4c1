"""Reading and driving an attention explorer of the built site, as a reader
would, for the browser tests and the first-tap benchmark.

An explorer is plain HTML (``mha.explorer.static``): a form with one control
per setting, a figure of two images (background and maps) with a caption,
and the list of its frames. What the figure shows is checked against the
package: the caption of the frame ``mha`` draws for the settings the form
shows (captions state every setting; PNG bytes may differ between machines).
"""

from __future__ import annotations

from dataclasses import dataclass

from mha.explorer.model import Settings, attention_maps, caption

EXPLORER = ".mha-explorer"

# The explorer's list of frames and the form's state, each control's value as
# the text it shows (its option), with the settings no control changes.
STATE_JS = """(root) => {
    const data = JSON.parse(root.querySelector('script.mha-frames').textContent);
    const form = root.querySelector('form');
    const state = Object.assign({}, data.initial);
    for (const name of data.controls) {
        const control = form.elements[name];
        if (control.type === 'range') {
            state[name] = JSON.parse(control.dataset.labels)[control.value];
        } else if (control.tagName === 'SELECT') {
            state[name] = control.options[control.selectedIndex].text;
        } else {
            state[name] = form.querySelector(`input[name="${name}"]:checked`)
                .parentNode.textContent;
        }
    }
    return state;
}"""

SHOWN_JS = """(root) => {
    const [under, over] = root.querySelectorAll('.mha-picture img');
    return {background: under.getAttribute('src'), maps: over.getAttribute('src'),
            alt: under.alt, caption: root.querySelector('figcaption').textContent,
            loaded: [under, over].every(i => i.complete && i.naturalWidth > 0)};
}"""


@dataclass(frozen=True)
class Shown:
    background: str
    maps: str
    alt: str
    caption: str
    loaded: bool


def settings(root) -> Settings:
    """The settings the explorer's form shows."""
    return settings_of(root.evaluate(STATE_JS))


def settings_of(state: dict) -> Settings:
    """Settings from the form's state (STATE_JS)."""
    return Settings(
        sentence=state["sentence"],
        n_heads=int(state["n_heads"]),
        mask=state["mask"],
        n_pad=int(state["n_pad"]),
        weights=state["weights"],
    )


def expected_caption(settings: Settings) -> str:
    """The caption of the frame the package draws for ``settings``."""
    tokens, _ = attention_maps(settings)
    return caption(settings, tokens)


def shown(root) -> Shown:
    return Shown(**root.evaluate(SHOWN_JS))


def frame_list(root) -> dict:
    """The explorer's data: its controls, images and frames."""
    return root.evaluate(
        "r => JSON.parse(r.querySelector('script.mha-frames').textContent)"
    )


def wait_for_caption(root, text: str, timeout_ms: int = 10_000) -> None:
    """Wait until the figure states ``text`` with both its images loaded."""
    root.page.wait_for_function(
        """([root, text]) => root.querySelector('figcaption').textContent === text
               && [...root.querySelectorAll('.mha-picture img')].every(
                      i => i.complete && i.naturalWidth > 0)""",
        arg=[root.element_handle(), text],
        timeout=timeout_ms,
    )


def control(root, name: str):
    """The control of setting ``name``: its radio buttons, drop-down or slider."""
    return root.locator(f'form [name="{name}"]')


def options(root, name: str) -> list[str]:
    """The texts of a control's options, in order."""
    found = control(root, name)
    kind = found.first.evaluate("c => c.type === 'range' ? 'range' : c.tagName")
    if kind == "range":
        return found.evaluate("c => JSON.parse(c.dataset.labels)")
    if kind == "SELECT":
        return found.locator("option").all_inner_texts()
    return [radio.evaluate("r => r.parentNode.textContent") for radio in found.all()]


def kind(root, name: str) -> str:
    """``"buttons"``, ``"menu"`` or ``"slider"``."""
    found = control(root, name).first
    tag = found.evaluate("c => c.type === 'range' ? 'range' : c.tagName")
    return {"range": "slider", "SELECT": "menu"}.get(tag, "buttons")


def pick(root, name: str, index: int) -> None:
    """Choose option ``index`` of a control with the mouse (a click on a
    button, a choice in the drop-down, a click on the slider's track)."""
    found = control(root, name)
    what = kind(root, name)
    if what == "buttons":
        root.locator(f'label:has(> input[name="{name}"][value="{index}"])').click()
    elif what == "menu":
        found.select_option(str(index))
    else:
        box = found.bounding_box()
        last = len(options(root, name)) - 1
        # The thumb's centre runs from half a thumb in from each end.
        thumb = min(box["height"], 16)
        x = box["x"] + thumb / 2 + (box["width"] - thumb) * index / max(last, 1)
        root.page.mouse.click(x, box["y"] + box["height"] / 2)


def setting_of(name: str, text: str):
    """A control's option text as the value of its setting."""
    return int(text) if name in ("n_heads", "n_pad") else text
