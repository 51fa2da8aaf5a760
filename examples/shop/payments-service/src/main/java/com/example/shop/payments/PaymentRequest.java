package com.example.shop.payments;

import java.math.BigDecimal;

public record PaymentRequest(long orderId, BigDecimal amount, String currency) {
}
