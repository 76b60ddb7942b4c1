"""The explorer's script outside the browser: its modules linted (eslint,
pinned in package.json), joined into one script that parses, unit-tested
with node's own test runner (tests/js) against fixtures the package writes
here, and holding no constant of the package (its words, colours, ticks and
greys come in the explorer's data). Node is required: without it these
tests fail, they do not skip."""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import mha
from booktools.explorers import expected
from mha.explorer import notebook
from mha.explorer.look import MASK_TEXT, WORDS, caption, look, title
from mha.explorer.notebook import MODULES, STATIC, front_end
from mha.training import AGREEMENT, FRONTED, INDUCTION, NEIGHBOURS, load

ROOT = Path(__file__).resolve().parents[1]
JS_TESTS = sorted((ROOT / "tests" / "js").glob("*.test.js"))
LINTED = ["src/mha/explorer/static", "tests/js", "eslint.config.js"]


def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.fail(
            "node is not installed: the explorer's script is linted and tested with "
            "it (Debian: apt-get install nodejs npm)"
        )
    return found


def run(command: list[str], **options) -> str:
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=300, **options
    )
    if done.returncode:
        pytest.fail(
            f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}"
        )
    return done.stdout


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """The linter, installed as package-lock.json pins it (npm ci, once: kept
    in node_modules until the lock file changes)."""
    node()
    folder, lock = ROOT / "node_modules", ROOT / "package-lock.json"
    stamp = folder / ".package-lock.json"  # npm writes it on each install
    with open(ROOT / ".npm-ci.lock", "w") as held:  # one worker installs, others wait
        fcntl.flock(held, fcntl.LOCK_EX)
        if not stamp.exists() or stamp.stat().st_mtime < lock.stat().st_mtime:
            npm = shutil.which("npm")
            if npm is None:
                pytest.fail("npm is not installed (Debian: apt-get install npm)")
            run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"])
    return folder


def test_the_script_passes_eslint(node_modules):
    run([node(), str(node_modules / "eslint" / "bin" / "eslint.js"), *LINTED])


def test_the_modules_join_into_one_script_that_parses(tmp_path):
    script = tmp_path / "explorer.js"
    script.write_text(front_end("explorer.js"), encoding="utf-8")
    run([node(), "--check", str(script)])
    assert {p.name for p in STATIC.glob("*.js")} == set(MODULES)
    assert not re.search(r"^\s*(import|export)\b", script.read_text(), re.M)


@pytest.mark.parametrize(
    ("modules", "says"),
    [
        ({"a.js": 'import {f} from "./b.js";\n', "b.js": "export function f() {}\n"},
         "import only the modules before it"),
        ({"a.js": "export function f() {}\n", "b.js": "var f = 1;\n"},
         "must not both declare f"),
        ({"a.js": "export default 1;\n", "b.js": ""}, "export declarations only"),
    ],
    ids=["a later module imported", "a name declared twice", "an export of a value"],
)  # fmt: skip
def test_modules_that_cannot_share_one_script_are_refused(
    tmp_path, monkeypatch, modules, says
):
    for name, text in modules.items():
        (tmp_path / name).write_text(text)
    monkeypatch.setattr(notebook, "STATIC", tmp_path)
    monkeypatch.setattr(notebook, "MODULES", tuple(modules))
    with pytest.raises(ValueError, match=says):
        notebook.front_end.__wrapped__("explorer.js")


# --- What the script computes, against the package ----------------------------------


def explorers() -> dict:
    """Explorers of every kind of model: the running example's layer (two
    weights, every head count), readouts at one word and at every word, two
    layers on a residual stream causal in both (the fronted and the
    induction models)."""
    return {
        "running example": mha.attention_explorer(weights=["trained", "random"]),
        "agreement": mha.attention_explorer(AGREEMENT, head_counts=[2, 8], seed=2),
        "neighbours": mha.attention_explorer(NEIGHBOURS, head_counts=[4]),
        "fronted": mha.attention_explorer(
            {
                "one layer": load(FRONTED, 4, 1),
                "two layers": load(FRONTED, 4, 1, n_layers=2),
            },
            vocab=FRONTED,
        ),
        "induction": mha.attention_explorer(INDUCTION, head_counts=[2]),
    }


def settings(explorer) -> list[dict]:
    """Each option and head count under each mask, on the explorer's own
    sentences (padding 1 to 3 words)."""
    found = []
    for option, by_heads in explorer.networks.items():
        for n_heads in sorted(by_heads):
            for k, mask in enumerate(MASK_TEXT):
                sentence = explorer.sentences[(n_heads + k) % len(explorer.sentences)]
                found.append(
                    {"option": option, "nHeads": n_heads, "mask": mask,
                     "nPad": 1 + (n_heads + k) % 3, "sentence": sentence}
                )  # fmt: skip
    return found


def rounded(tensor, places: int = 6) -> list:
    return [[round(v, places) for v in row] for row in tensor.tolist()]


def reading_of(explorer, setting: dict) -> dict:
    """The package's reading of a setting: what the page must show."""
    got, network = expected(explorer, setting)
    s = setting
    d_key = network.layers[0].Wq.weight.shape[0] // s["nHeads"]
    template = caption(
        s["option"], explorer.choice, s["nHeads"], d_key, s["mask"],
        len(network.layers), network.residual, network.causal,
    )  # fmt: skip
    return {
        "setting": setting,
        "tokens": got.tokens,
        "blocked": got.blocked.tolist(),
        "probs": [[rounded(head) for head in probs] for probs in got.probs],
        "outputs": [rounded(out) for out in got.outputs],
        "logits": [rounded(scores) for scores in got.logits],
        "answers": list(got.answers.values()),
        "title": title(
            s["option"], explorer.choice, s["nHeads"], s["mask"], network.causal
        ),
        "caption": template.format(
            sentence=" ".join(t for t in got.tokens if t != mha.text.PAD),
            n_pad=got.tokens.count(mha.text.PAD),
            layer=1,
            n_layers=len(network.layers),
        ),
    }


TEXTS = [
    "Hello, World!", "don't  stop\tnow", "a\u00a0b\u2003c", "x\x1cy\x1fz", "naïve café",
    "你好 世界", "😀 ok 🎉", "ΟΔΟΣ Σ", "İstanbul", "a-b_c d.e", "  ", "",
]  # fmt: skip


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory) -> Path:
    """The package's side, as JSON for the node tests: each explorer's data
    and its readings of several settings; tokenised texts; the colour of
    chosen probabilities; the words of the messages for bad sentences."""
    from booktools.explorers import _colours, _scale

    found = {}
    for name, explorer in explorers().items():
        found[name] = {
            "data": explorer.data,
            "readings": [reading_of(explorer, s) for s in settings(explorer)],
        }
    vocab_size = len(FRONTED.vocab) - 2  # the words the page lists
    colours = [
        [p, _colours()[min(255, int(float(_scale()(p)) * 256))]]
        for p in (0.0, 0.001, 0.01, 0.05, 0.1, 0.2, 0.25, 0.5, 0.75, 0.999, 1.0)
    ]
    path = tmp_path_factory.mktemp("explorer-js") / "fixtures.json"
    path.write_text(
        json.dumps(
            {
                "explorers": found,
                "tokens": [[text, tokens(text)] for text in TEXTS],
                "colours": colours,
                "problems": {  # in the fronted explorer
                    "the cat be": WORDS["unknown"].format(
                        words="“cat”", more="", count=vocab_size
                    ),
                    " ".join(["the"] * 24): WORDS["tooLong"].format(count=24, most=23),
                    "!!": WORDS["noWord"].format(text="“!!”"),
                },
            }
        ),
        encoding="utf-8",
    )
    return path


def tokens(text: str) -> list[str]:
    """mha.tokenize's tokens, none where it finds no word."""
    try:
        return mha.tokenize(text)
    except ValueError:
        return []


def test_the_script_computes_and_lays_out_what_the_package_does(fixtures):
    run(
        [node(), "--test", *map(str, JS_TESTS)],
        env={**os.environ, "MHA_EXPLORER_FIXTURES": str(fixtures)},
    )


# --- No constant of the package written in the script --------------------------------

STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`(?:[^`\\]|\\.)*`')
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
PHRASE = re.compile(r"[^\W\d_]+ [^\W\d_]+")  # two words: wording
ALLOWED = {'"no value for {"'}  # a programming error's message, never a reader's


def sources() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(STATIC.glob("*"))}


def without_comments(code: str) -> str:
    both = re.compile(f"{STRING.pattern}|{COMMENT.pattern}", re.S)
    return both.sub(lambda m: m.group() if m.group()[0] in "\"'`" else " ", code)


def literals(code: str) -> list[str]:
    """The string literals of JavaScript ``code``, with their quotes (read
    from the left, so that a comment's quote or a string's slashes are
    not taken for what they are not)."""
    both = re.compile(f"{STRING.pattern}|{COMMENT.pattern}", re.S)
    return [m.group() for m in both.finditer(code) if m.group()[0] in "\"'`"]


def package_strings() -> list[str]:
    """The package's words, labels and colours that the page shows (a title
    and a caption with every part)."""
    strings = [*WORDS.values(), *MASK_TEXT.values()]
    found = look()
    strings += [found["query"], found["key"], found["bar"], found["blockedKey"]]
    strings += [*found["headColours"], *found["blocked"]["light"].values()]
    strings += [title("x", "Model:", 2, m, causal=True) for m in MASK_TEXT]
    strings += [caption("x", "Weights:", 2, 4, "padding", 2, True, True)]
    return strings


def test_no_constant_of_the_package_is_written_in_the_script():
    """The script's string literals hold no wording (two words in a row) and
    no colour; no phrase or colour of the package's appears in the script or
    its style sheet (but in a comment), no word of it as a string of the script (but the names
    the data holds, such as the masks'); the ticks and the colour map are the
    data's."""
    for name, text in sources().items():
        strings = {s[1:-1] for s in literals(text)}
        code = without_comments(text)
        if name.endswith(".js"):
            wording = [s for s in literals(text) if PHRASE.search(s)]
            assert set(wording) <= ALLOWED, name
            assert not re.search(r"#[0-9a-fA-F]{3,8}\b", text), name
            assert not re.search(r"\b0\.05\b|[0-9a-fA-F]{24}", text), name
        for constant in package_strings():
            for part in re.split(r"\{\w*\}| · |, ", constant):
                part = part.strip()
                if PHRASE.search(part) or part.startswith("#"):
                    assert part not in code, (name, part)
                elif part and not re.fullmatch(r"[a-z]+", part):  # a name: the data's
                    assert part not in strings, (name, part)
