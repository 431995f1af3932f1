"""Greetings in several scripts, with deliberate findings of every kind of fix."""
import os
import sys
from typing import Dict, List, Optional


def greet(name: Optional[str], loud: bool = False) -> str:
	if name == None:	# E711 after a tab
		return f"👋 {'世界'}" if loud == True else f"こんにちは"
	return "%s 😀 %s" % ("🙂", name)


def tally(words: List[str], seen: Dict[str, int] = {}) -> Dict[str, int]:
    counts = dict()
    for word in words:  # 日本語のコメント
        counts[word] = counts.get(word, 0) + 1 ;
    unused = len(words)
    # print(counts)
    return counts


def label(value: int) -> str:
    if value > 0:
        result = "positive 🚀"
    else:
        result = "其他 ✨"
    return "{} → {}".format(value, result)


def later() -> str:
    return undefined_name + "ß"   
