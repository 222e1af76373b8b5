"""``python -m httpllm`` runs the command line."""

from httpllm.cli import main

raise SystemExit(main())
