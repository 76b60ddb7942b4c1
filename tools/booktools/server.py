"""The built site served on 127.0.0.1, for the browser tests, the benchmarks
and the screenshots.

Public names: :func:`serve` (a context manager yielding the site's address),
with ``late`` (a slow network: everything but pages and style sheets sent
that many seconds late) and ``gzip`` (text compressed when the browser asks
for it, as GitHub Pages serves it).
"""

from __future__ import annotations

import contextlib
import functools
import gzip as gzip_module
import http.server
import io
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

# What a static host compresses (WOFF2 is compressed already).
COMPRESSED = {
    ".html",
    ".js",
    ".css",
    ".json",
    ".svg",
    ".txt",
    ".woff",
    ".ttf",
    ".map",
    ".inv",
}


class _Handler(http.server.SimpleHTTPRequestHandler):
    late = 0.0
    gzip = False

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.late and not urlsplit(self.path).path.endswith((".html", ".css", "/")):
            time.sleep(self.late)
        super().do_GET()

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        wants_gzip = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (
            self.gzip and wants_gzip and path.suffix in COMPRESSED and path.is_file()
        ):
            return super().send_head()
        body = gzip_module.compress(path.read_bytes(), compresslevel=6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=600")  # what GitHub Pages sends
        self.end_headers()
        return io.BytesIO(body)


@contextlib.contextmanager
def serve(site: Path, *, late: float = 0.0, gzip: bool = False) -> Iterator[str]:
    """Serve the folder ``site`` on a free port of 127.0.0.1 while the block
    runs; yields its address (``http://127.0.0.1:PORT/``).

    ``late``: seconds by which every file but pages and style sheets (scripts,
    fonts, images) is delayed, so that a browser draws the page before they
    arrive. ``gzip``: compress text (level 6, as most web servers do) when
    the browser accepts it."""
    if not (Path(site) / "index.html").exists():
        raise FileNotFoundError(f"no site in {site}: run `make book` first")
    handler = type("Handler", (_Handler,), {"late": late, "gzip": gzip})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(site))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
