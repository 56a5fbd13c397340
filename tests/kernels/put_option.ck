// European put by Black-Scholes, with the normal CDF approximated
// (Abramowitz-Stegun 26.2.17).
fn cdf(x: f32) -> f32 {
    let k = 1.0 / (1.0 + 0.2316419 * abs(x));
    let poly = k * (0.319381530 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
    let w = 1.0 - 0.3989422804 * exp(-0.5 * x * x) * poly;
    if x < 0.0 { 1.0 - w } else { w }
}
kernel put_option(rate: f32, sigma: f32, spot: In<f32>, strike: In<f32>, t: In<f32>, r: Out<f32>) {
    let st = sigma * sqrt(t);
    let d1 = (log(spot / strike) + (rate + 0.5 * sigma * sigma) * t) / st;
    let d2 = d1 - st;
    r = strike * exp(-rate * t) * cdf(-d2) - spot * cdf(-d1);
}
