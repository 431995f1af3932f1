"""Price labels: every rule here has a finding ruff can fix, and some it cannot."""

import os
import sys
from typing import List, Optional


def label(name: Optional[str], price: float) -> str:
    if name == None:
        name = "article — sans nom 😀"
    if (price > 100) == True:
        return f"{name}: premium"
    return f"{name}: {price:.2f}"


def labels(names: List[str]) -> List[str]:
    l = 1
    unused = l + 1
    return list([label(n, 2.0) for n in names])


def banner() -> str:
	return f"【セール】"  # a tab-indented line with wide characters
