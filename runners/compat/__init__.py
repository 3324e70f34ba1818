"""Everything the pack takes from the load generator that runs it: Rally (``esrally`` 2.12, 2.13) or opensearch-benchmark
(OSB 2.4, Rally's fork), and their clients. Nothing else in the pack imports their internals, and they are imported
inside the functions that use them (the other generator is absent; the pack's CLI starts without them). The first use
checks the installed version and fails with one line naming it and the supported range when it is outside.
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
