"""Tool lists for large APIs: token budgets (:mod:`.budget`, :mod:`.tokens`), groups
(:mod:`.groups`), native deferred loading (:mod:`.deferred`), lint (:mod:`.lint`), search over
the functions (:mod:`.search`) and the portable search -> describe -> invoke trio
(:func:`discover`).

Each module has one job and works on a compiled application (anything with the
:class:`~httpllm.toolsets._compiled.Compiled` attributes); ``Application`` methods and the
CLI call them. This package imports nothing above ``execute``.
"""

from httpllm.toolsets.discover import Discovery, discover

__all__ = ["Discovery", "discover"]
