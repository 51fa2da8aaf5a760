package com.example.shop.orders.payments;

public record PaymentResult(String paymentId, String status) {
}
