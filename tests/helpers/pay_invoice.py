"""A one-skill project that pays an invoice: the seeded-fault checks' shared world and setup."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from tests.helpers.gitrepo import commit, make_project

GOLDEN = "goldens/pay-invoice/pay-01.json"
WORLD = """invoices:
  vendors:
    - {id: V-1001, name: Northwind Paper Co., currency: USD, approval_limit: 2000, approver: a@example.com}
  recorded:
    - {vendor_id: V-1001, number: NW-7, total: 240, currency: USD, status: approved}
  payments: []
"""
PAY = '`payments_schedule(vendor_id="V-1001", invoice_number="NW-7", amount=240, currency="USD", pay_on="2026-10-15")`'


def record_and_bless(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> tuple[Path, str]:
    """A committed project of `files`, its pay-01 golden recorded, blessed and committed; the bless sha."""
    runner = CliRunner()
    repo = make_project(tmp_path, monkeypatch, files)
    assert runner.invoke(app, ["record"]).exit_code == 0
    assert runner.invoke(app, ["bless"]).exit_code == 0
    return repo, commit(repo, {GOLDEN: (repo / GOLDEN).read_text(encoding="utf-8")}, "bless")
