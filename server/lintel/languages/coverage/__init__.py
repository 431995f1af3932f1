"""What every language's coverage reader (`lintel.languages.<name>.coverage`) shares: the index it fills in
(model), the error and helpers of its data readers (data) and what it asks of the engine that runs it (base)."""
