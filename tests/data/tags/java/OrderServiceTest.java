package com.acme.shop.orders;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.Mockito.mock;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OrderServiceTest {
    private OrderService service;

    @BeforeEach
    void setUp() {
        service = new OrderService(mock(OrderRepository.class), new EventBus());
    }

    @Test
    void rejectsEmptyOrders() {
        assertThrows(OrderException.class, () -> service.place(new Order()));
    }

    /** Any positive id is accepted. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void acceptsPositiveIds(long id) {
        assertEquals(id, OrderPlaced.of(id).id());
    }

    private Order order() {
        return new Order();
    }
}
