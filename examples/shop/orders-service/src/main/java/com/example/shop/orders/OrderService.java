package com.example.shop.orders;

import com.example.shop.orders.api.PlaceOrderRequest;
import com.example.shop.orders.catalog.CatalogClient;
import com.example.shop.orders.catalog.ProductDto;
import com.example.shop.orders.events.OrderPlaced;
import com.example.shop.orders.payments.PaymentRequest;
import com.example.shop.orders.payments.PaymentResult;
import java.math.BigDecimal;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestClient;
import org.springframework.web.server.ResponseStatusException;

@Service
public class OrderService {

    private final CatalogClient catalog;
    private final RestClient restClient;
    private final String paymentsUrl;
    private final KafkaTemplate<String, OrderPlaced> kafkaTemplate;
    private final String orderPlacedTopic;

    private final Map<Long, Order> orders = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong(1);

    public OrderService(CatalogClient catalog,
                        RestClient.Builder restClientBuilder,
                        @Value("${payments.url}") String paymentsUrl,
                        KafkaTemplate<String, OrderPlaced> kafkaTemplate,
                        @Value("${shop.topics.order-placed}") String orderPlacedTopic) {
        this.catalog = catalog;
        this.restClient = restClientBuilder.build();
        this.paymentsUrl = paymentsUrl;
        this.kafkaTemplate = kafkaTemplate;
        this.orderPlacedTopic = orderPlacedTopic;
    }

    public Order getOrder(long id) {
        Order order = orders.get(id);
        if (order == null) {
            throw new ResponseStatusException(HttpStatus.NOT_FOUND, "No order " + id);
        }
        return order.withProduct(catalog.getProduct(order.product().id()));
    }

    public Order placeOrder(PlaceOrderRequest request) {
        ProductDto product = catalog.getProduct(request.productId());
        BigDecimal total = product.price().multiply(BigDecimal.valueOf(request.quantity()));
        long id = nextId.getAndIncrement();

        PaymentResult payment = restClient.post()
                .uri(paymentsUrl + "/payments")
                .body(new PaymentRequest(id, total, "EUR"))
                .retrieve()
                .body(PaymentResult.class);

        Order order = new Order(id, product, request.quantity(), total,
                payment.paymentId(), request.customerEmail());
        orders.put(id, order);

        kafkaTemplate.send(orderPlacedTopic, String.valueOf(id),
                new OrderPlaced(id, request.customerEmail(), product.name(), total));
        return order;
    }
}
