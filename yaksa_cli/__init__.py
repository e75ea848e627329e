"""The `yaksa` command line, outside the library: it may import `serving` (for `yaksa serve`) and
`flows` (for `yaksa build --runner dask`), which `yaksa` itself never does.

One module per command group: data (link-data), build (build, indexes, publish), query (search, ask),
evaluate (eval …), regress (regress …), critique, serve, db (db upgrade); common holds what they share.
"""

from yaksa_cli.app import app, main

__all__ = ["app", "main"]
