"""Tool lists for large APIs: search over the functions and the portable
search -> describe -> invoke trio (:mod:`httpllm.toolsets.discover`)."""
