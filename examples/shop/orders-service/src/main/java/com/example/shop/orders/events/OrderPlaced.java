package com.example.shop.orders.events;

import java.math.BigDecimal;

/** Published on shop.topics.order-placed once an order is paid. */
public record OrderPlaced(long orderId, String customerEmail, String productName, BigDecimal total) {
}
