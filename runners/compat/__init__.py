"""Everything the pack takes from the load generator that runs it, in one package: Rally (``esrally``, 2.12 and 2.13)
or opensearch-benchmark (OSB, 2.4, Rally's fork), and their clients (``elasticsearch`` 8, ``opensearch-py`` 2).

The runners and track processors call :func:`request`, :data:`ApiErrors` / :func:`status`, :func:`request_context`,
:func:`raw_responses` and the loader pieces here; the pack's launcher and track reader call the Rally hooks below.
Nothing else in the pack imports esrally's or OSB's internals. The first use checks the version that is installed
and fails with one line naming it and the supported range when it is outside.
"""

from __future__ import annotations

from ingestlab.runners.compat.client import ApiErrors, error_body, raw_responses, request, request_context, status
from ingestlab.runners.compat.core import SUPPORTED, Unsupported, checked, engine
from ingestlab.runners.compat.launching import (
    end_quickly,
    isolate_actor_system,
    move_actor_port,
    on_finished_tasks,
    osb_move_actor_port,
    poll_tasks_every,
    run_osb,
    run_rally,
    task_figures,
)
from ingestlab.runners.compat.loading import (
    add_user_tags,
    assembled_template,
    client_options,
    console_info,
    data_dirs,
    data_error,
    loader,
    other_rally_processes,
    processor_base,
    register_processor,
    rendered_track,
    schedules,
    template_globals,
    test_mode,
)
from ingestlab.runners.compat.ndjson import pass_built_bodies

__all__ = [
    "ApiErrors",
    "SUPPORTED",
    "Unsupported",
    "add_user_tags",
    "assembled_template",
    "checked",
    "client_options",
    "console_info",
    "data_dirs",
    "data_error",
    "end_quickly",
    "isolate_actor_system",
    "engine",
    "error_body",
    "loader",
    "move_actor_port",
    "on_finished_tasks",
    "osb_move_actor_port",
    "other_rally_processes",
    "pass_built_bodies",
    "poll_tasks_every",
    "processor_base",
    "raw_responses",
    "register_processor",
    "rendered_track",
    "request",
    "request_context",
    "run_osb",
    "run_rally",
    "schedules",
    "status",
    "task_figures",
    "template_globals",
    "test_mode",
]
