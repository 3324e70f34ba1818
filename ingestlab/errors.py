"""The one exception type for mistakes a user can fix: the CLI prints it without a traceback."""


class IngestlabError(Exception):
    """A clear, actionable failure (missing tool, port in use, node did not start, bad input)."""


class RaceFailed(IngestlabError):
    """The benchmark tool ran and its race failed (a request's error, a lost node), not a mistake in what it was given.
    ``cause`` is the one line that says why (:mod:`ingestlab.rally.failure`); the message's first line names it too."""

    def __init__(self, message: str, cause: str | None = None):
        super().__init__(message)
        self.cause = cause or (message.splitlines()[0] if message else "")
