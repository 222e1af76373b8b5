"""The documents of the client matrix, the calls made on each, and the upstream API that
answers them (a Starlette app on 127.0.0.1).

Each document has three calls with valid arguments, each answered 2xx by the upstream with a
body its operation's output schema accepts, and one call with invalid arguments, which the
server must answer with an ``isError`` result without sending anything. The upstream records
every request it receives (``SEEN``) and answers 404 to any it was not told about.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

REPOSITORY = Path(__file__).resolve().parents[3]


@dataclass(frozen=True, slots=True)
class Exchange:
    """One call with valid arguments and the upstream's answer to the request it makes."""

    tool: str
    arguments: dict[str, Any]
    request: str
    """``"METHOD /path"`` as the upstream receives it (query left out)."""
    body: Any
    status: int = 200
    content_type: str = "application/json"


@dataclass(frozen=True, slots=True)
class Document:
    """One document of the matrix."""

    id: str
    path: str
    """Under the corpus (``HTTPLLM_SPECS``), or ``repo:`` and a path in the repository."""
    calls: tuple[Exchange, ...]
    """Three calls (none for a document only listed)."""
    invalid: tuple[str, dict[str, Any]] | None
    """A tool and arguments its input schema refuses (``None``: only listed)."""
    credentials: tuple[str, ...] = ()
    """``serve`` flags giving the credentials the calls need."""
    corpus: bool = True
    """Whether it comes from the corpus (the ``corpus`` tier) or the repository."""
    broken: str = ""
    """Why its calls cannot succeed yet (a known bug elsewhere), else empty."""
    hosts: bool = True
    """Whether the hosts (Claude Code, Codex) are tried on it."""

    def location(self, corpus: Path | None) -> Path:
        """The document's file."""
        if self.path.startswith("repo:"):
            return REPOSITORY / self.path.removeprefix("repo:")
        assert corpus is not None
        return corpus / self.path


GITHUB_LICENSE = {"key": "mit", "name": "MIT License", "url": "https://api.github.com/licenses/mit",
                  "spdx_id": "MIT", "node_id": "MDc6TGljZW5zZTEz"}
"""A GitHub ``license-simple``."""

DOCUMENTS: tuple[Document, ...] = (
    Document(
        id="petstore", path="repo:specs/petstore-3.0.yaml", corpus=False, hosts=False,
        credentials=("--auth", "apiKey=pet-key"),
        calls=(Exchange("listPets", {"limit": 2}, "GET /pets", [{"id": 1, "name": "Rex"}]),
               Exchange("createPet", {"body": {"name": "Tom"}}, "POST /pets",
                        {"id": 2, "name": "Tom"}, status=201),
               Exchange("getPet", {"petId": 1}, "GET /pets/1", {"id": 1, "name": "Rex"})),
        invalid=("getPet", {"petId": "one"})),
    Document(
        id="github", path="bench/github/api.github.com.json",
        calls=(Exchange("licenses_get-all-commonly-used", {"per_page": 2}, "GET /licenses",
                        [GITHUB_LICENSE]),
               Exchange("gitignore_get-template", {"name": "C"}, "GET /gitignore/templates/C",
                        {"name": "C", "source": "# Object files\n*.o\n"}),
               Exchange("markdown_render", {"body": {"text": "**hi**"}}, "POST /markdown",
                        "<p><strong>hi</strong></p>\n", content_type="text/html")),
        invalid=("licenses_get-all-commonly-used", {"per_page": "many"})),
    Document(
        id="stripe", path="real/stripe/spec3.yaml",
        credentials=("--auth", "bearerAuth=sk_test_matrix"),
        calls=(Exchange("GetTaxCodesId", {"id": "txcd_10000000"}, "GET /v1/tax_codes/txcd_10000000",
                        {"description": "General goods", "id": "txcd_10000000",
                         "name": "General - Tangible Goods", "object": "tax_code"}),
               Exchange("DeleteCustomersCustomer", {"customer": "cus_1"},
                        "DELETE /v1/customers/cus_1",
                        {"deleted": True, "id": "cus_1", "object": "customer"}),
               Exchange("PostApplePayDomains", {"body": {"domain_name": "example.com"}},
                        "POST /v1/apple_pay/domains",
                        {"created": 1700000000, "domain_name": "example.com", "id": "apwc_1",
                         "livemode": False, "object": "apple_pay_domain"})),
        invalid=("PostApplePayDomains", {"body": {}})),
    Document(
        id="paypal-payments", path="real/paypal/payments_payment_v2.json",
        credentials=("--auth", "Oauth2=paypal-token"),
        calls=(Exchange("authorizations_get", {"authorization_id": "0VF52814937998046"},
                        "GET /v2/payments/authorizations/0VF52814937998046",
                        {"id": "0VF52814937998046", "status": "CREATED"}),
               Exchange("refunds_get", {"refund_id": "1JU08902781691411"},
                        "GET /v2/payments/refunds/1JU08902781691411",
                        {"id": "1JU08902781691411", "status": "COMPLETED"}),
               Exchange("authorizations_void", {"authorization_id": "0VF52814937998047"},
                        "POST /v2/payments/authorizations/0VF52814937998047/void",
                        {"id": "0VF52814937998047", "status": "VOIDED"})),
        invalid=("authorizations_get", {})),
    Document(
        id="sendgrid", path="real/sendgrid/oas_v3.json",
        credentials=("--auth", "Authorization=Bearer SG.matrix"),
        calls=(Exchange("GET_tracking_settings-open", {}, "GET /v3/tracking_settings/open",
                        {"enabled": True}),
               Exchange("GET_mc-lists-id-contacts-count", {"id": "list-1"},
                        "GET /v3/marketing/lists/list-1/contacts/count",
                        {"contact_count": 3, "billable_count": 2}),
               Exchange("GET_campaigns-campaign_id-schedules", {"campaign_id": 7},
                        "GET /v3/campaigns/7/schedules", {"send_at": 1700000000})),
        invalid=("GET_campaigns-campaign_id-schedules", {"campaign_id": "seven"})),
    Document(
        id="netlify-swagger2", path="real/netlify/swagger.yml", hosts=False,
        credentials=("--auth", "netlifyAuth=netlify-token"),
        calls=(Exchange("getDeployKey", {"key_id": "k1"}, "GET /deploy_keys/k1",
                        {"id": "k1", "public_key": "ssh-ed25519 AAAA",
                         "created_at": "2024-01-01T00:00:00Z"}),
               Exchange("showTicket", {"ticket_id": "t1"}, "GET /oauth/tickets/t1",
                        {"id": "t1", "client_id": "c1", "authorized": True,
                         "created_at": "2024-01-01T00:00:00Z"}),
               Exchange("getSiteFileByPathName", {"site_id": "s1", "file_path": "index.html"},
                        "GET /sites/s1/files/index.html",
                        {"id": "f1", "path": "/index.html", "sha": "abc", "mime_type": "text/html",
                         "size": 120})),
        invalid=("getSiteFileByPathName", {"site_id": "s1"})),
)
"""Petstore (default tier), GitHub, Stripe, PayPal payments, SendGrid and a Swagger 2.0
document (Netlify), each with its calls."""

LISTED_ONLY: tuple[Document, ...] = (
    Document(id="digitalocean", path="real/digitalocean/specification/DigitalOcean-public.v2.yaml",
             calls=(), invalid=None),
)
"""Documents the benchmark also lists (no calls): DigitalOcean, 659 operations in 1,508
files, whose output schemas carried patterns JavaScript refuses."""

SEEN: list[str] = []
"""``"METHOD /path"`` of every request the upstream received, in order."""

_ANSWERS = {call.request: call for document in DOCUMENTS for call in document.calls}


async def _answer(request: Request) -> Response:
    line = f"{request.method} {request.url.path}"
    SEEN.append(line)
    call = _ANSWERS.get(line)
    if call is None:
        return JSONResponse({"message": f"no route {line}"}, status_code=404)
    if call.content_type == "application/json":
        return JSONResponse(call.body, status_code=call.status)
    return Response(call.body, status_code=call.status, media_type=call.content_type)


UPSTREAM = Starlette(routes=[Route("/{path:path}", _answer,
                                   methods=["GET", "POST", "PUT", "PATCH", "DELETE"])])
"""The upstream API of every document (their paths do not collide)."""

OUTPUT_SCHEMAS = os.environ.get("HTTPLLM_MATRIX_OUTPUT_SCHEMAS", "auto")
"""``serve --output-schemas`` for every document: ``auto`` (the default, as a user gets it),
``on``, or ``off`` (to check listing and calls apart from output schemas)."""


def serve_flags(document: Document, base_url: str) -> list[str]:
    """The ``httpllm serve`` flags (after the document) for ``document``."""
    flags = ["--base-url", base_url, *document.credentials]
    if OUTPUT_SCHEMAS == "off":
        flags.append("--no-output-schemas")  # what servers before --output-schemas know too
    elif OUTPUT_SCHEMAS == "on":
        flags += ["--output-schemas", "on"]
    return flags
