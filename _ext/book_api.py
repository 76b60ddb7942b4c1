"""The API page's entries with the types of their signature once, and none
for a constant.

A Sphinx extension for two things ``autodoc_typehints: description`` does:

- Sphinx's autodoc records the parameters of *every* callable it documents,
  a constant that is a callable object included
  (``mha.training.agreement.GRAMMAR``, a ``Grammar``): the constant's entry
  then listed its ``__call__``'s parameters and return type, as if it were a
  function. Right after autodoc records them, this drops what it recorded
  for a module's or a class's data.
- It adds the parameters' types to *each* list of fields of an entry. A
  docstring with a section napoleon draws apart (``Shape``, between ``Args``
  and ``Raises``) has two, so ``MultiHeadAttention`` listed its parameters
  twice, the second time with their types alone. Right after the types are
  added, this keeps each parameter's and the return type's fields in the
  first list that has them only, and puts every list's fields in the usual
  order: parameters, then what is returned, then what is raised (the types
  were added after a docstring's own Raises).
- A dataclass whose docstring describes every field under ``Attributes``
  (``mha.training.model.Reading``) had its fields twice: as the parameters
  of its ``__init__``, with their types alone, and as its attributes, with
  their types and descriptions. Its entry now lists them once, as
  attributes (the signature still names them).
- A type alias is documented as data (``mha.training.task.Draw``), and the
  Python domain looks a type up among classes only: where an annotation
  names the alias, the link now finds its entry.
"""

from __future__ import annotations

import dataclasses
import inspect
import re

from docutils import nodes

DATA = ("data", "attribute")
TYPED = ("param", "type", "rtype")  # the fields autodoc's types go into
# A field's place in its list, by the first word of its name (others last).
ORDER = {"param": 0, "parameter": 0, "arg": 0, "argument": 0, "type": 0,
         "keyword": 0, "kwarg": 0, "kwtype": 0,
         "returns": 1, "return": 1, "rtype": 1,
         "raises": 2, "raise": 2, "except": 2, "exception": 2}  # fmt: skip


def setup(app):
    # After sphinx.ext.autodoc.typehints.record_typehints (priority 500).
    app.connect("autodoc-process-signature", forget_call_signature, priority=600)
    # After sphinx.ext.autodoc.typehints.merge_typehints (priority 500).
    app.connect("object-description-transform", keep_fields_once, priority=600)
    app.connect("missing-reference", link_type_alias)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def keep_fields_once(app, domain, objtype, contentnode) -> None:
    """An entry's field of a parameter (its description, its type) and of the
    return type only in the first of its field lists that has it; a list left
    empty goes; each list's fields in the order parameters, returns, raises."""
    seen: set[tuple[str, str]] = set()
    for field_list in [n for n in contentnode if isinstance(n, nodes.field_list)]:
        here = set()
        for field in list(field_list):
            words = field[0].astext().split()
            if not words or words[0] not in TYPED:
                continue
            # ":param x:", ":param int x:" and ":type x:" are all x's
            key = ("rtype", "") if words[0] == "rtype" else ("param", words[-1])
            if key in seen:
                field_list.remove(field)
            else:
                here.add(key)
        seen |= here
        if not len(field_list):
            contentnode.remove(field_list)
            continue
        fields = sorted(
            field_list.children, key=_place
        )  # stable: ties keep their order
        field_list.children = []
        field_list.extend(fields)


def _place(field) -> int:
    words = field[0].astext().split()
    return ORDER.get(words[0], 3) if words else 3


def forget_call_signature(app, objtype, name, obj, options, signature, annotation):
    """A constant's entry (``objtype`` data or attribute) gets no parameters."""
    if objtype in DATA or (objtype == "class" and fields_are_attributes(obj)):
        app.env.temp_data.get("annotations", {}).pop(name, None)


def fields_are_attributes(obj) -> bool:
    """Whether ``obj`` is a dataclass whose docstring's ``Attributes`` section
    describes each of its fields."""
    if not (inspect.isclass(obj) and dataclasses.is_dataclass(obj)):
        return False
    section = re.search(
        r"^Attributes:\n((?:[ \t]+.*\n?|\n)*)", inspect.getdoc(obj) or "", re.M
    )
    if not section:
        return False
    # "name:", "name (type):" and "steps, batch_size, lr:" at the first indent
    names = re.findall(r"^[ \t]{4}(\w+(?:, \w+)*)(?: \(.*\))?:", section.group(1), re.M)
    described = {name for group in names for name in group.split(", ")}
    return {field.name for field in dataclasses.fields(obj)} <= described


def link_type_alias(app, env, node, contnode):
    """A type that names no class, linked to the data of that name (a type
    alias), or ``None`` (Sphinx then reports the reference as missing)."""
    if node.get("refdomain") != "py" or node.get("reftype") != "class":
        return None
    return env.get_domain("py").resolve_xref(
        env, node["refdoc"], app.builder, "data", node["reftarget"], node, contnode
    )
