package com.example.shop.payments;

public record PaymentResult(String paymentId, String status) {
}
