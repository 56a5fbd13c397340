// European option prices by the Black-Scholes formula, with the cumulative
// normal distribution by the Abramowitz-Stegun polynomial (error < 7.5e-8).
const INV_SQRT_2PI: f32 = 0.39894228;

fn cnd(d: f32) -> f32 {
    let k = 1.0 / (1.0 + 0.2316419 * abs(d));
    let poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
    let w = 1.0 - INV_SQRT_2PI * exp(-0.5 * d * d) * poly;
    if d < 0.0 { 1.0 - w } else { w }
}

kernel black_scholes(
    rate: f32,
    volatility: f32,
    price: In<f32>,
    strike: In<f32>,
    years: In<f32>,
    call: Out<f32>,
    put: Out<f32>,
) {
    let sqrt_t = sqrt(years);
    let d1 = (log(price / strike) + (rate + 0.5 * volatility * volatility) * years) / (volatility * sqrt_t);
    let d2 = d1 - volatility * sqrt_t;
    let discount = exp(-rate * years);
    call = price * cnd(d1) - strike * discount * cnd(d2);
    put = strike * discount * cnd(-d2) - price * cnd(-d1);
}
