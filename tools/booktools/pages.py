"""A page of the built site in the browser, as the browser tests and the
benchmarks open, settle and measure it.

Public names:

- ``PHONE``, ``DESKTOP``: the window widths every page must fit (px);
  :func:`layouts`: the pages whose layouts differ (axe-core checks each).
- :class:`PageLog` and :func:`open_page`: a page opened with every request
  and message logged (a request to another host, which the browser of
  :func:`booktools.chromium.launch` never sends out, among its problems).
- :func:`wait_for_math`, :func:`settle`, :func:`resize`, :func:`load_images`:
  bring a page to what a reader sees; :func:`overflow`: what sticks out of it;
  :func:`too_wide`: the printed outputs (of Part 1, :func:`part_one`) and the
  tables a reader would have to scroll (``COMMON_PHONE``: the width at which
  none may be).
- :func:`axe_settings`, ``ONLY_CONTRAST``: how axe-core is run on a layout.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from booktools import book
from booktools.book import PAGES, explorer_pages

PHONE, DESKTOP = 360, 1280  # the narrowest common phone, a laptop
COMMON_PHONE = 390  # a common phone: a 358 px column

# Console messages that are not the book's fault, each with its cause. Errors
# and warnings not listed here fail the page.
CONSOLE_ALLOWED: dict[str, str] = {}


def layouts() -> list[str]:
    """Pages whose layout differs (the root page, a chapter with an explorer,
    math and figures, a chapter of tables, the API reference). Every other
    page is one of these layouts."""
    return [PAGES["root"], explorer_pages()[0], PAGES["tables"], PAGES["api"]]


@dataclass
class PageLog:
    """Everything a page did that a reader should never see."""

    requested: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        return (
            [f"request to another host: {u}" for u in self.external]
            + [f"failed request: {u}" for u in self.failed]
            + [f"console: {m}" for m in self.console]
            + [f"uncaught error: {e}" for e in self.errors]
        )


# Every layout shift of the page (https://web.dev/articles/cls), as the
# browser reports it, in window.layoutShifts.
RECORD_LAYOUT_SHIFTS = """
window.layoutShifts = [];
new PerformanceObserver(list => {
    for (const entry of list.getEntries()) {
        if (!entry.hadRecentInput) window.layoutShifts.push(entry.value);
    }
}).observe({type: 'layout-shift', buffered: true});
"""


def open_page(
    browser,
    base: str,
    path: str,
    width: int = DESKTOP,
    height: int = 900,
    layout_shifts: bool = False,
    **context_options,
):
    """``(page, log)``: ``base + path`` loaded (until the network is idle) in a
    new context of ``browser`` (close it with ``page.context.close()``), all
    traffic and messages in ``log``: a request to another host than ``base``
    (which the browser :func:`booktools.chromium.launch` starts cannot reach)
    is one of its problems. ``layout_shifts``: the page's layout shifts recorded
    in ``window.layoutShifts``."""
    context = browser.new_context(
        viewport={"width": width, "height": height}, **context_options
    )
    log = PageLog()
    page = context.new_page()

    # Every request logged; one to another host never leaves the browser
    # (CHROMIUM_ARGS: no such request is routed anywhere), it fails, and
    # counts as a problem of the page.
    def requested(request):
        url = request.url
        log.requested.append(url)
        if not (url.startswith(base) or urlsplit(url).scheme in ("data", "blob")):
            log.external.append(url)

    page.on("request", requested)
    page.on("pageerror", lambda error: log.errors.append(str(error)))
    page.on("console", lambda msg: _log_console(log, msg))
    page.on(
        "requestfailed",
        lambda req: (
            req.url in log.external or log.failed.append(f"{req.url} {req.failure}")
        ),
    )
    page.on(
        "response",
        lambda resp: (
            resp.status >= 400 and log.failed.append(f"{resp.url} HTTP {resp.status}")
        ),
    )
    if layout_shifts:
        page.add_init_script(RECORD_LAYOUT_SHIFTS)
    page.goto(base + path, wait_until="networkidle")
    return page, log


def _log_console(log: PageLog, msg) -> None:
    if msg.type not in ("error", "warning"):
        return
    if any(pattern in msg.text for pattern in CONSOLE_ALLOWED):
        return
    log.console.append(f"[{msg.type}] {msg.text}")


def wait_for_math(page, timeout_ms: int = 15_000) -> None:
    """Wait until every formula of the page is drawn: the MathML written when
    the book was built, with a size of its own."""
    page.wait_for_function(
        """() => [...document.querySelectorAll('.math')].every(m => {
               const drawn = m.querySelector('math');
               const hidden = !m.getClientRects().length;  // e.g. in a folded answer
               return drawn && (hidden || drawn.getBoundingClientRect().width > 0);
           })""",
        timeout=timeout_ms,
    )


def settle(page) -> None:
    """Bring the page to what a reader sees once it has settled: every formula
    drawn, and every explorer drawn (its maps computed in the page)."""
    wait_for_math(page)
    page.wait_for_function(
        """() => [...document.querySelectorAll('.mha-explorer')].every(
               root => root.mhaExplorer && root.mhaExplorer.picture)""",
        timeout=15_000,
    )


def resize(page, width: int) -> None:
    """Change the window's width and wait until the page has settled at it
    (the theme animates its sidebars when they fold or unfold)."""
    page.set_viewport_size({"width": width, "height": 800})
    page.evaluate("""() => new Promise(resolve => {
        let last = '', same = 0;
        const check = () => {
            const r = document.querySelector('.bd-article').getBoundingClientRect();
            const now = `${r.left},${r.width}`;
            same = now === last ? same + 1 : 0;
            last = now;
            same >= 5 ? resolve() : setTimeout(check, 50);
        };
        check();
    })""")


def load_images(page) -> None:
    """Images load lazily, as the reader scrolls towards them: load them all now."""
    page.evaluate("""() => Promise.all([...document.images].map(img => {
        img.loading = 'eager';
        return img.decode().catch(() => null);
    }))""")


# Elements that stick out of the right edge of the page, and are not inside a
# box that scrolls or clips them: each as a short CSS-like path and its text.
OVERFLOW = """() => {
    const root = document.scrollingElement || document.documentElement;
    const width = root.clientWidth;
    if (root.scrollWidth <= width) return [];
    // Inside a box that scrolls or clips it, or in a fixed layer (e.g. a
    // folded-away sidebar), which never widens the page.
    const clipped = el => {
        for (let a = el; a && a !== document.body; a = a.parentElement) {
            const style = getComputedStyle(a);
            if (style.position === 'fixed') return true;
            if (a !== el && style.overflowX !== 'visible'
                && a.getBoundingClientRect().right <= width + 1) return true;
        }
        return false;
    };
    const out = [...document.body.querySelectorAll('*')].filter(el => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.right > width + 1 && !clipped(el);
    });
    const leaves = out.filter(el => !out.some(o => o !== el && el.contains(o)));
    const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
        + [...el.classList].slice(0, 2).map(c => '.' + c).join('');
    const path = el => {
        const parts = [];
        for (let a = el; a && a !== document.body && parts.length < 4; a = a.parentElement)
            parts.unshift(name(a));
        return parts.join(' > ');
    };
    return [`page is ${root.scrollWidth} px wide in a ${width} px window`].concat(
        leaves.slice(0, 8).map(el => `${path(el)} (right edge at `
            + `${Math.round(el.getBoundingClientRect().right)} px): `
            + JSON.stringify(el.textContent.trim().slice(0, 60))));
}"""


# Boxes that scroll sideways but whose content starts left of the box (a
# centred formula wider than a phone), so its beginning cannot be reached.
CUT_AT_LEFT = """() => [...document.querySelectorAll('.bd-article *')].filter(el => {
    if (!['auto', 'scroll'].includes(getComputedStyle(el).overflowX)) return false;
    if (el.scrollWidth <= el.clientWidth + 1) return false;
    const left = el.getBoundingClientRect().left - el.scrollLeft;
    return [...el.children].some(c => c.getBoundingClientRect().left < left - 1);
}).map(el => el.tagName.toLowerCase() + '.' + [...el.classList].join('.') + ': '
          + JSON.stringify(el.textContent.trim().slice(0, 60)))"""


def overflow(page) -> list[str]:
    return page.evaluate(OVERFLOW) + page.evaluate(CUT_AT_LEFT)


# Sections of the API page that together hold every kind of element, with
# its classes, of the page's text (code blocks aside): what axe checks there.
API_SAMPLE = (
    "module-mha.training.task",
    "module-mha.kv_cache",
    "what-import-mha-gives",
    "module-mha.explorer",
    "module-mha.block",
)

ONLY_CONTRAST = {"runOnly": {"type": "rule", "values": ["color-contrast"]}}


def axe_settings(path: str, mode: str) -> tuple[dict, dict]:
    """(context, options) of the axe-core run on a page layout in a mode."""
    # Code blocks are left out here: their colours are the theme's syntax
    # style, the same on every page (checked once below), and their
    # thousands of coloured spans would make axe take ten seconds a page.
    scope = {"exclude": [[".highlight"]]}
    # Only colours change with the mode: the other rules ran in light mode.
    options = ONLY_CONTRAST if mode == "dark" else {}
    if path == PAGES["api"]:
        # The API page's entries all share a few styles, and axe is slow on
        # the whole page (its colour-contrast rule, one text at a time):
        # API_SAMPLE, a few sections that hold every kind of element and
        # class the page's text has (a site test holds it so), is checked;
        # its header and sidebars are those of the other pages, checked whole.
        scope["include"] = [[f'[id="{section}"]'] for section in API_SAMPLE]
    return scope, options


def part_one() -> list[str]:
    """The pages of the book's first part, the core path (_toc.yml)."""
    first = [part for caption, part in book.parts().items() if caption != "intro"][0]
    return [f"{page}.html" for page in first]


# Printed outputs (a stream, or a result shown as plain text) wider than their
# box, which a reader would have to scroll to read; tables wider than the box
# that holds them. Each: its width, its box's, and its widest line or text.
TOO_WIDE = """() => {
    const article = document.querySelector('.bd-article');
    const outputs = [...article.querySelectorAll(
        'div.cell_output :is(div.output.stream, div.output.text_plain) pre')]
        .filter(pre => !pre.closest('.mha-explorer'));
    const printed = outputs.filter(pre => pre.scrollWidth > pre.clientWidth + 1)
        .map(pre => [pre.scrollWidth, pre.clientWidth, pre.textContent.split('\\n')
            .reduce((a, b) => a.length >= b.length ? a : b).trim().slice(0, 80)]);
    const tables = [...article.querySelectorAll('table')].map(table => {
        let box = table.parentElement;
        while (box !== article && getComputedStyle(box).overflowX === 'visible')
            box = box.parentElement;
        return [Math.round(table.getBoundingClientRect().width), box.clientWidth,
                table.textContent.trim().replace(/\\s+/g, ' ').slice(0, 80)];
    }).filter(([width, room]) => width > room + 1);
    // A printed line the column wraps (book.css) goes on to the right of
    // where it starts, so that a tensor's rows still read as rows: the first
    // character of each wrapped part against the line's own first character.
    // Every printed line the column wraps at all, folded ones (a solution)
    // unfolded for the count.
    const rows = [], wrapped = [];
    const folded = [...article.querySelectorAll('details:not([open])')];
    folded.forEach(d => { d.open = true; });
    for (const pre of outputs) {
        const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
        const range = document.createRange();
        let line = '', start = null, top = null, first = true, broken = false;
        const end = () => {
            if (broken) wrapped.push(line.trim());
            line = ''; start = null; top = null; first = true; broken = false;
        };
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (let i = 0; i < node.data.length; i++) {
                const c = node.data[i];
                if (c === '\\n') { end(); continue; }
                line += c;
                if (c === ' ') continue;
                range.setStart(node, i);
                range.setEnd(node, i + 1);
                const box = range.getBoundingClientRect();
                if (box.height === 0) continue;  // not drawn
                if (start === null) { start = box.left; top = box.top; continue; }
                if (box.top > top + box.height / 2) {  // a new part of the line
                    top = box.top;
                    broken = true;
                    if (box.left <= start + 1 && first) {
                        rows.push([Math.round(start), Math.round(box.left),
                                   line.trim().slice(0, 60)]);
                        first = false;
                    }
                }
            }
        }
        end();
    }
    folded.forEach(d => { d.open = false; });
    return {printed, tables, rows, wrapped};
}"""


def too_wide(page, path: str) -> dict[str, list]:
    """What a reader of ``page`` (the book's ``path``) would have to scroll to
    read: ``printed``, its printed outputs wider than their box (on the pages
    of Part 1), and ``tables``, its tables wider than theirs; each as
    (width, room, widest line or text); and ``rows``, the printed lines that
    wrap back to where they started or further left, where a reader would
    take the rest of a tensor's row for a row (Part 1; as (x of the line's
    start, x of the wrapped part, the line so far)); ``wrapped``, every printed
    line the column wraps at all, on every page, a folded solution's too
    (each line's text)."""
    found = page.evaluate(TOO_WIDE)
    if path not in part_one():
        found["printed"] = found["rows"] = []
    return found
