import pytest

from inventory.pricing import label
from inventory.report import report, summary
from inventory.models import Item


def test_label_mentions_note() -> None:
    assert label(Item("crate", 12.0), "fragile") == "crate (fragile)"


def test_report_lists_items() -> None:
    assert report([Item("bolt", 0.25, quantity=3)]) == "bolt: 3"


def test_summary_counts_units() -> None:
    items = [Item("bolt", 0.25, quantity=3), Item("nut", 0.5, quantity=1)]
    assert summary(items) == {"items": 2, "units": 4}
