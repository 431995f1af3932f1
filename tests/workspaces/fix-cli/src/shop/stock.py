"""Stock levels: a file with Windows line ends and a non-ASCII name, whose fixes must keep both."""
import json
from typing import Dict


def levels(raw: str) -> Dict[str, int]:
    café = json.loads(raw)
    if café == None:
        return dict()
    return {k: v for k, v in café.items()}
