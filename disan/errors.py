"""Exceptions whose message is one clear sentence saying what is wrong and what to do."""


class DisanError(Exception):
    """Base class: every error the API raises on purpose."""


class InputError(DisanError, ValueError):
    """The text cannot be encoded (empty, too long, …)."""


class ModelNotFoundError(DisanError, LookupError):
    """No pretrained model or checkpoint file under that name."""


class CheckpointError(DisanError, ValueError):
    """A checkpoint file is missing, truncated, tampered with or inconsistent."""


class OutputError(DisanError, OSError):
    """An output file cannot be written (missing folder, no permission, full disk)."""


def run_script(main) -> None:
    """Exit with ``main()``'s status; a ``DisanError`` (a missing README marker, say) is one line and status 2."""
    import sys

    try:
        sys.exit(main())
    except DisanError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
