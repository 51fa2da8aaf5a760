package com.example.shop.catalog;

import java.math.BigDecimal;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

@RestController
@RequestMapping("/products")
public class ProductController {

    private final List<Product> products = List.of(
            new Product(1, "Brass sextant", new BigDecimal("349.00")),
            new Product(2, "Nautical almanac", new BigDecimal("24.50")),
            new Product(3, "Chronometer", new BigDecimal("899.00")));

    @GetMapping
    public List<Product> listProducts() {
        return products;
    }

    @GetMapping("/{id}")
    public Product getProduct(@PathVariable long id) {
        return products.stream()
                .filter(product -> product.id() == id)
                .findFirst()
                .orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, "No product " + id));
    }
}
