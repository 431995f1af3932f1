"""The ground floor: the records every layer shares (Issue, Fix, positions, column units, errors) and small pure
helpers for paths and files. Imports nothing else from lintel."""
