package com.example.shop.orders.catalog;

import java.math.BigDecimal;

public record ProductDto(long id, String name, BigDecimal price) {
}
