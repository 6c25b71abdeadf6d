"""Order service: pricing, persistence and notifications."""

from __future__ import annotations

import json
import os.path as osp
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import signals
from .helpers import url_for as url, slugify
from ..core.models import *

if TYPE_CHECKING:
    from .repo import Repository


# Prices are kept in cents.
CENTS = 100


@dataclass(frozen=True)
class LineItem:
    """One product in an order."""

    sku: str
    quantity: int = 1

    def total(self, price: int) -> int:
        return price * self.quantity


class OrderError(ValueError):
    pass


class OrderService(BaseService, metaclass=ServiceMeta):
    """Creates orders and tells the world about them."""

    def __init__(self, repo: Repository, *, notify: bool = True) -> None:
        super().__init__()
        self.repo = repo
        self.notify = notify

    # Persist, then announce.
    def place(
        self,
        items: list[LineItem],
        *extra: str,
        **options: object,
    ) -> int:
        if not items:
            raise OrderError("empty order")
        order_id = self.repo.save(json.dumps([i.sku for i in items]))
        if self.notify:
            signals.order_placed.send(order_id)
        self._log(url("orders", order_id))
        return order_id

    @staticmethod
    def _log(message: str) -> None:
        print(slugify(message))

    class Meta:
        table = "orders"

        def describe(cls) -> str:
            return osp.join("orders", cls.table)


def price(items: list[LineItem], prices: dict[str, int]) -> int:
    total = 0
    for item in items:
        total += item.total(prices[item.sku])

    def rounded(value: int) -> int:
        return round(value / CENTS) * CENTS

    return rounded(total)


async def fetch_all(service: OrderService) -> list[int]:
    return [await service.repo.load(i) for i in range(3)]
