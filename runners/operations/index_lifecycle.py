"""Runners ``recreate-index`` and ``check-doc-count``: recreate an index before a measured write task, and check
afterwards that it holds every document."""

from __future__ import annotations

from ingestlab.runners.utils.runner_stats import record
from ingestlab.runners.writing.indices import DocumentsLost, count_documents, recreate_index

RECREATE = "recreate-index"
CHECK = "check-doc-count"


class RecreateIndex:
    async def __call__(self, es, params):
        await recreate_index(es, params["index"], params["index-body"])
        return {"weight": 1, "unit": "ops", "success": True}

    def __repr__(self):
        return RECREATE


class CheckDocCount:
    async def __call__(self, es, params):
        found = await count_documents(es, params["index"])
        record({"task": params.get("operation"), "method": CHECK, "index": params["index"], "documents": found})
        if found != params["expected"]:
            raise DocumentsLost.mismatch(params["index"], found, params["expected"], f"the task before wrote {params['expected']}")
        return {"weight": 1, "unit": "ops", "success": True, "documents": found}

    def __repr__(self):
        return CHECK
