"""The startup and memory baseline: a pygls server with no features of its own, on stdio as lintel runs."""

from pygls.lsp.server import LanguageServer

if __name__ == "__main__":
    LanguageServer("bare", "0").start_io()
