"""The book's tooling, one importable package for the tests, the benchmarks,
the scripts and the Makefile (no ``sys.path`` edits anywhere).

Modules and their public names (each module's docstring says more):

- ``booktools.book``: ``ROOT``, ``SITE``, ``TOC``, ``PAGES``, ``parts``,
  ``pages``, ``notebooks``, ``html_pages``, ``explorer_pages``,
  ``fullest_explorer_page``, ``load_extension``: where the book is, its
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
- ``booktools.lab``: ``jupyterlab``, ``open_notebook``, ``run_all``,
  ``LiveExplorer``, ``notebook_shown``, ``markdown_cells``,
  ``following_cell``, ``SETTINGS``, ``WATCH_JS``: the chapters in a real
  JupyterLab.
- ``booktools.stages``: ``STAGES``, ``OTHER_MACHINE``, ``STATIC``,
  ``VALIDATING``, ``commands``, ``nbval_command``, ``longest_first``,
  ``environment``, ``compile_sources``, ``run``, ``Timing``, ``test``: the
  stages of ``make test``, defined once.
- ``booktools.setup_cell``: the chapters' set-up cell (``make setup-cell``).
- ``booktools.wordcount``: the words of prose of each built page.

``python -m booktools`` is the command line (``notebooks``, ``run STAGE``,
``test``).
"""
