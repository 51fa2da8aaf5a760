package com.example.shop.orders;

import com.example.shop.orders.catalog.ProductDto;
import java.math.BigDecimal;

public record Order(long id, ProductDto product, int quantity, BigDecimal total,
                    String paymentId, String customerEmail) {

    /** The same order, showing the product as the catalog has it now. */
    public Order withProduct(ProductDto current) {
        return new Order(id, current, quantity, total, paymentId, customerEmail);
    }
}
