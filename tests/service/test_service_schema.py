"""Schemathesis against the served OpenAPI schema: requests generated from it (bounded, with a
fixed seed), every check of schemathesis passing, no answer a server error."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is in the test extra")
from hypothesis import HealthCheck, settings  # noqa: E402
from service_helpers import make_beir  # noqa: E402

from rankscope.service import EvaluationService, create_app  # noqa: E402
from rankscope.service.web.dependencies import LOOPBACK_HOSTS  # noqa: E402

_folder = Path(tempfile.mkdtemp(prefix="rankscope-schema-"))
make_beir(_folder / "beir", n_queries=5, n_docs=20)
_service = EvaluationService(_folder / "tasks.db", max_running=1)
# A finished task, so that the operations on a task id have one that exists.
_service.run(_service.submit(_folder / "beir", "bm25").id)
# schemathesis calls the app in-process, as host "testserver".
app = create_app(_service, data_roots=[_folder], allowed_hosts=[*LOOPBACK_HOSTS, "testserver"])
# A request can fit the schema and still name a dataset that does not exist, a measure the
# profile does not know or a URL the server may not call: the API answers 422 with the reason,
# as its schema documents. Every other check runs as schemathesis ships it.
config = schemathesis.config.SchemathesisConfig.from_dict(
    {
        "checks": {
            "positive_data_acceptance": {
                "expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "422"]
            }
        }
    }
)
schema = schemathesis.openapi.from_asgi("/openapi.json", app, config=config)


@schema.parametrize()
@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_the_api_keeps_its_schema(case: Any) -> None:
    case.call_and_validate()
