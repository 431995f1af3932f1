"""`lintel cache stats|clear`: what the result cache of `lintel check` holds, and emptying it (engine.resultcache)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from lintel.engine.resultcache import ResultCache, default_cache_dir

EXIT_OK = 0


def run(args: argparse.Namespace) -> int:
    cache = ResultCache(Path(args.cache_dir).expanduser() if args.cache_dir else default_cache_dir())
    if args.action == "clear":
        removed = cache.clear()
        print(f"lintel: removed {removed} cached file{'' if removed == 1 else 's'} from {cache.directory}")
        return EXIT_OK
    stats = cache.stats()
    if args.json:
        document = {
            "directory": str(stats.directory),
            "entries": stats.entries,
            "sizeBytes": stats.size_bytes,
            "maxBytes": cache.max_bytes,
            "tools": stats.tools,
        }
        print(json.dumps(document, indent=2))
        return EXIT_OK
    print(f"directory  {stats.directory}")
    print(f"entries    {stats.entries}")
    print(f"size       {stats.size_bytes / 2**20:.1f} MiB of {cache.max_bytes / 2**20:.0f} MiB")
    print(f"tools      {stats.tools} version probes remembered")
    return EXIT_OK
