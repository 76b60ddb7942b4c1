"""Bad input never breaks an explorer of the built site (each case typed in
real Chromium and Enter pressed): a clear message in the explorer, the last
good picture and the controls as they were, nothing run or inserted as
markup, no error in the page. Then a good sentence still works, and tapping
the model's words builds one. The same bad input in the explorer of the
two-layer model, which answers at the verb for a sentence typed."""

from __future__ import annotations

import pytest

import mha
from booktools.book import fullest_explorer_page
from booktools.explorers import (
    EXPLORER,
    control,
    pick,
    shown,
    type_sentence,
    wait_until_drawn,
)
from booktools.pages import COMMON_PHONE, open_page

pytestmark = pytest.mark.browser

ATTACK = (
    '<img src=x onerror="window.__attacked = 1"><script>window.__attacked = 2</script>'
)
BAD = [
    ("", "the box is empty"),
    ("!!! ... ???", "has no word (letters or digits)"),
    ("x" * 5000, "not a word this model knows: “xxxxxxxx"),
    ("😀 🎉 👍", "has no word (letters or digits)"),
    ("你好 世界", "not a word this model knows: “你好”, “世界”"),
    ("I wonder what the cat will come", "not a word this model knows: “the”, “cat”"),
    (
        " ".join(["wonder"] * 11),
        "the sentence has 11 words; this model reads at most 10",
    ),
    (ATTACK, "not a word this model knows: “img”"),
]

# What each case of BAD (and of BAD_FOR_FRONTED) tries.
CASES = [
    "empty", "punctuation", "5000 characters", "emoji", "non-Latin", "unknown word",
    "too long", "markup",
]  # fmt: skip


@pytest.fixture(scope="module")
def explorer(browser, site_url):
    """The fullest explorer of the site, opened once for the cases of this
    module (a case leaves the page as it found it, or as a good sentence
    typed leaves it)."""
    page, log = open_page(browser, site_url, fullest_explorer_page())
    root = page.locator(EXPLORER).first
    wait_until_drawn(root)
    root.scroll_into_view_if_needed()
    yield page, log, root
    page.context.close()


@pytest.mark.parametrize(("text", "says"), BAD, ids=CASES)
def test_bad_input_gets_a_message_and_the_picture_stays(explorer, text, says):
    page, log, root = explorer
    # The message of a case before cleared: the sentence of the list typed.
    type_sentence(root, control(root, "sentence").input_value())
    before = shown(root)
    assert before["message"] == ""
    type_sentence(root, text)
    page.wait_for_function(
        "r => r.querySelector('.mha-message').textContent", arg=root.element_handle()
    )
    after = shown(root)
    assert says in after["message"]
    assert len(after["message"]) < 300  # a message, not the text typed back
    for part in ("state", "picture", "caption", "description", "title"):
        assert after[part] == before[part], part
    assert root.locator("img, form script").count() == 0  # nothing inserted as markup
    assert page.evaluate("window.__attacked") is None  # nothing run
    assert log.problems() == [], "\n".join(log.problems())


def test_after_bad_input_a_good_sentence_and_tapped_words_show(explorer):
    page, log, root = explorer
    words = root.locator("details.mha-words")
    words.evaluate("d => { d.open = false; }")  # as a case before may have left it
    canvas = root.locator("canvas")
    top = canvas.bounding_box()["y"]
    type_sentence(root, "the cat")
    # The message says where the words are; the list stays closed, so the
    # picture keeps its place (on a phone it would go below the screen).
    assert "The model's words" in shown(root)["message"]
    assert words.get_attribute("open") is None
    # The message's lines move it a little; the open list moved it ~240 px.
    assert canvas.bounding_box()["y"] - top < 80
    type_sentence(root, "what will come next")
    now = shown(root)
    assert now["message"] == "" and now["state"]["sentence"] == "what will come next"
    assert (
        control(root, "sentence").evaluate(
            "s => s.options[s.selectedIndex].textContent"
        )
        == "your sentence: what will come next"
    )
    control(root, "text").fill("")
    words.locator("summary").click()  # the reader opens the list, as the message says
    for word in ("basic", "example"):
        root.locator("button.mha-word", has_text=word).first.click()
    now = shown(root)
    assert now["state"]["sentence"] == "basic example"
    assert now["caption"].startswith("“basic example”")
    root.locator("button.mha-word[data-remove]").click()
    assert shown(root)["state"]["sentence"] == "basic"
    # Enter on an emptied box: back to the sentence chosen in the list.
    type_sentence(root, "")
    assert shown(root)["state"]["sentence"] == control(root, "sentence").input_value()
    assert "the box is empty" in shown(root)["message"]
    assert log.problems() == [], "\n".join(log.problems())


# The same bad input in the explorer of the two-layer model and the fronted
# task's one-layer model (a notebook's output, opened from the file system).
BAD_FOR_FRONTED = BAD[:5] + [
    ("the cat behind the table be", "not a word this model knows: “cat”"),
    (
        " ".join(["the"] * 24),
        "the sentence has 24 words; this model reads at most 23",
    ),
    (ATTACK, "not a word this model knows: “img”"),
]


@pytest.fixture(scope="module")
def fronted(browser, tmp_path_factory):
    from mha.training import FRONTED, load

    explorer = mha.attention_explorer(
        {
            "one layer": load(FRONTED, 4, 0),
            "two layers": load(FRONTED, 4, 0, n_layers=2),
        },
        vocab=FRONTED,
    )
    path = tmp_path_factory.mktemp("fronted") / "fronted.html"
    path.write_text(
        '<!doctype html><html lang="en"><meta charset="utf-8"><title>fronted</title>'
        f"<body>{explorer._repr_mimebundle_()['text/html']}</body></html>"
    )
    context = browser.new_context(viewport={"width": COMMON_PHONE, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(path.as_uri())
    root = page.locator(EXPLORER).first
    wait_until_drawn(root)
    pick(root, "option", 1)  # the two-layer model
    yield page, errors, root
    context.close()


@pytest.mark.parametrize(("text", "says"), BAD_FOR_FRONTED, ids=CASES)
def test_bad_input_in_the_two_layer_explorer(fronted, text, says):
    page, errors, root = fronted
    control(root, "text").fill("")
    type_sentence(root, "")  # the message of the case before cleared
    before = shown(root)
    assert before["state"]["option"] == "two layers"
    type_sentence(root, text)
    after = shown(root)
    assert says in after["message"] and len(after["message"]) < 300
    for part in ("state", "picture", "caption", "description", "title", "answers"):
        assert after[part] == before[part], part
    assert root.locator("img, form script").count() == 0
    assert page.evaluate("window.__attacked") is None
    assert errors == []


def test_the_two_layer_explorer_answers_at_the_verb_for_a_typed_sentence(fronted):
    page, errors, root = fronted
    type_sentence(root, "behind the table the old keys be")
    now = shown(root)
    assert now["message"] == "" and now["state"]["option"] == "two layers"
    assert now["answers"][0].startswith("The model's answer at “be” (verb): ")
    assert len(now["maps"]) == 4  # the four heads of the layer shown
    assert "layer 1:" in now["description"] and "layer 2:" in now["description"]
    assert errors == []
