"""The page's main-thread time, from a Chromium trace (DevTools protocol
``Tracing``): how much work the renderer's main thread did between two moments,
which depends far less on the machine's load than the wall-clock latency.

    trace = Trace(cdp)          # a CDP session of the page
    trace.start()
    ...                         # the page sets performance.mark(START), then END
    events = trace.stop()
    main_thread_ms(events)      # {"cpu": ms, "busy": ms, "by": {phase: ms}}

``cpu`` is the main thread's own CPU time (a trace event's ``tdur``) in the
top-level tasks it ran from the first input event after the mark ``START``
to the mark ``END``; ``busy`` is the same tasks' wall-clock time (longer when
other processes take the cores). ``by`` splits ``busy`` by phase (script,
style, layout, paint, ...), from each event's time less its children's
(``events``: the same by trace event).
"""

from __future__ import annotations

import collections

CATEGORIES = ",".join(
    [
        "devtools.timeline",
        "disabled-by-default-devtools.timeline",
        "blink.user_timing",
        "toplevel",
    ]
)
START, END = "mha-armed", "mha-painted"
TASKS = {"RunTask", "ThreadControllerImpl::RunTask"}
INPUT = {
    "touchstart", "pointerdown", "mousedown", "keydown", "click", "input", "change",
}  # fmt: skip
PHASES = {
    "script": {"FunctionCall", "EvaluateScript", "TimerFire", "FireAnimationFrame",
               "EventDispatch", "RunMicrotasks", "V8.GC_SCAVENGER_SCAVENGE_PARALLEL",
               "MinorGC", "MajorGC", "v8.compile", "CompileScript"},
    "parse HTML": {"ParseHTML"},
    "style": {"UpdateLayoutTree", "Document::recalcStyle", "Document::updateStyle"},
    "layout": {"Layout", "LocalFrameView::performLayout", "LocalFrameView::layout"},
    "paint": {"Paint", "PrePaint", "Blink.PrePaint.UpdateTime", "Layerize",
              "PaintArtifactCompositor::Update", "Blink.CompositingInputs.UpdateTime",
              "Commit", "CullRectUpdate", "Blink.Paint.UpdateTime",
              "CanvasRenderingContext2D::FinalizeFrame",
              "Canvas2DResourceProvider::ProduceCanvasResource"},
}  # fmt: skip


class Trace:
    def __init__(self, cdp):
        self.cdp = cdp
        self.events: list[dict] = []
        self.done = False
        cdp.on("Tracing.dataCollected", lambda e: self.events.extend(e["value"]))
        cdp.on("Tracing.tracingComplete", self._complete)

    def _complete(self, _event) -> None:
        self.done = True

    def start(self) -> None:
        self.events, self.done = [], False
        self.cdp.send(
            "Tracing.start", {"categories": CATEGORIES, "transferMode": "ReportEvents"}
        )

    def stop(self, page) -> list[dict]:
        self.cdp.send("Tracing.end")
        while not self.done:
            page.wait_for_timeout(20)
        return self.events


def main_thread_ms(events: list[dict]) -> dict:
    """The main thread's work from the first input event after mark START to
    mark END (see the module's docstring)."""
    marks = {e["name"]: e for e in events if e.get("name") in (START, END)}
    thread = marks[END]["pid"], marks[END]["tid"]  # the page's main thread
    armed, end = marks[START]["ts"], marks[END]["ts"]
    mine = sorted(
        (e for e in events if (e["pid"], e["tid"]) == thread and e.get("ph") == "X"),
        key=lambda e: (e["ts"], -e.get("dur", 0)),
    )
    inputs = [
        e["ts"]
        for e in mine
        if e["name"] == "EventDispatch"
        and e.get("args", {}).get("data", {}).get("type") in INPUT
        and armed <= e["ts"] <= end
    ]
    start = min(inputs, default=armed)
    # The top-level tasks that ran between the input and the mark (the first
    # one holds the input event), and every event inside them.
    tasks, until = [], -1.0
    for e in mine:
        if e["name"] in TASKS and e["ts"] >= until:
            until = e["ts"] + e.get("dur", 0)
            if until > start and e["ts"] <= end:
                tasks.append(e)
    cpu = sum(e.get("tdur", e.get("dur", 0)) for e in tasks) / 1000
    busy = sum(e.get("dur", 0) for e in tasks) / 1000
    inside = [
        e
        for e in mine
        if any(t["ts"] <= e["ts"] < t["ts"] + t.get("dur", 0) + 1 for t in tasks)
    ]
    own = collections.Counter()
    stack: list[list] = []  # [name, end, time less children's]
    for e in inside:
        duration = e.get("dur", 0) / 1000
        while stack and stack[-1][1] <= e["ts"]:
            name, _, left = stack.pop()
            own[name] += left
        if stack:
            stack[-1][2] -= duration
        stack.append([e["name"], e["ts"] + e.get("dur", 0), duration])
    for name, _, left in stack:
        own[name] += left
    by = collections.Counter()
    for name, ms in own.items():
        phase = next((p for p, names in PHASES.items() if name in names), "other")
        by[phase] += ms
    return {"cpu": cpu, "busy": busy, "by": dict(by), "events": dict(own)}
