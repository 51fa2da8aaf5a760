package com.example.shop.notifications;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

@Component
public class OrderEventsListener {

    private static final Logger log = LoggerFactory.getLogger(OrderEventsListener.class);

    @KafkaListener(topics = "${shop.topics.order-placed}", groupId = "notifications")
    public void onOrderPlaced(OrderPlaced event) {
        // A real service would send an e-mail here.
        log.info("Order {} confirmed: {} for {} to {}",
                event.orderId(), event.productName(), event.total(), event.customerEmail());
    }
}
