"""A language's function named by its module, imported on its first call: a spec names its test finding, test
selection and coverage this way, so loading the languages (every lint does) does not load what only tests use."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Deferred:
    """`module.name`, imported when first called (then a dictionary lookup: the module stays in sys.modules)."""

    module: str
    name: str

    def target(self) -> Callable[..., Any]:
        found: Callable[..., Any] = getattr(importlib.import_module(self.module), self.name)
        return found

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.target()(*args, **kwargs)


def deferred(module: str, name: str) -> Callable[..., Any]:
    """`module.name` as a function that imports it on first call; typed as any callable, so it stands in for the
    Selector, Discoverer or Measure it names."""
    return Deferred(module, name)
