"""Lazy attributes for a package's ``__init__``: a public name is imported on first use.

A package lists ``name -> module`` once; ``from package import name`` and ``package.name`` then import
only the module that defines it, so importing the package stays cheap and loads nothing the caller
does not use (the real-text engine, for instance, never loads an experiment or the LLM client).
"""

from __future__ import annotations

import importlib


def lazy_exports(package: str, exports: dict[str, str]):
    """Return ``(__getattr__, __dir__)`` for a package whose public names live in submodules.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    exports : dict of str to str
        Public name -> absolute module that defines it.
    """

    def __getattr__(name: str):
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        globals_ = importlib.import_module(package).__dict__
        globals_[name] = value  # later lookups skip __getattr__
        return value

    def __dir__():
        return sorted(set(importlib.import_module(package).__dict__) | set(exports))

    return __getattr__, __dir__
