"""Keep set-up requests out of Rally's service time: work awaited through :func:`untimed` runs in a child task with a
throw-away request context (where Rally keeps a call's first request start and last request end).
"""

import asyncio

from ingestlab.runners.compat import request_context


async def untimed(work):
    """Await ``work()`` (a coroutine function) without it counting towards the runner's service time."""

    async def isolated():
        request_context().init_request_context()
        return await work()

    return await asyncio.create_task(isolated())
