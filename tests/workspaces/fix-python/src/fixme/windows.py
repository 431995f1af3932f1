"""A module whose lines end with CRLF, as Windows editors write them."""
import re
import json
from collections import OrderedDict


def describe(items: list) -> str:
    text = f"Ünïcödé 🐍"
    if items == []:
        return text
    lowered = [x.lower() for x in list(items)]
    l = set([x for x in lowered])
    return "{}: {}".format(text, sorted(l))
