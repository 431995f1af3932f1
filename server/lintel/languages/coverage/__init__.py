"""What every language's coverage reader shares: the index it fills in (model), the coverage data formats it
reads (data) and what it asks of the engine that runs it (base)."""
