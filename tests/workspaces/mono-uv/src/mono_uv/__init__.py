"""The workspace root's own package: its ruff finding is deliberate."""

import json


def version():
    return "0.1.0"
