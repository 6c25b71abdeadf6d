import unittest
from unittest import mock

import pytest

from shop.service import OrderService, price


@pytest.fixture
def service():
    return OrderService(mock.Mock())


def test_price_sums_items(service):
    assert price([], {}) == 0


@pytest.mark.parametrize("n", [1, 2])
def test_place_saves(service, n):
    service.place(["a"] * n)
    service.repo.save.assert_called_once()


class TestOrderService(unittest.TestCase):
    def setUp(self):
        self.service = OrderService(mock.Mock(), notify=False)

    def test_empty_order_raises(self):
        with self.assertRaises(ValueError):
            self.service.place([])
