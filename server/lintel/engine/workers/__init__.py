"""Warm lint workers: a linter kept running per (tool, project root), so lint on open, change and save does not
start the tool each time (docs/architecture.md, Warm workers). The findings are the CLI's; any failure falls back to the
CLI run."""
