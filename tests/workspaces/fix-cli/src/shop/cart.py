"""A shopping cart: its findings have safe fixes (imports, typing), an unsafe one and none."""
import sys
import os
from typing import List, Optional


def total(prices: List[float], discount: Optional[float] = None) -> float:
    unused = len(prices)
    l = sum(prices)
    if discount is not None:
        return l * (1 - discount)
    return l


def names(items: dict) -> list:
    return list([name for name in items.keys()])
