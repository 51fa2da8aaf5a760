package com.example.shop.payments;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.client.RestClient;

/** The payment provider's API: outside the shop. */
@Component
public class StripeClient {

    public record Charge(String id, String status) {
    }

    private final RestClient restClient;
    private final String apiKey;

    public StripeClient(@Value("${stripe.api-url}") String apiUrl,
                        @Value("${stripe.api-key}") String apiKey) {
        this.restClient = RestClient.builder()
                .baseUrl(apiUrl)
                .build();
        this.apiKey = apiKey;
    }

    public Charge charge(PaymentRequest request) {
        MultiValueMap<String, String> form = new LinkedMultiValueMap<>();
        form.add("amount", request.amount().movePointRight(2).toBigInteger().toString());
        form.add("currency", request.currency().toLowerCase());
        form.add("description", "Order " + request.orderId());
        return restClient.post()
                .uri("/v1/charges")
                .headers(headers -> headers.setBearerAuth(apiKey))
                .contentType(MediaType.APPLICATION_FORM_URLENCODED)
                .body(form)
                .retrieve()
                .body(Charge.class);
    }
}
