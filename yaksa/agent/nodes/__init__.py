"""One module per stage of the agent graph (see yaksa/agent/graph.py for the wiring)."""
