// Black-Scholes call and put prices, with helpers and constants.
const RISKFREE: f32 = 0.02;
const VOLATILITY: f32 = 0.30;
const A1: f32 = 0.31938153;
const A2: f32 = -0.356563782;
const A3: f32 = 1.781477937;
const A4: f32 = -1.821255978;
const A5: f32 = 1.330274429;
const RSQRT2PI: f32 = 0.39894228040143267793994605993438;

/* Polynomial approximation of the cumulative normal distribution. */
fn cnd(d: f32) -> f32 {
    let k = 1.0 / (1.0 + 0.2316419 * abs(d));
    let poly = k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5))));
    let c = RSQRT2PI * exp(-0.5 * d * d) * poly;
    if d > 0.0 { 1.0 - c } else { c }
}

kernel black_scholes(
    price: In<f32>,
    strike: In<f32>,
    years: In<f32>,
    call: Out<f32>,
    put: Out<f32>,
) {
    let sqrt_t = sqrt(years);
    let d1 = (log(price / strike) + (RISKFREE + 0.5 * VOLATILITY * VOLATILITY) * years)
        / (VOLATILITY * sqrt_t);
    let d2 = d1 - VOLATILITY * sqrt_t;
    let exp_rt = exp(-RISKFREE * years);
    call = price * cnd(d1) - strike * exp_rt * cnd(d2);
    put = strike * exp_rt * (1.0 - cnd(d2)) - price * (1.0 - cnd(d1));
}
