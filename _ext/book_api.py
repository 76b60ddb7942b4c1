"""The API page's constants documented as constants.

A Sphinx extension. With ``autodoc_typehints: description`` Sphinx's autodoc
records the parameters of *every* callable it documents, a constant that is
a callable object included (``mha.training.agreement.GRAMMAR``, a
``Grammar``): the constant's entry then listed its ``__call__``'s
parameters and return type, as if it were a function. Right after autodoc
records them, this drops what it recorded for a module's or a class's data.
"""

from __future__ import annotations

DATA = ("data", "attribute")


def setup(app):
    # After sphinx.ext.autodoc.typehints.record_typehints (priority 500).
    app.connect("autodoc-process-signature", forget_call_signature, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def forget_call_signature(app, objtype, name, obj, options, signature, annotation):
    """A constant's entry (``objtype`` data or attribute) gets no parameters."""
    if objtype in DATA:
        app.env.temp_data.get("annotations", {}).pop(name, None)
