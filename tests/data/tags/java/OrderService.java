package com.acme.shop.orders;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.*;
import static java.util.Objects.requireNonNull;
import com.acme.shop.events.EventBus;

/**
 * Places orders and publishes events.
 */
@Service
public class OrderService extends AbstractService<Order> implements Placer, java.io.Closeable {
    private final OrderRepository repository;
    private final EventBus bus;

    public OrderService(OrderRepository repository, EventBus bus) {
        super("orders");
        this.repository = requireNonNull(repository);
        this.bus = bus;
    }

    // Saves the order, then tells everyone.
    @Override
    @Transactional(readOnly = false)
    public long place(Order order) throws OrderException {
        validate(order);
        long id = repository.save(order);
        this.bus.publish(new OrderPlaced(id));
        List<Line> lines = new ArrayList<>(order.lines());
        lines.forEach(line -> Audit.log(line.sku()));
        return id;
    }

    private void validate(Order order) {
        if (order.lines().isEmpty()) {
            throw new OrderException("empty order");
        }
    }

    @Override
    public void close() {
        Executors.newSingleThreadExecutor().shutdown();
    }

    protected abstract static class Step implements Runnable {
        abstract String name();
    }

    enum Priority implements Comparable<Priority> {
        LOW, HIGH;

        boolean urgent() {
            return this == HIGH;
        }
    }
}

interface Placer extends AutoCloseable, com.acme.shop.Named {
    long place(Order order) throws OrderException;

    default String describe() {
        return getClass().getSimpleName();
    }
}

record OrderPlaced(long id) implements Event {
    OrderPlaced {
        if (id < 0) throw new IllegalArgumentException("id");
    }

    public static OrderPlaced of(long id) {
        return new OrderPlaced(id);
    }
}

@interface Audited {
    String value() default "";
}
