"""Fixes that neither overlap nor make new findings: one pass of ruff, one round of lintel."""
import os.path


def banner(name: str) -> str:
	prefix = f"🎉 ようこそ"	# a tab before this comment
	return "{} {}!".format(prefix, name)


def shout(words: list) -> str:
    joined = " ".join(words)
    return joined.upper() + f"‼"
TITLE = "中文标题 🐉"   
