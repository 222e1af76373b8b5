"""Tool lists for large APIs: search over the functions (:mod:`.search`) and the portable
search -> describe -> invoke trio (:func:`discover`)."""

from httpllm.toolsets.discover import Discovery, discover

__all__ = ["Discovery", "discover"]
