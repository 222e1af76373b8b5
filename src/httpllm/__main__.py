"""``python -m httpllm`` runs the command line."""

from httpllm.cli import main

if __name__ == "__main__":  # not when ``serve --workers`` processes re-import it
    raise SystemExit(main())
