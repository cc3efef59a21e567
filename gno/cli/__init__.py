"""The gno command line: thin typer commands over the registry's handlers."""
