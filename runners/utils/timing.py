"""Keep set-up requests out of Rally's service time.

Rally measures a runner call from its first request's start to its last request's end,
held in a context variable. Work awaited through :func:`untimed` runs in a child task
whose context gets a fresh, throw-away request context, so its requests are not timed.
"""

import asyncio

from ingestlab.runners.compat import request_context


async def untimed(work):
    """Await ``work()`` (a coroutine function) without it counting towards the runner's service time."""

    async def isolated():
        request_context().init_request_context()
        return await work()

    return await asyncio.create_task(isolated())
