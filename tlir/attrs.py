"""Attributes whose parameters are right by construction, built without xDSL's
attribute verifier.

xDSL verifies every `ParametrizedAttribute` it constructs (its parameters'
constraints, then the class's `verify`). The JSON importer builds one location
and one dense payload per node from parameters it has just made of the right
kinds; verifying them again is a fifth of importing a 1,000-node graph. The
attribute built here is the one `cls(*params)` builds (same fields, equal and
hashing alike); only the check is skipped, so callers must pass parameters
`cls(*params)` would accept.
"""

from __future__ import annotations

from typing import TypeVar

from xdsl.dialects.builtin import NameLoc, NoneAttr, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute

A = TypeVar("A", bound=ParametrizedAttribute)

NONE = NoneAttr()
"""One `NoneAttr` for every location that has no child (it has no parameters)."""


def unverified(cls: type[A], *params: Attribute) -> A:
    """`cls(*params)` without its verifier (the parameters must be valid)."""
    attr = cls.__new__(cls)
    for (field, _), param in zip(cls.get_irdl_definition().parameters, params, strict=True):
        object.__setattr__(attr, field, param)
    return attr


def name_location(text: str) -> NameLoc:
    """`NameLoc(StringAttr(text), NoneAttr())`."""
    return unverified(NameLoc, StringAttr(text), NONE)
