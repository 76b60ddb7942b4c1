"""The book's tooling, one importable package for the tests, the benchmarks,
the scripts and the Makefile (no ``sys.path`` edits anywhere).

Modules and their public names (each module's docstring says more):

- ``booktools.book``: ``ROOT``, ``SITE``, ``TOC``, ``PAGES``, ``parts``,
  ``pages``, ``notebooks``, ``html_pages``, ``explorer_pages``,
  ``explorer_data``, ``fullest_explorer_page``, ``longest_first``,
  ``misplaced``, ``load_extension``: where the book is, its
  pages read from ``_toc.yml`` by Jupyter Book's own parser, a site
  extension of ``_ext/`` for its unit test.
- ``booktools.server``: ``serve``: the built site on 127.0.0.1, at full
  speed, as a slow network delivers it, or gzipped.
- ``booktools.chromium``: ``CHROMIUM``, ``CHROMIUM_ARGS``, ``launch``:
  Debian's Chromium as every browser test and benchmark starts it.
- ``booktools.pages``: ``PHONE``, ``DESKTOP``, ``layouts``, ``PageLog``,
  ``open_page``, ``wait_for_math``, ``settle``, ``resize``, ``load_images``,
  ``overflow``, ``axe_settings``, ``ONLY_CONTRAST``: a page of the site
  opened, settled and measured.
- ``booktools.explorers``: reading and driving an explorer of the site.
- ``booktools.explorer_site``: ``ExplorerMime``, ``setup``: the explorer on
  the site, myst-nb's render plugin for its output type (an entry point of
  this package) and the Sphinx extension that serves its front end.
- ``booktools.lab``: ``jupyterlab``, ``open_notebook``, ``run_all``,
  ``LiveExplorer``, ``notebook_shown``, ``markdown_cells``,
  ``following_cell``, ``SETTINGS``, ``WATCH_JS``: the chapters in a real
  JupyterLab.
- ``booktools.timed``: one stage of ``make test`` timed (the CPU time of
  every process it starts), and the table ``make test`` ends with.
- ``booktools.setup_cell``: the chapters' set-up cell (``make setup-cell``).
- ``booktools.wordcount``: the words of prose of each built page.

``python -m booktools notebooks`` lists the chapters (the Makefile's way in);
the stages of ``make test`` are the Makefile's own targets.
"""
