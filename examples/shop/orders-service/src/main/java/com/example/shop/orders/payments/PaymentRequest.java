package com.example.shop.orders.payments;

import java.math.BigDecimal;

public record PaymentRequest(long orderId, BigDecimal amount, String currency) {
}
