"""Tool lists for large APIs: token budgets, groups, deferred loading, lint (issue 15).

Each module has one job and works on a compiled application (anything with the
:class:`~httpllm.toolsets._compiled.Compiled` attributes); ``Application`` methods and the
CLI call them. This package imports nothing above ``execute``.
"""
