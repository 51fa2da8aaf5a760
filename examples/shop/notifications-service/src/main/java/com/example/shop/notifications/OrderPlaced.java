package com.example.shop.notifications;

import java.math.BigDecimal;

/** The orders-service event, as this service reads it. */
public record OrderPlaced(long orderId, String customerEmail, String productName, BigDecimal total) {
}
