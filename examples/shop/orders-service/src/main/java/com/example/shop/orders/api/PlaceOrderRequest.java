package com.example.shop.orders.api;

public record PlaceOrderRequest(long productId, int quantity, String customerEmail) {
}
