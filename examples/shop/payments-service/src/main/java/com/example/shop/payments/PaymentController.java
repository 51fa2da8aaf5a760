package com.example.shop.payments;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/payments")
public class PaymentController {

    private final StripeClient stripe;

    public PaymentController(StripeClient stripe) {
        this.stripe = stripe;
    }

    @PostMapping
    public PaymentResult pay(@RequestBody PaymentRequest request) {
        StripeClient.Charge charge = stripe.charge(request);
        return new PaymentResult(charge.id(), charge.status());
    }
}
