"""The engine: configuration, detection, checks and their runs, fixes, coverage, warm workers and the actions the
frontends call. Imports lintel.core, lintel.runtime and lintel.languages; nothing from pygls."""
