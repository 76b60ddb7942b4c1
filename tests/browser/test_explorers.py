"""The explorers on the built site: every control of every explorer shows, in
the browser and with no kernel, the frame the package draws for what the
form says; with the mouse, with the keyboard, from file://, and on a slow
network, where a tap made before the page's script or the frame has arrived
is not lost. Frames are recognised by their caption, which states every
setting (not by their PNG bytes, which may differ between machines)."""

from __future__ import annotations

import pytest

from booktools.book import fullest_explorer_page
from booktools.explorers import (
    EXPLORER,
    SHOWN_JS,
    STATE_JS,
    control,
    expected_caption,
    frame_list,
    kind,
    options,
    pick,
    setting_of,
    settings,
    settings_of,
    shown,
    wait_for_caption,
)
from booktools.pages import settle
from mha.explorer.frames import ALT

pytestmark = pytest.mark.browser


def open_explorers(open_page, path, **kwargs):
    page, log = open_page(path, **kwargs)
    settle(page)
    return page, log, page.locator(EXPLORER).all()


# Everything the figure and the form say at once (one call to the page).
LOOK_JS = f"""(root) => {{
    const data = JSON.parse(root.querySelector('script.mha-frames').textContent);
    const padding = root.querySelector('.mha-revealed');
    return {{
        state: ({STATE_JS})(root),
        shown: ({SHOWN_JS})(root),
        frames: Object.values(data.frames).map(f => [data.images[f[0]], data.images[f[1]],
                                                     f[2]]),
        sliders: [...root.querySelectorAll('input[type=range]')].map(s => [
            JSON.parse(s.dataset.labels)[s.value], s.getAttribute('aria-valuetext'),
            s.parentNode.querySelector('output').textContent]),
        padding: padding ? padding.offsetParent !== null : null,
    }};
}}"""


def assert_shows_its_frame(root) -> None:
    """The figure shows the frame of the form's settings: its caption, its alt
    text, the two images listed for it; the sliders' readouts say their value,
    and the padding slider shows with the padding mask only."""
    expected = expected_caption(settings(root))
    wait_for_caption(root, expected)
    look = root.evaluate(LOOK_JS)
    now = look["shown"]
    listed = [f for f in look["frames"] if f[2] == expected]
    assert len(listed) == 1, f"{len(listed)} frames say {expected!r}"
    assert [now["background"], now["maps"]] == listed[0][:2]
    assert now["alt"] == ALT + expected
    for value, spoken, readout in look["sliders"]:
        assert value == spoken == readout
    if look["padding"] is not None:
        assert look["padding"] == (settings_of(look["state"]).mask == "padding")


def test_every_control_shows_its_frame(open_page, explorer_page_path):
    """Every option of every control, chosen with the mouse."""
    page, log, roots = open_explorers(open_page, explorer_page_path)
    assert roots, "no explorer on the page"
    for root in roots:
        root.scroll_into_view_if_needed()
        assert_shows_its_frame(root)
        for name in frame_list(root)["controls"]:
            if not control(root, name).first.is_visible():  # the padding slider
                pick(root, "mask", options(root, "mask").index("padding"))
            texts = options(root, name)
            for index in [*range(len(texts))[::-1], 0]:
                pick(root, name, index)
                assert getattr(settings(root), name) == setting_of(name, texts[index])
                assert_shows_its_frame(root)
    assert log.problems() == [], "\n".join(log.problems())


def test_every_control_works_with_the_keyboard_and_has_a_name(open_page):
    """Each control is one stop of the Tab key, in order, named after its label
    (what a screen reader announces); arrow keys and Home/End change it."""
    page, log, roots = open_explorers(open_page, fullest_explorer_page())
    root = roots[0]
    names = frame_list(root)["controls"]
    pick(root, "mask", options(root, "mask").index("padding"))  # every control shown
    labels = {"buttons": "radio", "menu": "combobox", "slider": "slider"}
    for name in names:
        role = labels[kind(root, name)]
        label = root.locator(f'[name="{name}"]').first.evaluate(
            "c => (c.closest('fieldset')?.querySelector('legend')"
            " || c.labels[0]).textContent"
        )
        if role == "radio":
            assert root.get_by_role("group", name=label).count() == 1
            for text in options(root, name):
                assert root.get_by_role("radio", name=text, exact=True).count() == 1
        else:
            assert root.get_by_role(role, name=label).count() == 1
    # From the first control to the last, one Tab each.
    root.locator(
        f'[name="{names[0]}"]:checked, select[name="{names[0]}"], '
        f'input[type=range][name="{names[0]}"]'
    ).first.focus()
    for i, name in enumerate(names):
        if i:
            page.keyboard.press("Tab")
        focused = page.evaluate("document.activeElement.name")
        assert focused == name, f"Tab reached {focused}, not {name}"
        texts = options(root, name)
        start = texts.index(str(getattr(settings(root), name)))
        steps = {
            "buttons": [("ArrowRight", (start + 1) % len(texts)), ("ArrowLeft", start)],
            "menu": [("End", -1), ("Home", 0), ("ArrowDown", 1)],
            "slider": [("End", -1), ("Home", 0), ("ArrowRight", 1)],
        }[kind(root, name)]
        for key, index in steps:
            page.keyboard.press(key)
            assert getattr(settings(root), name) == setting_of(name, texts[index]), key
            assert_shows_its_frame(root)
    assert log.problems() == [], "\n".join(log.problems())


def slow_phone(browser, url_base):
    """A phone on a slow network (Lighthouse's slow 4G), with touch."""
    context = browser.new_context(
        viewport={"width": 390, "height": 800}, has_touch=True, is_mobile=True
    )
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 150, "downloadThroughput": 1.6e6 / 8,
         "uploadThroughput": 750e3 / 8},
    )  # fmt: skip
    return context, page


def test_taps_on_a_slow_network_are_never_lost(browser, site_url):
    """On a slow network the controls are on screen before the script that
    switches frames (held back here until after the tap): the tapped button is
    chosen at once, and the figure shows its frame when the script runs. Then
    two quick taps whose frames are both still to be fetched: the figure ends
    on the frame of the last (never the first's, arriving late)."""
    context, page = slow_phone(browser, site_url)
    held = []
    context.route("**/explorer.js*", lambda route: held.append(route))
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(site_url + fullest_explorer_page(), wait_until="commit")
        root = page.locator(EXPLORER).first
        button = root.locator('label:has(> input[name="mask"][value="1"])')
        button.wait_for(state="visible", timeout=60_000)
        first = shown(root).caption
        button.scroll_into_view_if_needed()
        button.tap()
        assert settings(root).mask == options(root, "mask")[1]  # chosen at once
        page.wait_for_timeout(300)
        assert shown(root).caption == first and held, "the script ran too early"
        held[0].continue_()
        wait_for_caption(root, expected_caption(settings(root)), timeout_ms=60_000)

        control(root, "sentence").select_option("2")  # far from the frames fetched:
        pick(root, "weights", 1)  # another sentence, then other weights
        final = expected_caption(settings(root))
        wait_for_caption(root, final, timeout_ms=60_000)
        page.wait_for_timeout(1500)  # a late frame would have arrived by now
        assert shown(root).caption == final
    finally:
        context.close()
    assert errors == []


def test_frames_one_change_away_are_fetched_before_the_first_tap(open_page):
    """Once the page is idle, both images of every frame one change away from
    the one shown are in (and no other frame's)."""
    page, log, roots = open_explorers(open_page, fullest_explorer_page())
    page.wait_for_timeout(500)
    data = frame_list(roots[0])
    shown_now = shown(roots[0])
    current = next(
        key
        for key, f in data["frames"].items()
        if data["images"][f[0]] == shown_now.background
        and data["images"][f[1]] == shown_now.maps
    )
    pad = data["controls"].index("n_pad")
    slider = control(roots[0], "n_pad").input_value()

    def one_change(key: str) -> bool:
        a, b = current.split("."), key.split(".")
        differ = [i for i in range(len(a)) if a[i] != b[i]]
        # The padding slider comes or goes with the padding mask, at its value.
        if pad in differ and sorted([a[pad], b[pad]]) == sorted(["-", slider]):
            differ.remove(pad)
        return len(differ) == 1

    wanted = {
        data["images"][i]
        for key, f in data["frames"].items()
        if key == current or one_change(key)
        for i in f[:2]
    }
    fetched = {url.rsplit("/", 1)[-1] for url in log.requested if "/explorer/" in url}
    assert {url.rsplit("/", 1)[-1] for url in wanted} == fetched


def test_explorers_work_from_the_file_system(browser, site_dir):
    """Opened as a file (file://, no server), the controls switch frames too:
    frames are images, fetched as images."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto((site_dir / fullest_explorer_page()).resolve().as_uri())
        root = page.locator(EXPLORER).first
        for name in ("n_heads", "mask"):
            pick(root, name, 0 if name == "n_heads" else 1)
            assert_shows_its_frame(root)
    finally:
        context.close()
    assert errors == []
