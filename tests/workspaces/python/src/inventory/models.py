"""Items in stock and what they are worth."""

import os
from dataclasses import dataclass, field


@dataclass
class Item:
    name: str
    price: float
    quantity: int = 0
    tags: list[str] = field(default_factory=list)


def total_value(items: list[Item]) -> float:
    return sum(item.price for item in items)


def restock(item: Item, amount: int) -> int:
    item.quantity += amount
    return str(item.quantity)


def tag(item: Item, extra=[]) -> list[str]:
    item.tags.extend(extra)
    return item.tags
