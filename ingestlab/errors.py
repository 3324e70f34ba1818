"""The one exception type for mistakes a user can fix: the CLI prints it without a traceback."""


class IngestlabError(Exception):
    """A clear, actionable failure (missing tool, port in use, node did not start, bad input)."""


class RaceFailed(IngestlabError):
    """The benchmark tool ran and its race failed (a request's error, a lost node): what the race measured, not a
    mistake in what it was given."""
