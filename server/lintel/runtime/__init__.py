"""Processes: the one runner for tools, the orphan guard, and long-lived child processes (pipe and framing).
Imports only lintel.core."""
